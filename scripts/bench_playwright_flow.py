"""The demo flow written by hand as a Playwright test, for scripts/bench-run.sh.

Signs in, opens the New invoice modal, fills customer and amount, saves the draft and waits
for its row: the same flow as crates/runner/assets/demo_flow.json, with Playwright's selector
auto-waits and no fixed sleep. Runs RUNS tests, JOBS at a time, each in a new browser context
of one Chromium (the system's, as retrace uses), and prints one JSON object: the wall time
and each test's time, in milliseconds.

Usage: python bench_playwright_flow.py URL RUNS JOBS CHROMIUM
"""

import asyncio
import json
import sys
import time

from playwright.async_api import async_playwright, expect


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


async def main(url, runs, jobs, chromium):
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, headless=True)
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
    asyncio.run(main(url, runs, jobs, chromium))
