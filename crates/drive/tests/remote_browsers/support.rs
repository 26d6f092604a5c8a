//! Shared setup: a local Chromium standing for the remote browser, nginx proxies in front of
//! it, a test CA, a page to drive, and a CDP observer on a connection of its own.

use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::cdp::browser_protocol::target::GetBrowserContextsParams;
use futures::StreamExt;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::process::BrowserProcess;
use retrace_drive::chromium::remote::ConnectEvent;
use retrace_drive::chromium::remote::ConnectObserver;
use retrace_drive::chromium::remote::RetryPolicy;
use retrace_test_support::html_server::HtmlServer;
use retrace_test_support::nginx::Nginx;

/// The token the auth proxy wants (as `Authorization: Bearer` or `?token=`).
pub const TOKEN: &str = retrace_test_support::nginx::PROXY_TOKEN;

/// A red 200x100 button at (50, 50) that turns green when clicked, and a cookie reader.
pub const BUTTON_HTML: &str = r#"<!doctype html><html><head><style>
body { margin: 0; background: #fff; }
#go { position: absolute; left: 50px; top: 50px; width: 200px; height: 100px; background: #f00; }
#go.done { background: #0f0; }
</style></head><body><div id="go" onclick="this.className='done'"></div></body></html>"#;

/// Serves [`BUTTON_HTML`] at `/button`.
pub fn serve_pages() -> HtmlServer {
    retrace_test_support::html_server::serve_html(&[("/button", BUTTON_HTML)])
}

/// A local headless Chromium with `--remote-debugging-port=0`, standing for a remote browser
/// (killed with every helper process when dropped).
pub async fn local_browser() -> BrowserProcess {
    BrowserProcess::spawn(
        Path::new("/usr/bin/chromium"),
        1280,
        800,
        Duration::from_secs(30),
    )
    .await
    .unwrap()
}

/// `127.0.0.1:PORT` of a browser's DevTools endpoint.
pub fn devtools_authority(browser: &BrowserProcess) -> String {
    retrace_test_support::nginx::devtools_authority(browser.ws_url())
}

fn proxy_to(browser: &BrowserProcess) -> String {
    retrace_test_support::nginx::proxy_location(&devtools_authority(browser))
}

/// nginx refusing (401) every request without `Authorization: Bearer TOKEN` or `?token=TOKEN`,
/// and proxying the rest (HTTP and websocket) to `browser`.
pub async fn auth_proxy(browser: &BrowserProcess) -> Nginx {
    Nginx::auth_proxy(&devtools_authority(browser)).await
}

/// A test CA and a server certificate it signed for `localhost` and `127.0.0.1`, as PEM files.
pub struct TestCertificates {
    /// Holds the files.
    pub dir: tempfile::TempDir,
}

impl TestCertificates {
    pub fn generate() -> Self {
        use rcgen::BasicConstraints;
        use rcgen::CertificateParams;
        use rcgen::DnType;
        use rcgen::IsCa;
        use rcgen::Issuer;
        use rcgen::KeyPair;
        use rcgen::KeyUsagePurpose;

        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "retrace test CA");
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);

        let server_key = KeyPair::generate().unwrap();
        let mut server_params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        server_params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        let server_cert = server_params.signed_by(&server_key, &issuer).unwrap();

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca_cert.pem()).unwrap();
        std::fs::write(dir.path().join("server.pem"), server_cert.pem()).unwrap();
        std::fs::write(dir.path().join("server.key"), server_key.serialize_pem()).unwrap();
        Self { dir }
    }

    /// The CA certificate (what a client must trust).
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
}

/// nginx serving TLS with the test server certificate, requiring the bearer token, and
/// proxying to `browser`.
pub async fn tls_proxy(browser: &BrowserProcess, certificates: &TestCertificates) -> Nginx {
    let proxy = proxy_to(browser);
    let dir = certificates.dir.path().display().to_string();
    Nginx::start(move |port| {
        format!(
            r#"server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {dir}/server.pem;
        ssl_certificate_key {dir}/server.key;
        location / {{
            if ($http_authorization != "Bearer {TOKEN}") {{ return 401 "missing or wrong credentials\n"; }}
            {proxy}
        }}
    }}"#
        )
    })
    .await
}

/// A retry policy quick enough for tests: retries still happen, the waits are short.
pub fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 5,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(100),
        max_total: Duration::from_secs(60),
    }
}

/// An observer that keeps every event, and the events kept.
pub fn recording_observer() -> (ConnectObserver, Arc<Mutex<Vec<ConnectEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let observer = ConnectObserver::new(move |event| sink.lock().unwrap().push(event.clone()));
    (observer, events)
}

/// Opens a page on `browser`, loads the button page, checks a screenshot, clicks the button
/// and waits until the page shows it was clicked. Returns the page.
pub async fn drive(
    browser: &ChromiumBrowser,
    server: &HtmlServer,
) -> retrace_drive::chromium::ChromiumPage {
    let page = browser.open_page().await.unwrap();
    page.navigate(&server.url("/button")).await.unwrap();
    let shot = page.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (640, 480));
    let image = retrace_vision::decode_png(&shot.png).unwrap();
    let red = pixel(&image, 150, 100);
    assert_eq!(red, [255, 0, 0], "the button before the click");
    page.click(Point { x: 150, y: 100 }, MouseButton::Left, 1)
        .await
        .unwrap();
    poll_until("the click turned the button green", || async {
        let shot = page.screenshot().await.unwrap();
        let image = retrace_vision::decode_png(&shot.png).unwrap();
        pixel(&image, 150, 100) == [0, 255, 0]
    })
    .await;
    page
}

fn pixel(image: &retrace_vision::Image, x: u32, y: u32) -> [u8; 3] {
    let rgba = image.to_rgba();
    let at = ((y * image.width() + x) * 4) as usize;
    [rgba[at], rgba[at + 1], rgba[at + 2]]
}

/// Polls `check` until it holds, for at most 60 s (then fails naming `what`).
pub async fn poll_until<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    loop {
        if check().await {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A CDP connection of its own to a browser, to look at it from outside a run.
pub struct Observer {
    browser: chromiumoxide::Browser,
    handler: tokio::task::JoinHandle<()>,
}

impl Observer {
    pub async fn connect(ws_url: &str) -> Self {
        let (browser, mut handler) = chromiumoxide::Browser::connect(ws_url).await.unwrap();
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        Self { browser, handler }
    }

    /// The ids of the browser's contexts other than the default one.
    pub async fn contexts(&self) -> Vec<String> {
        let answer = self
            .browser
            .execute(GetBrowserContextsParams::default())
            .await
            .unwrap();
        answer
            .result
            .browser_context_ids
            .iter()
            .map(|id| AsRef::<str>::as_ref(id).to_owned())
            .collect()
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        self.handler.abort();
    }
}
