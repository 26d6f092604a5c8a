"""Drives `retrace mcp` with the official MCP Python SDK, as a coding agent would.

Run by crates/cli/tests/cli/mcp_server.rs with one argument, a JSON object:
  binary, work (the server's folder, holding flow.json, broken.json and flows/), demo (the demo
  app's URL), baseline and shifted (content-site variants), slow (a demo app slow to sign in),
  held (a site whose /held page is held back) and held_count (a file holding how many requests
  for it arrived and how many are held still), password (the demo's, a secret parameter), log (the server's stderr),
  transport ("stdio" or "http"), token (for http).

Every check raises AssertionError with what was seen; exit 0 means all held.
"""

import base64
import json
import os
import subprocess
import sys
import time

import anyio
import httpx2
import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

CFG = json.loads(sys.argv[1])
TOOLS = {"check", "replay", "run", "screenshot", "list_trajectories", "approve"}
SEEN = []  # every result and notification, as JSON text, for the secret search


def seen(obj):
    text = obj if isinstance(obj, str) else obj.model_dump_json(by_alias=True)
    SEEN.append(text)
    return obj


def require(condition, what, detail=None):
    if not condition:
        raise AssertionError(f"{what}: {json.dumps(detail, default=str)[:3000] if detail is not None else ''}")


def server_pid():
    """The `retrace mcp` process this client started (its child, for stdio; the http server
    is started here too)."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        if ppid == me and len(cmd) > 1 and cmd[1] == b"mcp":
            return int(pid)
    raise AssertionError("no `retrace mcp` child process")


def browsers_of(parent):
    """Live browser processes the server started (its children whose command names chrom)."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[1]) == parent and b"chrom" in cmd:
            found.add(int(pid))
    return found


async def call(session, name, arguments, **kwargs):
    result = seen(await session.call_tool(name, arguments, **kwargs))
    return result


async def cancelled_after_first_progress(session, name, arguments):
    """Calls `name` and cancels the call at its first progress notification of work done (after
    `0/N started`); returns the notifications seen. A call that ends before it is cancelled
    fails the test."""
    notes = []
    first = anyio.Event()

    async def on_progress(done, total, message):
        notes.append((done, total, message))
        seen(json.dumps([done, total, message]))
        if done >= 1:
            first.set()

    async with anyio.create_task_group() as group:
        async def doomed():
            await session.call_tool(name, arguments, progress_callback=on_progress)
            raise AssertionError(f"the {name} call ended before it was cancelled")

        group.start_soon(doomed)
        with anyio.fail_after(600):
            await first.wait()
        group.cancel_scope.cancel()
    return notes


def held_requests():
    """How many requests for the held page have arrived, and how many are held still (their
    page not closed): the test writes both."""
    try:
        with open(CFG["held_count"]) as f:
            arrived, waiting = f.read().split()
            return int(arrived), int(waiting)
    except (OSError, ValueError):
        return 0, 0


async def page_closed(what):
    """Waits until no request for the held page is held: the browser closed the page of the
    cancelled call. A call not stopped would give up on the page by itself only when its
    navigation times out (30 s), so the deadline is below that (a cancelled call's page closes
    in well under a second)."""
    deadline = time.monotonic() + 20
    while held_requests()[1] and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    require(held_requests()[1] == 0, what, held_requests())


async def cancelled_while_held(session, name, arguments):
    """Calls `name` on the held page and cancels the call once the page's request has reached
    its server (the call is then waiting for it). A call that ends first fails the test."""
    before = held_requests()[0]

    async with anyio.create_task_group() as group:
        async def doomed():
            await call(session, name, arguments)
            raise AssertionError(f"the {name} call ended before it was cancelled")

        group.start_soon(doomed)
        with anyio.fail_after(600):
            while held_requests()[0] <= before:
                await anyio.sleep(0.05)
        group.cancel_scope.cancel()


async def browsers_become(pid, want, what):
    """Waits (a minute at most) until the server's browsers are `want(browsers)`."""
    deadline = time.monotonic() + 60
    while not want(browsers_of(pid)) and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    require(want(browsers_of(pid)), what, sorted(browsers_of(pid)))


