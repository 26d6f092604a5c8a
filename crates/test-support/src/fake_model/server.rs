//! The scripted HTTP server both fakes share: axum on 127.0.0.1:0, one POST route, a
//! script popped per request, every request recorded.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::post;
use serde_json::Value;

use super::ScriptStep;
use super::compat::Refusal;
use super::script::StepAction;

/// A request the fake received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The request path (`/v1/messages`).
    pub path: String,
    /// Headers, names lowercased (a repeated header keeps its last value).
    pub headers: BTreeMap<String, String>,
    /// The body exactly as received.
    pub raw: Bytes,
    /// The body as JSON, parsed on first access (see [`RecordedRequest::body`]).
    parsed: OnceLock<Value>,
    /// When the request arrived.
    pub at: Instant,
}

impl RecordedRequest {
    /// A request as the fake records it: the body is kept as bytes and parsed only when a
    /// test looks at it, so the fake answers without building a JSON tree of a
    /// multi-megabyte history (time a real server spends is not the client's overhead).
    pub fn new(path: String, headers: BTreeMap<String, String>, raw: Bytes, at: Instant) -> Self {
        Self {
            path,
            headers,
            raw,
            parsed: OnceLock::new(),
            at,
        }
    }

    /// The body as JSON; a body that is not JSON is given as a JSON string.
    pub fn body(&self) -> &Value {
        self.parsed.get_or_init(|| {
            serde_json::from_slice(&self.raw)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.raw).into_owned()))
        })
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The base64 data of every image in the body, in order: Anthropic image blocks
    /// (`source.data`), OpenAI `image_url` data URLs (the part after `base64,`) and the
    /// Responses API's `input_image` and `computer_screenshot` data URLs.
    pub fn images(&self) -> Vec<String> {
        let mut found = Vec::new();
        collect_images(self.body(), &mut found);
        found
    }

    /// Whether any object anywhere in the body has a field called `name`
    /// (`visual_representation` must never reach a model).
    pub fn has_field(&self, name: &str) -> bool {
        has_field(self.body(), name)
    }
}

fn collect_images(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            match object.get("type").and_then(Value::as_str) {
                Some("image") => {
                    if let Some(data) = value.pointer("/source/data").and_then(Value::as_str) {
                        found.push(data.to_owned());
                    }
                }
                Some("image_url") => {
                    let url = value.pointer("/image_url/url").and_then(Value::as_str);
                    if let Some((_, data)) = url.and_then(|url| url.split_once("base64,")) {
                        found.push(data.to_owned());
                    }
                }
                // The Responses API's images: `input_image` parts and the screenshots of
                // `computer_call_output` items, each with a `data:` URL in `image_url`.
                Some("input_image" | "computer_screenshot") => {
                    let url = value.get("image_url").and_then(Value::as_str);
                    if let Some((_, data)) = url.and_then(|url| url.split_once("base64,")) {
                        found.push(data.to_owned());
                    }
                }
                _ => {}
            }
            object
                .values()
                .for_each(|child| collect_images(child, found));
        }
        Value::Array(items) => items.iter().for_each(|child| collect_images(child, found)),
        _ => {}
    }
}

fn has_field(value: &Value, name: &str) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key(name) || object.values().any(|child| has_field(child, name))
        }
        Value::Array(items) => items.iter().any(|child| has_field(child, name)),
        _ => false,
    }
}

/// How a protocol admits a request and renders a step.
pub(crate) trait Render: Send + Sync + 'static {
    /// The route (`/v1/messages`).
    const PATH: &'static str;
    /// The response header carrying the request id (`request-id`).
    const REQUEST_ID_HEADER: &'static str;
    /// What the reply needs from the request (its `model`...), or the refusal the real API
    /// would give it ([`super::compat`]).
    fn admit(headers: &BTreeMap<String, String>, body: &[u8]) -> Result<Value, Refusal>;
    /// The JSON body of an assistant turn, given what [`Render::admit`] read.
    fn reply(request: &Value, action: &StepAction, index: usize) -> Value;
    /// The JSON body of an API error.
    fn error(refusal: &Refusal, request_id: &str) -> Value;
}

