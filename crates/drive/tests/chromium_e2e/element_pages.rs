//! Purpose-made pages for the element and readiness tests. Every control sits at a fixed
//! place (absolute positions), so a test clicks or asks about a known point.

/// One control of each kind the element tests ask about; the comment beside each gives its
/// box (left, top, width, height).
pub const CONTROLS_HTML: &str = r##"<!doctype html><html><head><title>Controls</title><style>
body { margin: 0; font: 16px sans-serif; }
.at { position: absolute; box-sizing: border-box; margin: 0; }
button.at, input.at, select.at { height: 30px; }
#overlay { left: 0; top: 460px; width: 300px; height: 50px; background: rgba(255, 255, 255, 0.5); }
</style></head><body>
<button class="at" id="save" style="left:20px;top:20px;width:100px">Save</button><!-- 20,20,100,30 -->
<button class="at" id="close" aria-label="Close dialog" style="left:140px;top:20px;width:40px">&times;</button>
<button class="at" id="gear" title="Settings" style="left:200px;top:20px;width:40px"><svg width="16" height="16"><rect width="16" height="16" fill="#555"/></svg></button>
<a class="at" id="next" href="/next" style="left:20px;top:70px">Next   page</a>
<button class="at" id="bold" aria-pressed="false" style="left:320px;top:20px;width:80px"
  onclick="this.setAttribute('aria-pressed', String(this.getAttribute('aria-pressed') !== 'true'))">Bold</button>
<details class="at" id="more" style="left:320px;top:70px;width:200px"><summary id="more-summary">More options</summary><p>Hidden until opened</p></details>
<label class="at" for="email" style="left:20px;top:120px;width:70px">Email</label>
<input class="at" id="email" style="left:100px;top:115px;width:200px">
<label class="at" id="wrap" style="left:20px;top:165px"><span>Full name</span> <input name="fullname" value="Ann Lee" style="width:150px"></label>
<label class="at" style="left:20px;top:220px"><input type="checkbox" id="remember"> Remember me</label>
<label class="at" style="left:320px;top:220px"><input type="checkbox" id="stuck" onclick="return false"> Stuck</label>
<label class="at" for="country" style="left:20px;top:270px">Country</label>
<select class="at" id="sizes" size="3" aria-label="Size" style="left:560px;top:20px;width:120px;height:70px"><option>Small</option><option selected>Medium</option><option>Large</option></select>
<select class="at" id="country" style="left:100px;top:265px;width:150px"><option value="fr">France</option><option value="de" selected>Germany</option></select>
<div class="at" id="terms" role="checkbox" aria-checked="false" tabindex="0" style="left:20px;top:320px;width:150px;height:30px"
  onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">Accept terms</div>
<button class="at" id="buy" style="left:20px;top:370px;width:120px"><span id="buy-label">Buy now</span></button>
<x-panel class="at" id="panel" style="left:20px;top:420px;width:200px;height:30px"></x-panel>
<button class="at" id="delete" style="left:20px;top:470px;width:100px">Delete</button>
<div class="at" id="overlay"></div>
<button class="at" id="archive" disabled style="left:20px;top:520px;width:100px">Archive</button>
<iframe class="at" id="frame" src="/inner" style="left:400px;top:300px;width:300px;height:150px;border:5px solid #000;padding:0"></iframe>
<script>
customElements.define('x-panel', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({mode: 'open'}).innerHTML =
      '<button style="width:200px;height:30px;margin:0">Shadow action</button>';
  }
});
</script></body></html>"##;

/// The page inside the controls page's iframe: one button at (10, 10), 100x30.
pub const INNER_HTML: &str = r#"<!doctype html><html><body style="margin:0">
<button id="inner-ok" style="position:absolute;left:10px;top:10px;width:100px;height:30px;margin:0">Pay</button>
</body></html>"#;

/// A toolbar button at (20, 20), 100x30, whose label the two versions of a page differ by.
fn toolbar(label: &str) -> String {
    format!(
        r#"<!doctype html><html><head><style>body {{ margin: 0; font: 16px monospace; }}
button {{ position: absolute; left: 20px; top: 20px; width: 100px; height: 30px; }}</style></head>
<body><button id="state">{label}</button></body></html>"#
    )
}

/// The page as recorded: the button says "Active".
pub fn active_html() -> String {
    toolbar("Active")
}

/// The same page with the button renamed "Open" (same width).
pub fn open_html() -> String {
    toolbar("Open")
}

