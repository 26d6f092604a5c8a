//! The options a login page or dashboard is rendered with: the app-wide [`DemoConfig`]
//! overridden by the request's query parameters (`layout`, `fault`, `mark_sent`,
//! `script_delay_ms`), and the query that carries the parameters a request gave on to the next
//! page (the form's action, the login redirect, the sign-out link, a late script's URL).

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use serde::Deserialize;

use crate::config::DemoConfig;
use crate::config::Layout;
use crate::faults::Fault;
use crate::faults::Faults;

/// The longest `script_delay_ms` a request may ask for (10 minutes).
pub const MAX_SCRIPT_DELAY_MS: u64 = 600_000;

/// The query parameters the login page and the dashboard understand.
#[derive(Debug, Default, Deserialize)]
pub struct AppQuery {
    layout: Option<String>,
    fault: Option<String>,
    mark_sent: Option<String>,
    script_delay_ms: Option<String>,
}

/// What one page is rendered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageOptions {
    /// The layout.
    pub layout: Layout,
    /// The faults the dashboard's script plays.
    pub faults: Faults,
    /// Whether the New invoice modal has the "Mark as sent" checkbox.
    pub mark_sent: bool,
    /// `Some(ms)`: the page's script arrives late, `ms` after the `load` event's request.
    pub script_delay_ms: Option<u64>,
    /// `""` or `?name=value&...`: the parameters the request gave, to carry on.
    pub carry: String,
    /// Whether drafts are shared on the server ([`DemoConfig::recent_drafts`], app-wide only).
    pub recent_drafts: bool,
}

/// A query parameter with a value the app does not understand; answers 400 naming both.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad query parameter `{parameter}`: {message}")]
pub struct QueryError {
    /// The parameter's name.
    pub parameter: &'static str,
    /// What is wrong with its value (quoting it).
    pub message: String,
}

impl IntoResponse for QueryError {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, self.to_string()).into_response()
    }
}

/// Parses a yes/no query value: `1`, `true`, `on`, `yes` or `0`, `false`, `off`, `no`.
pub fn parse_switch(parameter: &'static str, text: &str) -> Result<bool, QueryError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(QueryError {
            parameter,
            message: format!("{text:?} is not a switch; expected `1` or `0`"),
        }),
    }
}

/// Parses a script delay: milliseconds up to [`MAX_SCRIPT_DELAY_MS`], or `off` for inline
/// scripts.
fn parse_script_delay(text: &str) -> Result<Option<u64>, QueryError> {
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("off") || trimmed.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    match trimmed.parse::<u64>() {
        Ok(ms) if ms <= MAX_SCRIPT_DELAY_MS => Ok(Some(ms)),
        _ => Err(QueryError {
            parameter: "script_delay_ms",
            message: format!(
                "{text:?} is not a delay; expected whole milliseconds up to \
                 {MAX_SCRIPT_DELAY_MS}, or `off` for inline scripts"
            ),
        }),
    }
}

/// Resolves a request's options: each parameter given wins over `config` and is carried on.
pub fn resolve(config: &DemoConfig, query: &AppQuery) -> Result<PageOptions, QueryError> {
    let mut carried: Vec<String> = Vec::new();
    let layout = match query.layout.as_deref() {
        None => config.layout,
        Some(text) => {
            let layout = text.parse::<Layout>().map_err(|error| QueryError {
                parameter: "layout",
                message: error.to_string(),
            })?;
            carried.push(format!("layout={}", layout.as_str()));
            layout
        }
    };
    let faults = match query.fault.as_deref() {
        None => config.faults.clone(),
        Some(text) => {
            let faults = text.parse::<Faults>().map_err(|error| QueryError {
                parameter: "fault",
                message: error.to_string(),
            })?;
            carried.push(format!("fault={faults}"));
            faults
        }
    };
    let mark_sent = match query.mark_sent.as_deref() {
        None => config.mark_sent,
        Some(text) => {
            let on = parse_switch("mark_sent", text)?;
            carried.push(format!("mark_sent={}", u8::from(on)));
            on
        }
    };
    let script_delay_ms = match query.script_delay_ms.as_deref() {
        None => config.script_delay_ms,
        Some(text) => {
            let delay = parse_script_delay(text)?;
            match delay {
                Some(ms) => carried.push(format!("script_delay_ms={ms}")),
                None => carried.push("script_delay_ms=off".to_owned()),
            }
            delay
        }
    };
    let carry = if carried.is_empty() {
        String::new()
    } else {
        format!("?{}", carried.join("&"))
    };
    Ok(PageOptions {
        layout,
        mark_sent: mark_sent || faults.contains(Fault::MarkSentIgnoresClicks),
        faults,
        script_delay_ms,
        carry,
        recent_drafts: config.recent_drafts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> AppQuery {
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        };
        AppQuery {
            layout: get("layout"),
            fault: get("fault"),
            mark_sent: get("mark_sent"),
            script_delay_ms: get("script_delay_ms"),
        }
    }

    #[test]
    fn no_parameters_take_the_config_and_carry_nothing() {
        let config = DemoConfig {
            layout: Layout::V2,
            script_delay_ms: Some(250),
            ..DemoConfig::default()
        };
        let options = resolve(&config, &query(&[])).unwrap();
        assert_eq!(options.layout, Layout::V2);
        assert_eq!(options.script_delay_ms, Some(250));
        assert_eq!(options.carry, "");
    }

    #[test]
    fn given_parameters_win_and_are_carried_in_a_fixed_order() {
        let config = DemoConfig {
            script_delay_ms: Some(250),
            ..DemoConfig::default()
        };
        let options = resolve(
            &config,
            &query(&[
                ("script_delay_ms", "off"),
                ("fault", "amount-rewritten,save-ignores-clicks"),
                ("layout", "V2"),
            ]),
        )
        .unwrap();
        assert_eq!(options.script_delay_ms, None);
        assert_eq!(
            options.carry,
            "?layout=v2&fault=save-ignores-clicks,amount-rewritten&script_delay_ms=off"
        );
        let only_layout = resolve(&config, &query(&[("layout", "v2")])).unwrap();
        assert_eq!(only_layout.carry, "?layout=v2");
    }

    #[test]
    fn the_checkbox_fault_turns_the_checkbox_on() {
        let options = resolve(
            &DemoConfig::default(),
            &query(&[("fault", "mark-sent-ignores-clicks")]),
        )
        .unwrap();
        assert!(options.mark_sent);
        let off = resolve(&DemoConfig::default(), &query(&[("mark_sent", "off")])).unwrap();
        assert!(!off.mark_sent);
        assert_eq!(off.carry, "?mark_sent=0");
    }

    #[test]
    fn bad_values_name_the_parameter_and_the_value() {
        for (name, value) in [
            ("layout", "v9"),
            ("fault", "slow"),
            ("mark_sent", "maybe"),
            ("script_delay_ms", "soon"),
            ("script_delay_ms", "600001"),
        ] {
            let error = resolve(&DemoConfig::default(), &query(&[(name, value)])).unwrap_err();
            assert_eq!(error.parameter, name);
            let message = error.to_string();
            assert!(message.contains(&format!("\"{value}\"")), "{message}");
            assert!(message.contains(&format!("`{name}`")), "{message}");
        }
    }
}
