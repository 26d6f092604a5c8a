//! Scripted fake model servers speaking the real protocols on 127.0.0.1.
//!
//! [`FakeAnthropic`] (`POST /v1/messages`), [`FakeOpenAi`] (`POST /v1/chat/completions`) and
//! [`FakeOpenAiResponses`] (`POST /v1/responses`, OpenAI's computer tool) play a script of
//! [`ScriptStep`]s, one per request: assistant turns (text, tool calls, a stop reason, usage)
//! or failures (429 with `retry-after`, 529, 5xx, 401, a slow answer, a
//! malformed body), with the real status codes, headers and body shapes. When the script runs
//! out they answer 500 with "script exhausted". Every request is recorded
//! ([`RecordedRequest`]: headers, JSON body, arrival time) for assertions.
//!
//! Before playing a step, a fake refuses what the real API refuses (`compat`): for the model
//! ids it knows, the computer tool form each takes, unknown fields, sampling settings the
//! newest models refuse, OpenAI's `max_tokens` on GPT-5 and later; for every model, a
//! missing `anthropic-version` header, a beta tool form without its beta header, a computer
//! toolset history without `toolset_name`. A refused request gets the API's 400 and leaves
//! the script untouched. Unknown model ids (`claude-test`, `fake-model`) are otherwise
//! served permissively. Every answer carries a request id ([`request_id`]).
//!
//! ```ignore
//! let fake = FakeAnthropic::start(vec![
//!     ScriptStep::rate_limited(1),
//!     ScriptStep::tool_use("computer", json!({"action": "screenshot"})),
//! ]).await;
//! let config = AnthropicConfig::new(ApiKey::new("test-key"), "claude-test").with_base_url(fake.base_url());
//! // ... run the client ...
//! assert_eq!(fake.requests().len(), 2);
//! ```

mod anthropic;
mod compat;
mod openai;
mod openai_responses;
mod prompt_cache;
mod script;
mod server;

pub use anthropic::FakeAnthropic;
pub use openai::FakeOpenAi;
pub use openai_responses::FakeOpenAiResponses;
pub use script::ScriptStep;
pub use script::http_date;
pub use server::RecordedRequest;
pub use server::request_id;
