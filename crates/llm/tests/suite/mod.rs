//! Test modules and the few helpers they share.

mod anthropic;
mod fake_replies;
mod forms;
mod openai;
mod qa;
mod responses;
mod retry;
#[cfg(feature = "e2e")] // the end-to-end tier: Python and the SDKs
mod sdk_check;
mod secrets;
mod ui_tars;

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use retrace_llm::ApiKey;
use retrace_llm::RetryObserver;
use retrace_llm::RetryPolicy;
use retrace_llm::VlmError;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::catalog::ComputerToolForm;

/// A fake key; the secrets tests check it never shows up in output.
pub const TEST_KEY: &str = "sk-ant-test-SECRET-0123456789";

/// A real 1280x800 Chromium screenshot from the shared vectors.
pub fn screenshot_png() -> Vec<u8> {
    let path = retrace_test_support::vectors_dir().join("images/screens/qemu_img_1280x800.png");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An Anthropic client for a fake server's base URL, for a model the catalogue does not know
/// (`claude-test`) sending the classic `computer_20250124` form.
pub fn anthropic_client(base_url: &str) -> AnthropicClient {
    AnthropicClient::new(
        AnthropicConfig::new(ApiKey::new(TEST_KEY), "claude-test")
            .with_base_url(base_url)
            .with_timeout(Duration::from_secs(10))
            .with_computer_tool(ComputerToolForm::Computer20250124),
    )
    .unwrap()
}

/// A policy with short backoff so tests of exhaustion stay quick.
pub fn quick_policy(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
        max_total: Duration::from_secs(30),
    }
}

/// Each wait a retrying provider reported: (attempt, delay, error kind).
pub type Waits = Arc<Mutex<Vec<(u32, Duration, &'static str)>>>;

/// An observer recording every reported wait.
pub fn recording_observer() -> (Arc<dyn RetryObserver>, Waits) {
    let waits: Waits = Arc::default();
    let sink = Arc::clone(&waits);
    let observer = move |attempt: u32, delay: Duration, error: &VlmError| {
        sink.lock().unwrap().push((attempt, delay, error.kind()));
    };
    (Arc::new(observer), waits)
}