struct Shared {
    script: Mutex<VecDeque<ScriptStep>>,
    requests: Mutex<Vec<RecordedRequest>>,
    steps_total: Mutex<usize>,
    /// When set, usage is computed from the request's cache breakpoints (Anthropic).
    prompt_cache: Option<super::prompt_cache::PromptCache>,
}

/// The key under which an admitted request's computed usage reaches [`Render::reply`].
pub(crate) const COMPUTED_USAGE: &str = "computed_usage";

/// The largest request body accepted: the Messages API's own limit (32 MB). axum's default
/// (2 MB) would refuse a history with ten screenshots that the real API takes.
const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;

/// A running scripted server; stopped when dropped.
pub(crate) struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl ScriptedServer {
    pub(crate) async fn start<R: Render>(script: Vec<ScriptStep>) -> Self {
        Self::start_with::<R>(script, false).await
    }

    /// [`ScriptedServer::start`], computing usage from prompt-cache breakpoints when
    /// `prompt_cache`.
    pub(crate) async fn start_with<R: Render>(script: Vec<ScriptStep>, prompt_cache: bool) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("fake model server: cannot bind 127.0.0.1:0: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("fake model server: no local address: {e}"));
        let shared = Arc::new(Shared {
            steps_total: Mutex::new(script.len()),
            script: Mutex::new(script.into()),
            requests: Mutex::new(Vec::new()),
            prompt_cache: prompt_cache.then(super::prompt_cache::PromptCache::default),
        });
        let app = Router::new()
            .route(R::PATH, post(handle::<R>))
            .layer(axum::extract::DefaultBodyLimit::max(MAX_REQUEST_BYTES))
            .with_state(Arc::clone(&shared));
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                panic!("fake model server stopped: {e}");
            }
        });
        Self { addr, shared, task }
    }

    pub(crate) fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    pub(crate) fn push(&self, step: ScriptStep) {
        lock(&self.shared.script).push_back(step);
        *lock(&self.shared.steps_total) += 1;
    }

    pub(crate) fn remaining(&self) -> usize {
        lock(&self.shared.script).len()
    }

    pub(crate) fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Locks a mutex, ignoring poisoning (a panicking test thread must not hide the requests).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn handle<R: Render>(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let headers: BTreeMap<String, String> = headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let admitted = R::admit(&headers, &body);
    let computed = match &shared.prompt_cache {
        Some(cache) if admitted.is_ok() => cache.usage(&body).map(Some),
        _ => Ok(None),
    };
    let recorded = RecordedRequest::new(R::PATH.into(), headers, body, Instant::now());
    let index = {
        let mut requests = lock(&shared.requests);
        requests.push(recorded);
        requests.len()
    };
    let request_id = request_id(index);
    let mut reply_headers = vec![(R::REQUEST_ID_HEADER, request_id.clone())];
    // A refused request leaves the script as it was: the step is for the request the real
    // API would have answered.
    let request_head = match admitted.and_then(|head| computed.map(|usage| (head, usage))) {
        Ok((mut head, usage)) => {
            if let (Some(usage), Some(object)) = (usage, head.as_object_mut()) {
                object.insert(COMPUTED_USAGE.into(), usage);
            }
            head
        }
        Err(refusal) => {
            let body = R::error(&refusal, &request_id).to_string();
            return json_response(refusal.status, &reply_headers, body);
        }
    };
    let Some(step) = lock(&shared.script).pop_front() else {
        let message = format!(
            "fake model server: script exhausted: request {index} arrived but the script had only {} step(s)",
            *lock(&shared.steps_total)
        );
        let refusal = Refusal {
            status: 500,
            error_type: "api_error",
            message,
            param: None,
            code: None,
        };
        let body = R::error(&refusal, &request_id).to_string();
        return json_response(500, &reply_headers, body);
    };
    if !step.delay.is_zero() {
        tokio::time::sleep(step.delay).await;
    }
    match &step.action {
        reply @ StepAction::Reply { .. } if step.cut => {
            let body = R::reply(&request_head, reply, index).to_string();
            cut_response(&reply_headers, body)
        }
        reply @ StepAction::Reply { .. } => {
            let body = R::reply(&request_head, reply, index).to_string();
            json_response(200, &reply_headers, body)
        }
        StepAction::Error {
            status,
            retry_after,
            should_retry,
            error_type,
            message,
        } => {
            if let Some(value) = retry_after {
                reply_headers.push(("retry-after", value.clone()));
            }
            if let Some(retry) = should_retry {
                reply_headers.push(("x-should-retry", retry.to_string()));
            }
            let refusal = Refusal {
                status: *status,
                error_type: "api_error",
                message: message.clone(),
                param: None,
                code: None,
            };
            let mut body = R::error(&refusal, &request_id);
            // The scripted type may be any string, not only the static ones a Refusal holds.
            if let Some(error) = body.get_mut("error").and_then(Value::as_object_mut) {
                error.insert("type".into(), Value::String(error_type.clone()));
            }
            json_response(*status, &reply_headers, body.to_string())
        }
        StepAction::Raw { status, body } => json_response(*status, &reply_headers, body.clone()),
    }
}

