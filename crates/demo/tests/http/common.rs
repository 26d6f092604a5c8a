//! Shared helpers: the app on a free port, a client that shows redirects, signing in.

use reqwest::StatusCode;
use reqwest::header;
use retrace_demo::DemoConfig;
use retrace_demo::DemoServer;

/// The app with `config` on 127.0.0.1 and a free port.
pub async fn serve(config: DemoConfig) -> DemoServer {
    retrace_demo::start(config, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// A client that shows redirects instead of following them, so tests see each hop.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Posts the login form at `/login{query}`.
pub async fn login(
    server: &DemoServer,
    query: &str,
    username: &str,
    password: &str,
) -> reqwest::Response {
    client()
        .post(format!("{}login{query}", server.url()))
        .form(&[("username", username), ("password", password)])
        .send()
        .await
        .unwrap()
}

/// The delay (ms) the server reports having applied.
pub fn latency_header(response: &reqwest::Response) -> u64 {
    response.headers()[retrace_demo::LATENCY_HEADER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Signs in with the demo account and returns the `Cookie` header value to send.
pub async fn session_cookie(server: &DemoServer) -> String {
    let response = login(
        server,
        "",
        retrace_demo::DEMO_USERNAME,
        retrace_demo::DEMO_PASSWORD,
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let set_cookie = response.headers()[header::SET_COOKIE].to_str().unwrap();
    set_cookie.split(';').next().unwrap().to_owned()
}

/// `GET {base}{path}`, with a `Cookie` header when given.
pub async fn get(server: &DemoServer, path: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut request = client().get(format!("{}{path}", server.url()));
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request.send().await.unwrap()
}

/// The body of a `GET` that must answer 200.
pub async fn text(server: &DemoServer, path: &str, cookie: Option<&str>) -> String {
    let response = get(server, path, cookie).await;
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    response.text().await.unwrap()
}
