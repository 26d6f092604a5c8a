//! Extra HTTP headers for a remote browser (`Authorization: Bearer ...`, an API key), parsed
//! from `Name: value` lines as a user writes them in a flag or an environment variable. They
//! go on every request to the endpoint: discovery, WebDriver commands and the websocket
//! upgrade. Values are secrets: they are marked sensitive and never appear in an error.

use reqwest::header::HeaderMap;
use reqwest::header::HeaderName;
use reqwest::header::HeaderValue;

use crate::error::DriveError;

/// Headers the connection sets itself; a user header cannot replace them without breaking
/// the websocket upgrade or the HTTP exchange.
const RESERVED: [&str; 9] = [
    "host",
    "connection",
    "upgrade",
    "content-length",
    "transfer-encoding",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "sec-websocket-accept",
];

/// Parses one `Name: value` header. `what` names the line in errors ("connect header 2");
/// the value never appears in them.
pub fn parse_header(line: &str, what: &str) -> Result<(HeaderName, HeaderValue), DriveError> {
    let invalid = |why: String| DriveError::InvalidInput(format!("{what}: {why}"));
    let Some((name, value)) = line.split_once(':') else {
        return Err(invalid(
            "expected `Name: value` (no `:` in it; the text is not shown, it may be a secret)"
                .to_owned(),
        ));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid(
            "expected `Name: value` (no name before `:`)".to_owned(),
        ));
    }
    let header_name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
        invalid(format!(
            "`{name}` is not a valid header name (letters, digits and `-`, no spaces)"
        ))
    })?;
    if RESERVED.contains(&header_name.as_str()) {
        return Err(invalid(format!(
            "`{name}` is set by the connection itself and cannot be given"
        )));
    }
    let mut value = HeaderValue::from_str(value.trim()).map_err(|_| {
        invalid(format!(
            "the value of `{name}` has characters a header cannot carry (control characters \
             or non-ASCII text)"
        ))
    })?;
    value.set_sensitive(true);
    Ok((header_name, value))
}

/// Parses `Name: value` lines (one header a line; blank lines are skipped), as in
/// `RETRACE_CONNECT_HEADERS`. Errors name the line number.
pub fn parse_header_lines(text: &str) -> Result<HeaderMap, DriveError> {
    let mut headers = HeaderMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (name, value) = parse_header(line, &format!("connect header line {}", index + 1))?;
        headers.append(name, value);
    }
    Ok(headers)
}

/// The headers for logs and `Debug`: names with `***` for every value.
pub(crate) fn describe(headers: &HeaderMap) -> String {
    let names: Vec<String> = headers
        .iter()
        .map(|(name, _)| format!("{name}: ***"))
        .collect();
    format!("[{}]", names.join(", "))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn parses_name_value_lines_and_marks_values_sensitive() {
        let headers =
            parse_header_lines("Authorization: Bearer s3cret\n\n  X-Api-Key :k1 \nX-Api-Key: k2\n")
                .unwrap();
        assert_eq!(headers["authorization"], "Bearer s3cret");
        let keys: Vec<&str> = headers
            .get_all("x-api-key")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(keys, ["k1", "k2"]);
        assert!(headers["authorization"].is_sensitive());
        assert!(!format!("{headers:?}").contains("s3cret"));
        assert_eq!(
            describe(&headers),
            "[authorization: ***, x-api-key: ***, x-api-key: ***]"
        );
        // A value may hold colons.
        let (_, value) = parse_header("X-Url: http://a:b", "connect header 1").unwrap();
        assert_eq!(value, "http://a:b");
    }

    #[test]
    fn errors_name_the_line_and_never_the_value() {
        let error = parse_header_lines("Authorization: ok\nBearer s3cret").unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("connect header line 2: expected `Name: value`"),
            "{message}"
        );
        assert!(!message.contains("s3cret"), "{message}");

        let message = parse_header(": s3cret", "connect header 1")
            .unwrap_err()
            .to_string();
        assert!(message.contains("no name before"), "{message}");
        let message = parse_header("Auth orization: s3cret", "connect header 1")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("`Auth orization` is not a valid header name"),
            "{message}"
        );
        assert!(!message.contains("s3cret"), "{message}");
        let message = parse_header("X-Key: s3cret\u{7}", "connect header 1")
            .unwrap_err()
            .to_string();
        assert!(message.contains("value of `X-Key`"), "{message}");
        assert!(!message.contains("s3cret"), "{message}");
        let message = parse_header("Upgrade: h2c", "connect header 3")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("set by the connection itself"),
            "{message}"
        );
    }
}
