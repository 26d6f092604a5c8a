//! [`Endpoint`]: where a remote browser is, parsed from what a user types, and the URLs derived
//! from it. Also [`redact`], which every error and log line about an endpoint goes through.
//!
//! Forms:
//! - `http(s)://host:port[/path][?query]`: a DevTools HTTP endpoint; the websocket URL comes
//!   from `GET <path>/json/version`;
//! - `ws(s)://host:port/path[?query]`: a DevTools websocket, used as given;
//! - `selenium+http(s)://hub:port[/path][?query]`: a Selenium Grid 4 hub; a WebDriver session
//!   is created and CDP reached through its `se:cdp` capability.
//!
//! The user's view of the network wins: a browser reports its websocket URL with its own host
//! (`127.0.0.1`, a container name), so the scheme, host and port of a reported URL are
//! replaced by the endpoint's, and the endpoint's query string (a `?token=`) rides on every
//! URL derived from it. Credentials in the URL (`https://user:pass@host`) become an
//! `Authorization: Basic` header and leave the URL.

use std::fmt;

use base64::Engine;
use reqwest::header::HeaderValue;
use url::Url;

use crate::error::DriveError;

/// Query parameters whose values are secrets when their lowercased name contains one of these.
const SECRET_PARAMETERS: [&str; 7] = [
    "token",
    "key",
    "secret",
    "pass",
    "auth",
    "sig",
    "credential",
];

/// What an endpoint points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointKind {
    /// A DevTools HTTP endpoint (`http(s)://`), discovered through `/json/version`.
    Discovery,
    /// A DevTools websocket (`ws(s)://`), used as given.
    DevTools,
    /// A Selenium Grid 4 hub (`selenium+http(s)://`).
    Selenium,
}

/// A remote browser's address, parsed and validated; its `Display` hides credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    kind: EndpointKind,
    /// Without user info (moved to `credentials`); `http`, `https`, `ws` or `wss`.
    url: Url,
    credentials: Option<HeaderValue>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("kind", &self.kind)
            .field("url", &redact(self.url.as_str()))
            .field("credentials", &self.credentials.as_ref().map(|_| "***"))
            .finish()
    }
}

impl fmt::Display for Endpoint {
    /// The endpoint as typed, with secret query values and credentials replaced by `***`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.kind == EndpointKind::Selenium {
            "selenium+"
        } else {
            ""
        };
        write!(f, "{prefix}{}", redact(self.url.as_str()))
    }
}

impl std::str::FromStr for Endpoint {
    type Err = DriveError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

impl Endpoint {
    /// Parses `http(s)://`, `ws(s)://` or `selenium+http(s)://` endpoints; errors name the
    /// (redacted) text and say what was expected.
    pub fn parse(text: &str) -> Result<Self, DriveError> {
        let text = text.trim();
        let invalid = |why: String| {
            DriveError::InvalidInput(format!("connect endpoint `{}`: {why}", redact(text)))
        };
        let (selenium, rest) = match text.get(..9) {
            Some(prefix) if prefix.eq_ignore_ascii_case("selenium+") => (true, &text[9..]),
            _ => (false, text),
        };
        let mut url = Url::parse(rest).map_err(|e| invalid(format!("not a URL ({e})")))?;
        let kind = match (selenium, url.scheme()) {
            (false, "http" | "https") => EndpointKind::Discovery,
            (false, "ws" | "wss") => EndpointKind::DevTools,
            (true, "http" | "https") => EndpointKind::Selenium,
            (true, scheme) => {
                return Err(invalid(format!(
                    "a Selenium hub is reached over http or https, not `{scheme}` \
                     (expected selenium+http://hub:4444 or selenium+https://...)"
                )));
            }
            (false, scheme) => {
                return Err(invalid(format!(
                    "unsupported scheme `{scheme}` (expected http, https, ws, wss, \
                     selenium+http or selenium+https)"
                )));
            }
        };
        if url.host_str().is_none_or(str::is_empty) {
            return Err(invalid("no host".to_owned()));
        }
        if url.fragment().is_some() {
            url.set_fragment(None);
        }
        let credentials = if url.username().is_empty() && url.password().is_none() {
            None
        } else {
            let user = percent_decode(url.username());
            let password = percent_decode(url.password().unwrap_or_default());
            let encoded =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            let mut value = HeaderValue::from_str(&format!("Basic {encoded}"))
                .map_err(|_| invalid("the user name or password cannot be sent".to_owned()))?;
            value.set_sensitive(true);
            // Cannot fail on a URL with a host.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            Some(value)
        };
        Ok(Self {
            kind,
            url,
            credentials,
        })
    }

