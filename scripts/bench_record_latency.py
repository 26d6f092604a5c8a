"""What `retrace record` adds to the person's experience in the browser: the delay between an
input (an xdotool click or key under Xvfb, on a headed Chromium) and the page's next paint
after it, with and without the recorder, in alternating rounds of the same command.

The page timestamps each input's event and the frame after it (`requestAnimationFrame`, then
a task: the paint has been handed on) and posts both to this script's server; the delay is
that paint time minus the moment just before xdotool was started (the same clock: the
host's). Baseline: the same Chromium, the flags retrace launches it with, the page opened on
its command line. Prints medians per kind of input and mode, the added delay and the ratio.

Usage: python3 scripts/bench_record_latency.py RETRACE_BINARY [SAMPLES_PER_ROUND] [ROUNDS]
"""

import http.server
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PAGE = b"""<!doctype html><html><head><title>latency</title></head>
<body style="margin:0"><div id="pad" style="width:100vw;height:100vh;background:#fff;
font:40px sans-serif">ready</div><script>
let n = 0;
function react(kind, event) {
  const atEvent = performance.timeOrigin + event.timeStamp;
  n += 1;
  pad.style.background = n % 2 ? '#36c' : '#c63';
  pad.textContent = kind + ' ' + n;
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const atPaint = performance.timeOrigin + performance.now();
      fetch('/r', {method: 'POST', body: JSON.stringify({kind, n, atEvent, atPaint})});
    };
    channel.port2.postMessage(0);
  });
}
addEventListener('mousedown', (event) => react('click', event), true);
addEventListener('keydown', (event) => react('key', event), true);
addEventListener('load', () => fetch('/ready', {method: 'POST', body: '{}'}));
</script></body></html>"""

# The flags retrace launches a headed Chromium with (crates/drive/src/chromium/process.rs:
# CHROMIUM_FLAGS without --headless and --no-startup-window, the page given instead).
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--enable-features=CDPScreenshotNewSurface",
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess",
    "--window-position=0,0", "--remote-debugging-port=0",
]

SCREEN = (1600, 1000)
VIEWPORT = (1280, 800)
POINTS = [(500, 500), (700, 560)]


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.results = queue.Queue()
        self.ready = queue.Queue()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(204)
        self.end_headers()
        target = self.server.ready if self.path == "/ready" else self.server.results
        target.put(json.loads(body or b"{}"))

    def log_message(self, *args):
        pass


def xvfb():
    read, write = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0",
         f"{SCREEN[0]}x{SCREEN[1]}x24"],
        pass_fds=[write], stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    while not number.endswith(b"\n"):
        number += os.read(read, 16)
    os.close(read)
    return process, ":" + number.decode().strip()


def xdotool(display, *args):
    subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, check=True)


def open_baseline(display, url, profile):
    return subprocess.Popen(
        ["chromium", *FLAGS, f"--user-data-dir={profile}",
         f"--window-size={VIEWPORT[0]},{VIEWPORT[1] + 90}", url],
        env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)


def open_recorder(retrace, display, url, out):
    return subprocess.Popen(
        [retrace, "record", "--url", url, "--out", out, "--display", display],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def drain(q):
    while not q.empty():
        q.get_nowait()


def measure(server, display, samples):
    """Delays (ms) per kind: the paint after the input minus the moment before xdotool ran."""
    delays = {"click": [], "key": []}
    in_page = {"click": [], "key": []}
    for i in range(samples):
        for kind in ("click", "key"):
            x, y = POINTS[i % 2]
            xdotool(display, "mousemove", str(x), str(y))
            # Apart in time and place: no double click, and the page's last paint is done.
            time.sleep(0.6)
            drain(server.results)
            sent = time.time() * 1000
            if kind == "click":
                xdotool(display, "click", "1")
            else:
                xdotool(display, "key", "a")
            result = server.results.get(timeout=30)
            delays[kind].append(result["atPaint"] - sent)
            in_page[kind].append(result["atPaint"] - result["atEvent"])
    return delays, in_page


def run_mode(mode, retrace, server, display, url, samples, work):
    profile = tempfile.mkdtemp(dir=work)
    drain(server.ready)
    if mode == "baseline":
        process = open_baseline(display, url, profile)
    else:
        process = open_recorder(retrace, display, url, os.path.join(profile, "bench.json"))
    try:
        server.ready.get(timeout=120)
        # Let the first paint and the recorder's first frame settle.
        time.sleep(2)
        return measure(server, display, samples)
    finally:
        sig = signal.SIGINT if mode == "record" else signal.SIGTERM
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main():
    retrace = sys.argv[1]
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    work = tempfile.mkdtemp(prefix="retrace-bench-latency-")
    server = Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    x, display = xvfb()
    totals = {mode: ({"click": [], "key": []}, {"click": [], "key": []})
              for mode in ("baseline", "record")}
    try:
        for round_number in range(rounds):
            order = ("baseline", "record") if round_number % 2 == 0 else ("record", "baseline")
            for mode in order:
                delays, in_page = run_mode(mode, retrace, server, display, url, samples, work)
                for kind in delays:
                    totals[mode][0][kind] += delays[kind]
                    totals[mode][1][kind] += in_page[kind]
                print(f"round {round_number + 1} {mode}: click median "
                      f"{statistics.median(delays['click']):.1f} ms, key median "
                      f"{statistics.median(delays['key']):.1f} ms", flush=True)
    finally:
        x.terminate()
        x.wait()
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"\n{rounds} rounds x {samples} samples per input kind and mode, load average {load:.1f}")
    print("input  baseline  record  added  ratio  (medians, ms: xdotool start to the paint "
          "after the event; in the page: event to paint)")
    for kind in ("click", "key"):
        base = statistics.median(totals["baseline"][0][kind])
        rec = statistics.median(totals["record"][0][kind])
        base_in = statistics.median(totals["baseline"][1][kind])
        rec_in = statistics.median(totals["record"][1][kind])
        print(f"{kind:<6} {base:8.1f} {rec:7.1f} {rec - base:+6.1f} {rec / base:6.2f}x  "
              f"(in the page: {base_in:.1f} / {rec_in:.1f})")


if __name__ == "__main__":
    main()