async def cancel_held_calls(session, pid):
    """A screenshot and a check cancelled while their page is held back: no browser is left
    beyond the warm one, and the server answers the next call in it."""
    about = CFG["baseline"] + "site/about"
    shot = {"url": about, "size": "1280x800"}
    structured(await call(session, "screenshot", shot), "a screenshot at the warm size")
    warm = browsers_of(pid)
    require(len(warm) == 1, "one warm browser", sorted(warm))
    await cancelled_while_held(session, "screenshot", {"url": CFG["held"] + "/held", "size": "1280x800"})
    await page_closed("the cancelled screenshot's page closed")
    await browsers_become(pid, lambda now: now == warm, "only the warm browser after a cancelled screenshot")
    structured(await call(session, "screenshot", shot), "a screenshot after a cancelled one")
    require(browsers_of(pid) == warm, "the screenshot after it in the warm browser", (sorted(warm), sorted(browsers_of(pid))))

    held = {"baseline": CFG["held"], "candidate": CFG["held"], "pages": ["/held"], "retries": 0}
    await cancelled_while_held(session, "check", held)
    await page_closed("the cancelled check's page closed")
    # The check's viewport (1280x720) is not the screenshot's: its browser became the warm one.
    await browsers_become(pid, lambda now: len(now) == 1, "only the warm browser after a cancelled check")
    warm = browsers_of(pid)
    same = {"baseline": CFG["baseline"], "candidate": CFG["baseline"], "pages": ["/site/about"], "retries": 0}
    out = structured(await call(session, "check", same), "a check after a cancelled one")
    require(out["verdict"] == "PASS", "the check after a cancelled one passes", out)
    require(browsers_of(pid) == warm, "the check after it in the warm browser", (sorted(warm), sorted(browsers_of(pid))))


def structured(result, name):
    require(not result.is_error, f"{name} returned a tool error", result.model_dump(by_alias=True))
    require(result.structured_content is not None, f"{name} has no structured content")
    return result.structured_content


def text_of(result):
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


def images_of(result):
    return [block for block in result.content if isinstance(block, types.ImageContent)]


