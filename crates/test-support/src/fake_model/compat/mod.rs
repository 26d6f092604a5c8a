//! What the real APIs refuse, so the fake servers refuse it too.
//!
//! Before a fake plays its next script step it *admits* the request: a request the real API
//! would answer with a 400 gets that 400 (in the API's own error shape) and the step stays
//! in the script for the next request, as a client that corrects itself and retries would
//! find it.
//!
//! The rules are data: one literal per rule, each citing where it comes from (a file of the
//! pinned SDK wheels, `anthropic` 2.14.0 and `openai` 3.57.0 from PyPI, the documentation, or
//! a public report of the API's exact error). They are written here on purpose, apart from
//! retrace's own model catalogue, which they must not import: a test passes only when
//! retrace's catalogue and these independent literals agree.
//!
//! Model ids the rules do not list (`claude-test`, `fake-model`, open models served by vLLM)
//! keep the permissive behaviour the fakes always had: any tool form, any field, any
//! `temperature`. Only the checks that hold for every model apply to them (the
//! `anthropic-version` header, a beta tool form's beta header, the computer toolset's
//! `toolset_name` in the history, Anthropic's image size limits).

pub(crate) mod anthropic;
pub(crate) mod images;
pub(crate) mod openai;
pub(crate) mod openai_responses;

/// A request the real API refuses: the status and what its error body says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// HTTP status (400).
    pub status: u16,
    /// The API's error type (`invalid_request_error`).
    pub error_type: &'static str,
    /// The error message.
    pub message: String,
    /// OpenAI only: the parameter at fault (`max_tokens`).
    pub param: Option<&'static str>,
    /// OpenAI only: the error code (`unsupported_parameter`).
    pub code: Option<&'static str>,
}

impl Refusal {
    /// A 400 `invalid_request_error` with this message.
    pub(crate) fn invalid(message: String) -> Self {
        Self {
            status: 400,
            error_type: "invalid_request_error",
            message,
            param: None,
            code: None,
        }
    }
}

#[cfg(test)]
mod tests;
