//! [`Secrets`]: the values that must never reach a log, a report or the terminal, and their
//! removal from what does.
//!
//! A value is secret when its parameter's name says so (a word of it is `password`, `token`,
//! `secret`, `key`, ...: [`is_secret_name`]) or when the user marked it secret. Only those
//! values are redacted: a user name such as `demo` stays readable, so a path that happens to
//! contain it (`retrace-evidence/demo-20261125/`) is not mangled. Typed text itself never
//! reaches an event (a step is summarised as "type text of 8 characters").
//!
//! JSON is scrubbed value by value, inside strings only, so a log line stays valid JSON
//! whatever the secret is (a secret `1` never turns `"step":1` into `"step":<redacted>`).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

pub use retrace_protocol::secrets::is_secret_name;

/// The secret values of one run, longest first (a secret containing another is replaced
/// whole). Cheap to clone.
#[derive(Clone, Default)]
pub struct Secrets(Arc<[String]>);

impl std::fmt::Debug for Secrets {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "Secrets({} redacted)", self.0.len())
    }
}

impl Secrets {
    /// The text put where a secret was.
    pub const MARK: &'static str = "<redacted>";

    /// Secrets from their values (empty values are ignored: they cannot be found).
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
            .collect();
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.dedup();
        Self(values.into())
    }

    /// The secrets among named parameter values: those whose name [`is_secret_name`] or is
    /// in `marked`.
    pub fn of_parameters<'a>(
        parameters: impl IntoIterator<Item = (&'a str, &'a str)>,
        marked: &[String],
    ) -> Self {
        Self::new(
            parameters
                .into_iter()
                .filter(|(name, _)| is_secret_name(name) || marked.iter().any(|m| m == name))
                .map(|(_, value)| value),
        )
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every secret replaced by [`Secrets::MARK`].
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut text = Cow::Borrowed(text);
        for secret in self.0.iter() {
            if text.contains(secret.as_str()) {
                text = Cow::Owned(text.replace(secret.as_str(), Self::MARK));
            }
        }
        text
    }

    /// `value` with every secret replaced inside its strings (object keys included), so the
    /// result is the same JSON shape with no secret in it.
    pub fn scrub_json(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                if let Cow::Owned(scrubbed) = self.scrub(text) {
                    *text = scrubbed;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub_json(item)),
            Value::Object(map) => {
                let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                for (key, mut item) in entries {
                    self.scrub_json(&mut item);
                    map.insert(self.scrub(&key).into_owned(), item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_secret_parameters_are_redacted() {
        let secrets = Secrets::of_parameters(
            [
                ("username", "demo"),
                ("password", "hunter2"),
                ("third", "1"),
            ],
            &["third".to_owned()],
        );
        assert_eq!(
            secrets.scrub("demo typed hunter2 at 1"),
            "demo typed <redacted> at <redacted>"
        );
        let not_marked = Secrets::of_parameters([("third", "1")], &[]);
        assert!(not_marked.is_empty());
    }

    /// A short secret never breaks the JSON it is scrubbed from.
    #[test]
    fn json_stays_json_whatever_the_secret() {
        let secrets = Secrets::new(["1", "pa\"ss"]);
        let mut value =
            serde_json::json!({"step": 1, "message": "typed pa\"ss on step 1", "1": true});
        secrets.scrub_json(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"step": 1, "message": "typed <redacted> on step <redacted>", "<redacted>": true})
        );
        assert!(matches!(secrets.scrub("nothing secret"), Cow::Borrowed(_)));
        assert_eq!(format!("{secrets:?}"), "Secrets(2 redacted)");
    }
}