async def exercise(session, pid):
    demo, v2 = CFG["demo"], CFG["demo"] + "?layout=v2"
    login = {"username": "demo", "password": CFG["password"]}

    listed = seen(await session.list_tools())
    by_name = {tool.name: tool for tool in listed.tools}
    require(set(by_name) == TOOLS, "the tools", sorted(by_name))
    for tool in listed.tools:
        require(tool.input_schema.get("type") == "object", f"{tool.name}'s input schema", tool.input_schema)
        require(tool.output_schema and tool.output_schema.get("type") == "object", f"{tool.name}'s output schema")
    require("url" in by_name["replay"].input_schema["required"], "replay requires url", by_name["replay"].input_schema)
    require("verdict" in by_name["check"].output_schema["properties"], "check's output has verdict")

    # A bad argument is a tool error naming it; the server stays up.
    bad = await call(session, "replay", {"file": 5, "url": demo})
    require(bad.is_error and "`file`" in text_of(bad), "a mistyped file is a tool error naming it", text_of(bad))
    bad = await call(session, "check", {"baseline": CFG["baseline"], "candidate": CFG["shifted"], "viewports": ["wide"]})
    require(bad.is_error and "viewports[0]" in text_of(bad), "a bad viewport is named", text_of(bad))
    bad = await call(session, "replay", {"file": "flow.json", "url": demo, "params": {"username": "demo"}})
    require(bad.is_error and "password" in text_of(bad), "a missing parameter is named", text_of(bad))
    bad = await call(session, "no_such_tool", {})
    require(bad.is_error and "check" in text_of(bad), "an unknown tool lists the tools", text_of(bad))

    shot = await call(session, "screenshot", {"url": CFG["baseline"] + "site/about", "size": "800x600"})
    out = structured(shot, "screenshot")
    require((out["width"], out["height"]) == (800, 600), "the screenshot's size", out)
    require(os.path.isfile(os.path.join(CFG["work"], out["path"])), "the screenshot file", out)
    require(len(images_of(shot)) == 1, "the screenshot as an image")

    same = await call(session, "check", {"baseline": CFG["baseline"], "candidate": CFG["baseline"], "pages": ["/site/about"], "retries": 0})
    out = structured(same, "check PASS")
    require(out["verdict"] == "PASS" and out["pages"][0]["verdict"] == "PASS", "an unchanged page passes", out)
    require(not images_of(same), "a PASS attaches no diff image")

    pages_done = []

    async def page_done(done, total, message):
        pages_done.append((done, total, message))
        seen(json.dumps([done, total, message]))

    shifted = await call(session, "check", {"baseline": CFG["baseline"], "candidate": CFG["shifted"], "pages": ["/site/pricing"], "retries": 0}, progress_callback=page_done)
    require(any(d == t == 1 and m.startswith("FAIL /site/pricing @1280x720") for d, t, m in pages_done), "a progress notification for the page", pages_done)
    out = structured(shifted, "check FAIL")
    page = out["pages"][0]
    require(out["verdict"] == "FAIL" and page["verdict"] == "FAIL", "the shifted page fails", out)
    require(any(d["type"] == "layout" for d in page["differences"]), "a typed layout difference", page)
    require(page["diff_image"] and os.path.isfile(os.path.join(CFG["work"], page["diff_image"])), "the diff image file", page)
    images = images_of(shifted)
    require(len(images) == 1 and images[0].mime_type == "image/png", "the diff image attached", [i.mime_type for i in images])
    png = base64.b64decode(images[0].data)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    require(png[:8] == b"\x89PNG\r\n\x1a\n" and max(width, height) <= 800, "a downscaled PNG", (width, height))

    steps = []

    async def step_done(done, total, message):
        steps.append((done, total, message))
        seen(json.dumps([done, total, message]))

    passed = await call(session, "replay", {"file": "flow.json", "url": demo, "params": login, "step_timeout": 30}, progress_callback=step_done)
    out = structured(passed, "replay v1")
    require(out["status"] == "passed" and out["steps_replayed"] >= 12 and out["failure"] is None, "the demo flow replays", out)
    require(any(m == "step 2: left_click at (640, 311)" and t == 13 for _, t, m in steps), "a progress notification per step", steps)
    require([d for d, _, _ in steps] == sorted(d for d, _, _ in steps) and steps[-1][0] <= 13, "progress counts up to the steps", steps)
    first_browser = browsers_of(pid)
    steps.clear()
    failed = await call(session, "replay", {"file": "flow.json", "url": v2, "params": login, "step_timeout": 30}, progress_callback=step_done)
    require(any(m.startswith("failed at step 7") for _, _, m in steps), "the failed step in a notification", steps)
    require(first_browser and browsers_of(pid) == first_browser, "the same browser kept warm for the next replay", (first_browser, browsers_of(pid)))
    out = structured(failed, "replay v2")
    require(out["status"] == "failed" and out["failure"]["step"] == 7, "v2 fails at step 7", out)
    require(str(7) in text_of(failed), "the step in the text", text_of(failed))

    # A replay cancelled after its first step (the slow app answers the sign-in only after a
    # minute): the server keeps its one warm browser, answers, and replays again.
    warm = browsers_of(pid)
    notes = await cancelled_after_first_progress(session, "replay", {"file": "flow.json", "url": CFG["slow"], "params": login, "step_timeout": 30})
    require(notes[0][2] == "started" and notes[1][2].startswith("step 2:"), "the cancelled replay's first step", notes)
    again = structured(await call(session, "replay", {"file": "flow.json", "url": demo, "params": login, "step_timeout": 30}), "replay after a cancelled one")
    require(again["status"] == "passed", "a replay after a cancelled one passes", again)
    require(browsers_of(pid) == warm, "no browser left by the cancelled replay", (warm, browsers_of(pid)))

    await cancel_held_calls(session, pid)

    # A run with progress notifications, cancelled after its first test: no browser of it left.
    warm = browsers_of(pid)
    require(warm, "a browser kept warm between calls")
    progress, during = [], []
    first_done = anyio.Event()

    async def on_progress(done, total, message):
        progress.append((done, total, message))
        seen(json.dumps([done, total, message]))
        if done >= 1:
            during.append(browsers_of(pid))
            first_done.set()

    async with anyio.create_task_group() as group:
        async def cancelled_run():
            await session.call_tool("run", {"paths": ["flows"], "url": demo, "params": login, "jobs": 1, "step_timeout": 30}, progress_callback=on_progress)
            raise AssertionError("the run ended before it was cancelled")

        group.start_soon(cancelled_run)
        with anyio.fail_after(600):
            await first_done.wait()
        group.cancel_scope.cancel()
    require(progress and progress[-1][1] == 4 and "passed" in progress[-1][2], "a progress notification per test", progress)
    require(during and during[0] - warm, "the run's own browser while it ran", (warm, during))
    deadline = time.monotonic() + 60
    while browsers_of(pid) - warm and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    require(not (browsers_of(pid) - warm), "no browser of the cancelled run left", (warm, browsers_of(pid)))
    suite = structured(await call(session, "list_trajectories", {"paths": ["flows"]}), "list flows")
    never_ran = [t["id"] for t in suite["trajectories"] if t["last_result"] is None]
    require(never_ran, "the cancelled run stopped before its last test", suite)

    # A run that fails on v2, then approve, then the file replays on v2.
    notes = []

    async def note(done, total, message):
        notes.append(message)
        seen(json.dumps([done, total, message]))

    ran = await call(session, "run", {"paths": ["flow.json"], "url": v2, "params": login, "step_timeout": 30}, progress_callback=note)
    out = structured(ran, "run v2")
    require(out["verdict"] == "failed" and out["tests"][0]["step"] == 7, "the run fails at step 7", out)
    require(any("failed flow.json at step 7" in n for n in notes), "the failure in a notification", notes)

    listed = structured(await call(session, "list_trajectories", {"paths": ["flow.json", "broken.json"]}), "list")
    health = {t["id"]: t for t in listed["trajectories"]}
    flow, broken = health["flow.json"], health["broken.json"]
    require(flow["valid"] and flow["last_result"] == "failed" and flow["last_failure"]["step"] == 7, "flow.json's health", flow)
    require(flow["failures"] >= 1 and flow["runs"] >= 1, "flow.json's counts", flow)
    require(not broken["valid"] and broken["problems"] and broken["last_result"] is None, "broken.json's health", broken)

    bad = await call(session, "approve", {"file": "flow.json", "step": 3})
    require(bad.is_error and "step 7" in text_of(bad), "only the failed step is approved", text_of(bad))
    approved = structured(await call(session, "approve", {"file": "flow.json", "step": 7}), "approve")
    require(approved["approved"] == "trajectory" and approved["step"] == 7 and approved["previous"], "step 7 approved", approved)
    again = structured(await call(session, "replay", {"file": "flow.json", "url": v2, "params": login, "step_timeout": 30}), "replay after approve")
    require(again["status"] == "passed", "the approved file replays on v2", again)

    # A check's baseline approved into a folder, then checked against.
    stored = structured(await call(session, "approve", {"baseline_dir": "shots", "candidate": CFG["baseline"], "pages": ["/site/pricing"]}), "approve baseline")
    require(stored["approved"] == "check_baseline" and stored["stored"], "the baseline stored", stored)
    for candidate, verdict in [(CFG["baseline"], "PASS"), (CFG["shifted"], "FAIL")]:
        out = structured(await call(session, "check", {"baseline": "shots", "candidate": candidate, "pages": ["/site/pricing"], "retries": 0}), "check stored")
        require(out["verdict"] == verdict, f"{candidate} against the stored baseline", out)

    # Still serving after all that.
    require(len((await session.list_tools()).tools) == 6, "the server still answers")
    return browsers_of(pid)