/// The request id a fake gives its `n`th request (1-based), sent in the `request-id`
/// (Anthropic) or `x-request-id` (OpenAI) header of every answer, and in Anthropic's error
/// bodies: `req_fake_<n>`.
pub fn request_id(n: usize) -> String {
    format!("req_fake_{n}")
}

/// HTTP 200 announcing `body`'s whole length, whose body stream ends in an error after half
/// of it: hyper then closes the connection mid-answer.
fn cut_response(headers: &[(&str, String)], body: String) -> Response {
    let length = body.len();
    let half = Bytes::from(body.into_bytes()).slice(..length / 2);
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(half),
        Err(std::io::Error::other("fake model server: cut mid-answer")),
    ];
    let mut response = json_response(200, headers, String::new());
    *response.body_mut() = axum::body::Body::from_stream(futures::stream::iter(chunks));
    if let Ok(value) = axum::http::HeaderValue::from_str(&length.to_string()) {
        response
            .headers_mut()
            .insert(axum::http::header::CONTENT_LENGTH, value);
    }
    response
}

fn json_response(status: u16, headers: &[(&str, String)], body: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut map = HeaderMap::new();
    map.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(name.as_bytes()),
            axum::http::HeaderValue::from_str(value),
        ) {
            map.insert(name, value);
        }
    }
    (status, map, body).into_response()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_images_and_fields_at_any_depth() {
        let body = json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}, "visual_representation": "ff"}]},
            {"role": "user", "content": [{"type": "tool_result", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA="}}]}]},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,BBB="}}]},
            {"type": "computer_call_output", "call_id": "c",
             "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,CCC="}},
            {"role": "user", "content": [{"type": "input_image", "detail": "auto",
                                          "image_url": "data:image/png;base64,DDD="}]},
        ]});
        let request = RecordedRequest::new(
            "/v1/messages".into(),
            BTreeMap::new(),
            Bytes::from(body.to_string()),
            Instant::now(),
        );
        assert_eq!(request.images(), ["AAA=", "BBB=", "CCC=", "DDD="]);
        assert!(request.has_field("visual_representation"));
        assert!(!request.has_field("cache_control"));
    }

    #[test]
    fn keeps_non_json_bodies() {
        let request = RecordedRequest::new(
            "/v1/messages".into(),
            BTreeMap::new(),
            Bytes::from_static(b"not json"),
            Instant::now(),
        );
        assert_eq!(request.body(), &json!("not json"));
    }
}
