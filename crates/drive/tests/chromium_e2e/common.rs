use std::path::Path;
use std::sync::Arc;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::ChromiumPage;

/// A login form: user name at (100..300, 100..130), password at (100..300, 150..180), a
/// submit button at (100..200, 200..230). Submitting goes to `/dashboard`.
pub const LOGIN_HTML: &str = r#"<!doctype html><html><head><title>Log in</title><style>
body { margin: 0; font: 16px sans-serif; background: #fff; }
#user { position: absolute; left: 100px; top: 100px; width: 200px; height: 30px; box-sizing: border-box; }
#pass { position: absolute; left: 100px; top: 150px; width: 200px; height: 30px; box-sizing: border-box; }
#go { position: absolute; left: 100px; top: 200px; width: 100px; height: 30px; }
</style></head><body>
<form action="/dashboard" method="get">
<input id="user" name="user" autocomplete="off">
<input id="pass" name="password" type="password">
<button id="go" type="submit">Log in</button>
</form></body></html>"#;

/// A one-button form to `/dashboard` on a page whose main thread is busy for 800 ms after the
/// button is clicked (eight queued tasks of 100 ms): the navigation starts only after the
/// network has been quiet for longer than the computer tool's settle time, as when a loaded
/// machine starves the page.
pub const SLOW_SUBMIT_HTML: &str = r#"<!doctype html><html><head><title>Log in</title><style>
body { margin: 0; font: 16px sans-serif; background: #fff; }
#go { position: absolute; left: 100px; top: 200px; width: 100px; height: 30px; }
</style></head><body>
<form action="/dashboard" method="get">
<input type="hidden" name="user" value="slow">
<button id="go" type="submit">Log in</button>
</form>
<script>
document.getElementById('go').addEventListener('click', () => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { const end = performance.now() + 100; while (performance.now() < end) {} };
  for (let i = 0; i < 8; i++) channel.port2.postMessage(null);
});
</script></body></html>"#;

/// The page the login form leads to: a green banner greeting the user.
pub const DASHBOARD_HTML: &str = r#"<!doctype html><html><head><title>Dashboard</title><style>
body { margin: 0; font: 16px sans-serif; }
#banner { position: absolute; left: 0; top: 0; width: 100%; height: 300px; background: #0a0; color: #fff; }
</style></head><body><div id="banner"><h1 id="welcome">Dashboard</h1></div>
<script>
const user = new URLSearchParams(location.search).get('user');
document.getElementById('welcome').textContent = 'Welcome, ' + user;
</script></body></html>"#;

/// Three text fields at x 50..350 (y 50, 100, 150; 30 high), a red 200x200 target at
/// (400, 50) that logs mouse events, a keydown log, and a 3000 px tall body to scroll.
pub const INPUT_HTML: &str = r#"<!doctype html><html><head><style>
body { margin: 0; height: 3000px; font: 16px sans-serif; }
input { position: absolute; left: 50px; width: 300px; height: 30px; box-sizing: border-box; }
#a { top: 50px; } #b { top: 100px; } #c { top: 150px; }
#target { position: absolute; left: 400px; top: 50px; width: 200px; height: 200px; background: #c00; }
</style></head><body>
<input id="a" value="hello world"><input id="b"><input id="c">
<div id="target"></div>
<script>
window.events = [];
const target = document.getElementById('target');
for (const type of ['click', 'dblclick', 'contextmenu', 'mousedown', 'mouseup', 'auxclick']) {
  target.addEventListener(type, (e) => {
    if (type === 'contextmenu') e.preventDefault();
    events.push({type, x: e.clientX, y: e.clientY, button: e.button, detail: e.detail,
                 ctrl: e.ctrlKey, shift: e.shiftKey});
  });
}
document.addEventListener('keydown', (e) => events.push({type: 'keydown', key: e.key, code: e.code}));
</script></body></html>"#;

/// A red 100x100 square at the top-left of a white page 3000 px tall.
pub const SQUARE_HTML: &str = r#"<!doctype html><html><head><style>
body { margin: 0; background: #fff; height: 3000px; }
#square { position: absolute; left: 0; top: 0; width: 100px; height: 100px; background: #f00; }
</style></head><body><div id="square"></div><a id="link" href="/x" style="position:absolute;left:10px;top:200px">A link</a></body></html>"#;

/// A 1280x800 viewport of 160 cells of different colours, each labelled with its number:
/// no two places of the screen look alike.
pub const CELLS_HTML: &str = r#"<!doctype html><html><head><style>
body { margin: 0; font: 14px sans-serif; display: grid; grid-template-columns: repeat(16, 80px); }
div { height: 80px; }
</style></head><body><script>
for (let i = 0; i < 160; i++) {
  const cell = document.createElement('div');
  cell.style.background = `hsl(${(i * 37) % 360}, 70%, ${35 + (i % 5) * 10}%)`;
  cell.textContent = `cell ${i}`;
  document.body.appendChild(cell);
}
</script></body></html>"#;

/// Serves every test page: `/login`, `/dashboard`, `/input`, `/square`, `/cells`.
pub fn serve_pages() -> retrace_test_support::html_server::HtmlServer {
    retrace_test_support::html_server::serve_html(&[
        ("/login", LOGIN_HTML),
        ("/dashboard", DASHBOARD_HTML),
        ("/input", INPUT_HTML),
        ("/square", SQUARE_HTML),
        ("/cells", CELLS_HTML),
        ("/slow-submit", SLOW_SUBMIT_HTML),
    ])
}

/// Launches the default Chromium (the headless shell when installed) at `width`x`height`.
pub async fn launch(width: u32, height: u32) -> ChromiumBrowser {
    launch_executable(
        &retrace_drive::chromium::default_executable(),
        width,
        height,
    )
    .await
}

/// Launches `executable` at `width`x`height`.
pub async fn launch_executable(executable: &Path, width: u32, height: u32) -> ChromiumBrowser {
    retrace_test_support::chromium::started(&ChromiumConfig {
        executable: executable.to_path_buf(),
        width,
        height,
        ..ChromiumConfig::default()
    })
    .await
}

/// A browser at 1280x800 with one page open at `url`.
pub async fn page_at(url: &str) -> (ChromiumBrowser, Arc<ChromiumPage>) {
    page_of_executable_at(&retrace_drive::chromium::default_executable(), url).await
}

/// `executable` at 1280x800 with one page open at `url`.
pub async fn page_of_executable_at(
    executable: &Path,
    url: &str,
) -> (ChromiumBrowser, Arc<ChromiumPage>) {
    let browser = launch_executable(executable, 1280, 800).await;
    let page = Arc::new(browser.open_page().await.unwrap());
    page.navigate(url).await.unwrap();
    (browser, page)
}

/// Polls a JavaScript expression until it returns `true` (30 s at most: CI machines are
/// loaded). Errors while polling (a navigation replacing the document) count as "not yet".
pub async fn wait_for_js(page: &ChromiumPage, expression: &str) {
    let started = std::time::Instant::now();
    loop {
        let answer = page.evaluate(expression).await;
        if matches!(&answer, Ok(value) if *value == serde_json::json!(true)) {
            return;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "`{expression}` never became true (last answer: {answer:?})"
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}