async def gone(pids):
    """Waits (a minute at most) until none of `pids` is alive: the server's browsers end with it."""
    def alive():
        return {pid for pid in pids if os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().split(") ", 1)[1][0] != "Z"}
    deadline = time.monotonic() + 60
    while alive() and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    require(not alive(), "no browser of the server left once it stopped", sorted(alive()))


async def over_stdio():
    params = StdioServerParameters(
        command=CFG["binary"],
        args=["mcp", "--out", "evidence"],
        cwd=CFG["work"],
        env={"RETRACE_LOG": "debug", "RETRACE_MCP_TOKEN": ""},
    )
    with open(CFG["log"], "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                left = await exercise(session, server_pid())
    require(left, "the warm browser while serving")
    await gone(left)


async def over_http():
    env = dict(os.environ, RETRACE_LOG="debug", RETRACE_MCP_TOKEN=CFG["token"])
    with open(CFG["log"], "w") as log:
        server = subprocess.Popen(
            [CFG["binary"], "mcp", "--http", "127.0.0.1:0", "--out", "evidence"],
            cwd=CFG["work"], env=env, stdout=subprocess.PIPE, stderr=log, text=True,
        )
        try:
            line = server.stdout.readline()
            require(line.startswith("serving MCP on http://"), "the server's first line", line)
            url = line.split(" on ", 1)[1].strip()
            async with httpx2.AsyncClient() as plain:
                ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
                refused = await plain.post(url, json=ping, headers={"Accept": "application/json, text/event-stream"})
                require(refused.status_code == 401, "no token: 401", refused.status_code)
                # Its body unread, the connection is closed: the client must not send the next
                # request there (it would be dropped unanswered).
                require(refused.headers.get("connection") == "close", "a 401 closes its connection", dict(refused.headers))
                wrong = await plain.post(url, json=ping, headers={"Authorization": "Bearer nope", "Accept": "application/json, text/event-stream"})
                require(wrong.status_code == 401, "a wrong token: 401", wrong.status_code)
            headers = {"Authorization": f"Bearer {CFG['token']}"}
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(600.0)) as client:
                async with streamable_http_client(url, http_client=client) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        left = await exercise(session, server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    require(server.returncode == 0, "the server stops cleanly on SIGTERM", server.returncode)
    await gone(left)


def main():
    anyio.run(over_http if CFG["transport"] == "http" else over_stdio)
    with open(CFG["log"]) as f:
        log = f.read()
    leaks = [text for text in SEEN if CFG["password"] in text]
    require(not leaks, "the password in a result or notification", leaks[:2])
    require(CFG["password"] not in log, "the password in the server's log", log[-2000:])
    require(len(SEEN) > 10, "results were seen", len(SEEN))
    print(f"ok: {len(SEEN)} results and notifications, none with the password")


if __name__ == "__main__":
    main()
