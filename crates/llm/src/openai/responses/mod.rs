//! OpenAI's Responses API (`POST /v1/responses`) with OpenAI's own computer tool, for the
//! models that take it (the catalogue's [`ComputerToolForm::ResponsesComputer`]):
//! [`actions`] (OpenAI's computer actions to and from retrace's `computer` input),
//! [`wire`] (request and answer JSON, no I/O) and [`ResponsesClient`].
//!
//! A `computer_call` may wait on pending safety checks. The client acknowledges them on
//! the call's output only when its config allows it (`--allow-safety-checks`); otherwise
//! the answer is an error, [`VlmError::SafetyCheck`], naming the check.
//!
//! [`ComputerToolForm::ResponsesComputer`]: crate::catalog::ComputerToolForm::ResponsesComputer
//! [`VlmError::SafetyCheck`]: crate::VlmError::SafetyCheck

pub mod actions;
mod client;
pub mod wire;

pub use client::ResponsesClient;
pub use client::ResponsesConfig;