/// An "Export" button at (20, 20), another named "Import", and two more named "Export" that
/// cannot be seen (one not displayed, one of zero size); `moveExport()` moves the visible one
/// 300 px right and down.
pub const MOVING_HTML: &str = r#"<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; }
button { position: absolute; width: 100px; height: 30px; }
</style></head><body>
<button id="export" style="left:20px;top:20px">Export</button>
<button id="import" style="left:140px;top:20px">Import</button>
<button id="ghost" aria-label="Export" style="left:260px;top:20px;display:none">Export</button>
<button id="collapsed" style="left:380px;top:20px;width:0;height:0;padding:0;border:0;overflow:hidden">Export</button>
<script>
function moveExport() {
  const button = document.getElementById('export');
  button.style.left = '320px';
  button.style.top = '320px';
}
</script></body></html>"#;

/// A page that breaks the globals a careless page-side script would use: hit testing,
/// styles, boxes, timers, clocks and observers all lie in the page's own world.
pub const HOSTILE_HTML: &str = r#"<!doctype html><html><body style="margin:0">
<button id="real" style="position:absolute;left:20px;top:20px;width:100px;height:30px">Real</button>
<script>
Document.prototype.elementFromPoint = () => null;
Document.prototype.elementsFromPoint = () => [];
document.elementFromPoint = () => null;
window.getComputedStyle = () => ({display: 'none', visibility: 'hidden'});
Element.prototype.getBoundingClientRect = () => ({x: 0, y: 0, width: 0, height: 0, left: 0, top: 0, right: 0, bottom: 0});
Element.prototype.checkVisibility = () => false;
window.MutationObserver = function () { this.observe = () => {}; };
performance.now = () => 0;
Document.prototype.getAnimations = () => [];
window.setTimeout = () => 0;
window.requestAnimationFrame = () => 0;
</script></body></html>"#;

/// A page that loads a script after its `load` event (`/late.js`, which the test holds back);
/// the script sets `window.lateArrived`.
pub const LATE_SCRIPT_HTML: &str = r#"<!doctype html><html><body>
<p id="status">unscripted</p>
<script>
window.addEventListener('load', () => {
  const script = document.createElement('script');
  script.src = '/late.js';
  document.head.append(script);
});
</script></body></html>"#;

/// The late script.
pub const LATE_JS: &str =
    "window.lateArrived = true; document.getElementById('status').textContent = 'scripted';";

/// A static page: nothing moves, nothing loads.
pub const STILL_HTML: &str = r#"<!doctype html><html><body><h1>Nothing happens here</h1>
<a id="slow" href="/slow-page">A slow page</a></body></html>"#;

/// A page whose controls start navigations that leave it (a form to `/slow-page`) or stay
/// in it: a link to a fragment of itself, a form whose handler cancels it, a link the page
/// cancels and one it routes itself (its `navigate` listener, registered after retrace's
/// own).
pub const LEAVING_HTML: &str = r##"<!doctype html><html><body><h1 id="section">Leaving</h1>
<form action="/slow-page"><button id="send">Send</button></form>
<form action="/slow-page" onsubmit="return false"><button id="handled">Handled</button></form>
<form method="dialog"><button id="dialog">Close</button></form>
<a id="fragment" href="#section">Here</a>
<a id="cancelled" href="/cancelled">Cancelled</a>
<a id="routed" href="/routed">Routed</a>
<script>
navigation.addEventListener('navigate', (event) => {
  const path = new URL(event.destination.url).pathname;
  if (path === '/cancelled') event.preventDefault();
  if (path === '/routed') event.intercept({handler: async () => {}});
});
</script></body></html>"##;

/// A page whose policy forbids submitting forms (`form-action 'none'`): its form announces a
/// navigation the browser never begins.
pub const FORBIDDEN_FORM_HTML: &str = r#"<!doctype html><html><head>
<meta http-equiv="Content-Security-Policy" content="form-action 'none'"></head><body>
<form action="/slow-page"><button id="send">Send</button></form></body></html>"#;

/// A page with a spinner turning forever (a CSS animation); `stopSpinning()` removes it.
pub const SPINNER_HTML: &str = r#"<!doctype html><html><head><style>
@keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }
#spinner { width: 40px; height: 40px; background: #08f; animation: spin 1s linear infinite; }
</style></head><body><div id="spinner"></div>
<script>function stopSpinning() { document.getElementById('spinner').style.animation = 'none'; }</script>
</body></html>"#;

/// Serves the element pages: `/controls`, `/inner`, `/active`, `/open`, `/moving`,
/// `/hostile`.
pub fn serve_element_pages() -> retrace_test_support::html_server::HtmlServer {
    let active = active_html();
    let open = open_html();
    retrace_test_support::html_server::serve_html(&[
        ("/controls", CONTROLS_HTML),
        ("/inner", INNER_HTML),
        ("/active", &active),
        ("/open", &open),
        ("/moving", MOVING_HTML),
        ("/hostile", HOSTILE_HTML),
    ])
}
