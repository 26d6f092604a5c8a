//! [`Parameters`]: the `{{name}}` values a session was given, and which of them are secret.
//!
//! Values reach the model and the page but never a file or a log: every sink scrubs the
//! secret ones ([`Parameters::secrets`]), and recordings write placeholders for all of them.

use retrace_cache::ParameterValues;
use retrace_report::Secrets;

/// Named values, with the names marked secret by the user.
#[derive(Clone, Default)]
pub struct Parameters {
    pairs: Vec<(String, String)>,
    marked_secret: Vec<String>,
}

impl std::fmt::Debug for Parameters {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Parameters")
            .field("names", &self.names().collect::<Vec<_>>())
            .field("marked_secret", &self.marked_secret)
            .finish()
    }
}

impl Parameters {
    /// Values from `NAME=VALUE` pairs (a later pair wins), and names marked secret.
    pub fn new(pairs: Vec<(String, String)>, marked_secret: Vec<String>) -> Self {
        let mut unique: Vec<(String, String)> = Vec::with_capacity(pairs.len());
        for (name, value) in pairs {
            unique.retain(|(known, _)| *known != name);
            unique.push((name, value));
        }
        Self {
            pairs: unique,
            marked_secret,
        }
    }

    /// The names with a value.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|(name, _)| name.as_str())
    }

    /// Each name and value, in the order given (last value of a repeated name).
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// Whether `name` is secret: named like one (password, token, key...) or marked.
    pub fn is_secret(&self, name: &str) -> bool {
        retrace_report::secrets::is_secret_name(name)
            || self.marked_secret.iter().any(|marked| marked == name)
    }

    /// The values, for substitution.
    pub fn values(&self) -> ParameterValues {
        self.pairs.iter().cloned().collect()
    }

    /// The values no sink may write: those of parameters named like secrets or marked so.
    pub fn secrets(&self) -> Secrets {
        Secrets::of_parameters(
            self.pairs
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
            &self.marked_secret,
        )
    }

    /// The names a trajectory needs that have no value here, sorted.
    pub fn missing_for(&self, trajectory: &[retrace_protocol::ToolUseBlock]) -> Vec<String> {
        retrace_cache::params::parameters_in_trajectory(trajectory)
            .into_iter()
            .filter(|name| !self.pairs.iter().any(|(given, _)| given == name))
            .collect()
    }
}

/// Parses `NAME=VALUE` (the value may be empty or hold `=`).
pub fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!(
            "`{}` is not NAME=VALUE",
            text.split('=').next().unwrap_or("")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_the_secret_named_or_marked_values_only() {
        let parameters = Parameters::new(
            vec![
                ("username".into(), "demo".into()),
                ("password".into(), "first".into()),
                ("password".into(), "hunter2".into()),
                ("code".into(), "1234".into()),
            ],
            vec!["code".into()],
        );
        let secrets = parameters.secrets();
        assert_eq!(
            secrets.scrub("demo hunter2 first 1234"),
            "demo <redacted> first <redacted>"
        );
        assert_eq!(
            parameters.names().collect::<Vec<_>>(),
            ["username", "password", "code"]
        );
        assert!(!format!("{parameters:?}").contains("hunter2"));
    }

    #[test]
    fn pairs_parse_and_bad_ones_are_named() {
        assert_eq!(parse_pair("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert_eq!(parse_pair("a="), Ok(("a".into(), String::new())));
        assert!(parse_pair("=x").unwrap_err().contains("NAME=VALUE"));
        assert!(parse_pair("novalue").unwrap_err().contains("`novalue`"));
    }
}
