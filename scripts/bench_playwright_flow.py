"""The demo flow written by hand as a Playwright test, for scripts/bench-run.sh.

Signs in, opens the New invoice modal, fills customer and amount, saves the draft and waits
for its row: the same flow as crates/runner/assets/demo_flow.json, with Playwright's selector
auto-waits and no fixed sleep. Runs RUNS tests, JOBS at a time, each in a new browser context
of one Chromium (CHROMIUM: the one retrace launches), and prints one JSON object: the wall
time and each test's time, in milliseconds.

With FLAGS `retrace`, Chromium also gets the launch flags retrace adds to Playwright's own
(no spare renderers, no omnibox popup renderers, see crates/drive/src/chromium/process.rs):
Playwright as fast as the same browser lets it be, so the comparison is of the two tools,
not their flags.

Usage: python bench_playwright_flow.py URL RUNS JOBS CHROMIUM [FLAGS]
"""

import asyncio
import json
import sys
import time

from playwright.async_api import async_playwright, expect

# Playwright 1.63's own `--disable-features` list (lib/server/chromium/chromiumSwitches):
# Chromium keeps only the last `--disable-features` switch, so the tuned launch repeats it.
PLAYWRIGHT_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose",
    "DialMediaRouteProvider", "GlobalMediaControls", "HttpsUpgrades", "LensOverlay",
    "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "BlockOriginHeaderModificationOnRedirect", "Translate", "AutoDeElevate",
    "OptimizationHints", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
]
RETRACE_DISABLED_FEATURES = [
    "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "SpareRendererForSitePerProcess",
]


async def one_test(browser, url):
    started = time.perf_counter()
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = await context.new_page()
        await page.goto(url)
        await page.fill("#username", "demo")
        await page.fill("#password", "retrace-demo-pw")
        await page.click("#sign-in")
        await page.click("#new-invoice")
        await page.fill("#modal-customer", "Acme Corp")
        await page.fill("#modal-amount", "120.00")
        await page.click("#modal-save")
        row = page.locator("#invoices tr[data-invoice]", has_text="$120.00")
        await expect(row.first).to_be_visible()
    finally:
        await context.close()
    return (time.perf_counter() - started) * 1000


async def main(url, runs, jobs, chromium, flags):
    args = []
    if flags == "retrace":
        features = PLAYWRIGHT_DISABLED_FEATURES + RETRACE_DISABLED_FEATURES
        args = ["--disable-features=" + ",".join(features)]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium, headless=True, args=args
        )
        gate = asyncio.Semaphore(jobs)

        async def gated():
            async with gate:
                return await one_test(browser, url)

        started = time.perf_counter()
        times = await asyncio.gather(*(gated() for _ in range(runs)))
        wall = (time.perf_counter() - started) * 1000
        await browser.close()
    print(json.dumps({"wall_ms": wall, "test_ms": times}))


if __name__ == "__main__":
    url, runs, jobs, chromium = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    flags = sys.argv[5] if len(sys.argv) > 5 else "playwright"
    if flags not in ("playwright", "retrace"):
        sys.exit(f"bench_playwright_flow: FLAGS must be playwright or retrace, not {flags!r}")
    asyncio.run(main(url, runs, jobs, chromium, flags))
