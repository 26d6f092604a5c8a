//! How the web executor waits and what it allows.

/// How the executor waits and what it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebExecutorConfig {
    /// URL schemes `OPEN_PAGE` may open (compared without case). `javascript:` is refused
    /// even when listed.
    pub allowed_url_schemes: Vec<String>,
    /// How long `CLICK_ELEMENT`, `INPUT_TEXT` and `SAVE_VARIABLE` wait for their element, in ms.
    pub element_timeout_ms: u64,
    /// How often they look, in ms.
    pub poll_ms: u64,
    /// How long the network must be quiet to count as idle, in ms.
    pub network_idle_ms: u64,
    /// The longest wait for network idle after `OPEN_PAGE`, a click or typing, in ms. Not an
    /// error when it passes (pages that poll never go quiet); the result says so.
    pub network_idle_timeout_ms: u64,
    /// The most characters `GET_DOM` returns; elements past it are dropped and `truncated`
    /// is set.
    pub max_dom_chars: usize,
}

impl Default for WebExecutorConfig {
    fn default() -> Self {
        Self {
            allowed_url_schemes: vec!["http".to_owned(), "https".to_owned()],
            element_timeout_ms: 10_000,
            poll_ms: 50,
            network_idle_ms: 250,
            network_idle_timeout_ms: 10_000,
            max_dom_chars: 20_000,
        }
    }
}
