//! Which typed text is a secret, and the parameter it becomes.
//!
//! Text typed into a password field, or into a field whose accessible name or selector says
//! password, token, key, secret, pin... ([`retrace_protocol::secrets`]) is a secret: the recording holds `{{name}}` in its place,
//! named from the field's label (else its id or name), and the value is never written. A
//! value the person named with `--param NAME=VALUE` is that parameter instead.

use retrace_protocol::dialog::Dialog;
use retrace_protocol::element::ElementInfo;

use super::step::DemonstratedStep;
use crate::recorder::is_parameter_name;

/// Whether text typed into `field` is a secret: a password field, or one whose label or
/// selector holds a secret word ([`retrace_protocol::secrets`], the list reports redact by).
pub fn is_secret_field(field: &ElementInfo) -> bool {
    if field.input_type.as_deref() == Some("password") {
        return true;
    }
    [&field.name, &field.selector].iter().any(|text| {
        retrace_protocol::secrets::words(text)
            .any(|word| retrace_protocol::secrets::holds_secret_word(&word))
    })
}

/// The lower-case words of `text` (letters and digits).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
}

/// The parameter name for `field`: its label's words joined by `_` (`API token` ->
/// `api_token`), else its selector's (`#pw` -> `pw`), else `secret`.
pub fn parameter_name(field: &ElementInfo) -> String {
    [&field.name, &field.selector]
        .iter()
        .map(|text| words(text).collect::<Vec<_>>().join("_"))
        .find(|name| is_parameter_name(name))
        .unwrap_or_else(|| "secret".to_owned())
}

/// The (name, value) pairs the recording turns into placeholders: the person's `presets`
/// first, then one per secret typed (a value already named by a preset keeps that name; a
/// name taken by another value gets `_2`, `_3`...).
pub fn parameters(
    steps: &[DemonstratedStep],
    presets: &[(String, String)],
) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = presets.to_vec();
    for step in steps {
        let (Some(text), Some(field)) = (step.typed(), step.element.as_ref()) else {
            continue;
        };
        if text.is_empty() || !is_secret_field(field) || pairs.iter().any(|(_, v)| v == text) {
            continue;
        }
        let base = parameter_name(field);
        let mut name = base.clone();
        let mut n = 1;
        while pairs.iter().any(|(taken, _)| *taken == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        pairs.push((name, text.to_owned()));
    }
    pairs
}

/// Secrets shorter than this are not scrubbed from lines: they cannot be told from ordinary
/// text (a one-letter value would mangle every word holding the letter).
const SHORTEST_SCRUBBED: usize = 4;

/// `text` with every secret value in `pairs` replaced by its placeholder (longest first): for
/// lines about steps, where an element's accessible name can hold a field's value (a label
/// around a password field).
pub fn scrub(text: &str, pairs: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(_, value)| value.chars().count() >= SHORTEST_SCRUBBED)
        .collect();
    sorted.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
    sorted.iter().fold(text.to_owned(), |text, (name, value)| {
        text.replace(value.as_str(), &format!("{{{{{name}}}}}"))
    })
}

/// `dialog` as a file may keep it: a prompt's answer that is a parameter's value becomes its
/// placeholder (replay fills it in again), and values inside the answer or the page's message
/// are scrubbed as lines are ([`scrub`]).
pub fn scrub_dialog(dialog: &Dialog, pairs: &[(String, String)]) -> Dialog {
    let prompt_text = dialog.prompt_text.as_ref().map(|text| {
        match pairs
            .iter()
            .find(|(_, value)| !value.is_empty() && value == text)
        {
            Some((name, _)) => format!("{{{{{name}}}}}"),
            None => scrub(text, pairs),
        }
    });
    Dialog {
        message: scrub(&dialog.message, pairs),
        prompt_text,
        ..dialog.clone()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn field(name: &str, selector: &str, input_type: &str) -> ElementInfo {
        serde_json::from_value(serde_json::json!({
            "role": "textbox", "name": name, "text": "", "tag": "input", "selector": selector,
            "box": {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}, "disabled": false,
            "focused": true, "editable": true, "receives_events": true, "input_type": input_type
        }))
        .unwrap()
    }

    #[test]
    fn password_fields_and_secret_names_are_secret() {
        assert!(is_secret_field(&field("Password", "#password", "password")));
        assert!(is_secret_field(&field("Your PIN", "#pw", "password")));
        assert!(is_secret_field(&field("API token", "#t", "text")));
        assert!(is_secret_field(&field("Licence key", "#k", "text")));
        assert!(is_secret_field(&field(
            "",
            "input[name=\"client_secret\"]",
            "text"
        )));
        assert!(!is_secret_field(&field("Username", "#username", "text")));
        assert!(!is_secret_field(&field(
            "Keyboard layout",
            "#layout",
            "text"
        )));
    }

    #[test]
    fn a_prompt_answered_with_a_parameter_value_keeps_its_placeholder() {
        let pairs = vec![("pin".to_owned(), "42".to_owned())];
        let prompt = |text: &str| Dialog {
            kind: "prompt".into(),
            message: "Your PIN?".into(),
            accepted: true,
            prompt_text: Some(text.into()),
        };
        // Even a value too short to scrub from lines, when it is the whole answer.
        assert_eq!(
            scrub_dialog(&prompt("42"), &pairs).prompt_text.as_deref(),
            Some("{{pin}}")
        );
        let pairs = vec![("password".to_owned(), "hunter22".to_owned())];
        let scrubbed = scrub_dialog(&prompt("it is hunter22"), &pairs);
        assert_eq!(scrubbed.prompt_text.as_deref(), Some("it is {{password}}"));
        assert_eq!(scrub_dialog(&prompt("other"), &pairs), prompt("other"));
    }

    #[test]
    fn scrubbing_replaces_values_longest_first() {
        let pairs = vec![
            ("pin".to_owned(), "1234".to_owned()),
            ("password".to_owned(), "s3cret-1234".to_owned()),
            ("initial".to_owned(), "r".to_owned()),
        ];
        assert_eq!(
            scrub("on generic 'Password s3cret-1234 1234'", &pairs),
            "on generic 'Password {{password}} {{pin}}'"
        );
    }

    #[test]
    fn names_come_from_the_label_then_the_selector() {
        assert_eq!(
            parameter_name(&field("Password", "#password", "password")),
            "password"
        );
        assert_eq!(
            parameter_name(&field("API token", "#t", "text")),
            "api_token"
        );
        assert_eq!(parameter_name(&field("", "#pw", "password")), "pw");
        assert_eq!(parameter_name(&field("", "", "password")), "secret");
    }
}