    /// What the endpoint points at.
    pub fn kind(&self) -> EndpointKind {
        self.kind
    }

    /// Whether the endpoint is reached over TLS (`https`, `wss`).
    pub fn is_tls(&self) -> bool {
        matches!(self.url.scheme(), "https" | "wss")
    }

    /// The URL without the `selenium+` prefix or credentials (it may hold a token: never log
    /// it; use `Display`).
    pub(crate) fn url(&self) -> &Url {
        &self.url
    }

    /// `Authorization: Basic` from credentials in the URL, if there were any.
    pub(crate) fn credentials(&self) -> Option<&HeaderValue> {
        self.credentials.as_ref()
    }

    /// What concurrent sessions are counted by: scheme, host, port and path; no query, no
    /// credentials (two tokens for one farm are one farm).
    pub(crate) fn limit_key(&self) -> String {
        let mut url = self.url.clone();
        url.set_query(None);
        url.to_string()
    }

    /// The endpoint's path without a trailing `/` (nor a trailing `/json/version` given by
    /// a user who pasted the whole discovery URL).
    fn base_path(&self) -> &str {
        let path = self.url.path().trim_end_matches('/');
        path.strip_suffix("/json/version").unwrap_or(path)
    }

    /// The endpoint's URL with `suffix` (starting with `/`) appended to its path; the query
    /// string stays.
    pub(crate) fn join(&self, suffix: &str) -> Url {
        let mut url = self.url.clone();
        let path = format!("{}{suffix}", self.base_path());
        url.set_path(&path);
        url
    }

    /// A websocket URL the remote side reported (`webSocketDebuggerUrl`, `se:cdp`), moved onto
    /// this endpoint: our scheme (`ws` for http, `wss` for https), host and port, the
    /// reported path, and the reported query plus ours (ours wins on a name both have). With
    /// `under_our_path` the path goes under the endpoint's path, as behind a proxy that
    /// serves the browser at `/some/prefix` (Chromium does not know the prefix; a Grid does).
    pub(crate) fn rebase(&self, reported: &str, under_our_path: bool) -> Result<Url, DriveError> {
        let reported_url = Url::parse(reported).map_err(|e| DriveError::Launch {
            backend: "chromium".to_owned(),
            detail: format!(
                "{self} reported a websocket URL that does not parse (`{}`: {e})",
                redact(reported)
            ),
        })?;
        let mut url = self.url.clone();
        let scheme = if self.is_tls() { "wss" } else { "ws" };
        // Both are special schemes, so switching between them cannot fail.
        let _ = url.set_scheme(scheme);
        let prefix = self.base_path();
        let path = reported_url.path();
        if under_our_path && !prefix.is_empty() && !path.starts_with(prefix) {
            url.set_path(&format!("{prefix}{path}"));
        } else {
            url.set_path(path);
        }
        let ours: Vec<(String, String)> = self.url.query_pairs().into_owned().collect();
        let mut pairs: Vec<(String, String)> = reported_url
            .query_pairs()
            .into_owned()
            .filter(|(name, _)| !ours.iter().any(|(own, _)| own == name))
            .collect();
        pairs.extend(ours);
        if pairs.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
        Ok(url)
    }
}

/// `text` (a URL, or what was meant to be one) with credentials and the values of secret
/// query parameters (`token`, `apikey`, `secret`, `password`, `auth`, `sig`...) replaced by
/// `***`. Works on text that does not parse, too.
pub fn redact(text: &str) -> String {
    let (before_fragment, fragment) = match text.split_once('#') {
        Some((before, after)) => (before, Some(after)),
        None => (text, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (before_fragment, None),
    };
    let mut out = redact_user_info(base);
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if is_secret_parameter(name) => format!("{name}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if fragment.is_some() {
        out.push_str("#***");
    }
    out
}

fn is_secret_parameter(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_PARAMETERS.iter().any(|secret| name.contains(secret))
}

/// `scheme://user:pass@host/...` → `scheme://user:***@host/...`.
fn redact_user_info(base: &str) -> String {
    let Some((scheme, rest)) = base.split_once("://") else {
        return base.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info
                .split_once(':')
                .map_or(user_info, |(user, _)| user);
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => base.to_owned(),
    }
}

/// Decodes `%XX` escapes (user names and passwords in URLs are percent-encoded).
fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "endpoint_tests.rs"]
mod tests;
