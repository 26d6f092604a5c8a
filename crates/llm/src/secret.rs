//! [`ApiKey`]: an API key that never shows itself.
//!
//! Keys reach the client as values (the caller reads `ANTHROPIC_API_KEY` or a config file);
//! the library never reads the environment itself. The wrapper's `Debug` and `Display` print
//! `***`, so a key cannot leak through a `{:?}` of a config, a client or an error.

use std::fmt;

/// An API key. `Debug` and `Display` print `***`; only [`ApiKey::expose`] gives the value.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one place that puts it in a request header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Replaces every occurrence of the key in `text` with `***` (a server may echo a
    /// header back in an error body; such text is scrubbed before it lands in an error).
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_owned();
        }
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_key() {
        let key = ApiKey::new("sk-ant-secret-1234");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(format!("{key}"), "***");
        assert_eq!(key.expose(), "sk-ant-secret-1234");
        assert_eq!(
            key.redact("bad key sk-ant-secret-1234!"),
            "bad key ***!".to_owned()
        );
    }
}
