//! A signed-in browser context's state in Playwright's `storageState` format (`cookies[]`,
//! `origins[].localStorage[]`): read from a `--storage-state` file (every bad value named with
//! the file and its field), read back from the context a login flow ran in, and loaded into a
//! side's fresh page before it navigates.
//!
//! Cookies ignore ports, so a state taken on `127.0.0.1:8000` signs in on `127.0.0.1:9000`
//! as it is: a cookie whose domain is the side's host is set for the side's URL (host-only,
//! as the server set it), any other as written. Local storage belongs to an origin (scheme,
//! host and port): a side gets the entry of its own origin, else the one entry of its host
//! (port aside), so one file serves two sides that differ only by port.

use std::path::Path;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::network::CookieParam;
use chromiumoxide::cdp::browser_protocol::network::CookieSameSite;
use chromiumoxide::cdp::browser_protocol::network::SetCookiesParams;
use chromiumoxide::cdp::browser_protocol::network::TimeSinceEpoch;
use chromiumoxide::cdp::browser_protocol::page::AddScriptToEvaluateOnNewDocumentParams;
use chromiumoxide::cdp::browser_protocol::storage::GetCookiesParams;
use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumPage;
use serde::Deserialize;
use serde::Serialize;

use crate::spec::SpecError;

/// Cookies and local storage, as Playwright's `storageState()` writes them.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageState {
    /// Every cookie.
    #[serde(default)]
    pub cookies: Vec<StoredCookie>,
    /// Local storage by origin.
    #[serde(default)]
    pub origins: Vec<OriginStorage>,
}

/// Values are secrets (session ids, tokens): never shown.
impl std::fmt::Debug for StorageState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageState")
            .field("cookies", &self.cookies.len())
            .field("origins", &self.origins.len())
            .finish()
    }
}

/// One cookie (Playwright's field names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredCookie {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: String,
    /// The domain (`127.0.0.1`, `.example.com`).
    pub domain: String,
    /// The path (`/`).
    pub path: String,
    /// Seconds since the epoch; -1 for a session cookie.
    #[serde(default = "session_cookie")]
    pub expires: f64,
    /// Hidden from scripts.
    #[serde(default)]
    pub http_only: bool,
    /// Sent over https only.
    #[serde(default)]
    pub secure: bool,
    /// `Strict`, `Lax` or `None`.
    #[serde(default)]
    pub same_site: Option<SameSite>,
}

fn session_cookie() -> f64 {
    -1.0
}

/// A cookie's SameSite attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SameSite {
    /// `Strict`.
    Strict,
    /// `Lax`.
    Lax,
    /// `None`.
    None,
}

/// One origin's local storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginStorage {
    /// `http://127.0.0.1:8080`.
    pub origin: String,
    /// Its items.
    #[serde(default)]
    pub local_storage: Vec<StorageItem>,
}

/// One local storage item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StorageItem {
    /// The key.
    pub name: String,
    /// The value.
    pub value: String,
}

/// Reads a `--storage-state` file, naming the file and the field of any bad value.
pub fn load_storage_state(path: &Path) -> Result<StorageState, SpecError> {
    let in_file = |field: String, message: String| SpecError {
        file: Some(path.to_path_buf()),
        field,
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| in_file("-".to_owned(), format!("cannot read it: {e}")))?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let state: StorageState = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." { "-".to_owned() } else { field };
        in_file(field, e.into_inner().to_string())
    })?;
    for (index, cookie) in state.cookies.iter().enumerate() {
        for (name, value) in [("name", &cookie.name), ("domain", &cookie.domain)] {
            if value.trim().is_empty() {
                return Err(in_file(
                    format!("cookies[{index}].{name}"),
                    "is empty".into(),
                ));
            }
        }
        if !cookie.path.starts_with('/') {
            return Err(in_file(
                format!("cookies[{index}].path"),
                format!("`{}` is not a path (it must start with `/`)", cookie.path),
            ));
        }
    }
    for (index, origin) in state.origins.iter().enumerate() {
        if url::Url::parse(&origin.origin).is_err() {
            return Err(in_file(
                format!("origins[{index}].origin"),
                format!(
                    "`{}` is not an origin such as http://127.0.0.1:8080",
                    origin.origin
                ),
            ));
        }
    }
    Ok(state)
}

/// The host of `url` (`127.0.0.1`), if it has one.
fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url).ok()?.host_str().map(str::to_owned)
}

impl StorageState {
    /// The local storage a side at `base` gets: its origin's entry, else the one entry of its
    /// host (port aside).
    fn local_storage_for(&self, base: &str) -> Option<(String, &[StorageItem])> {
        let parsed = url::Url::parse(base).ok()?;
        let origin = parsed.origin().ascii_serialization();
        let host = parsed.host_str()?;
        let own = self.origins.iter().find(|o| o.origin == origin);
        let same_host = || {
            let mut of_host = self
                .origins
                .iter()
                .filter(|o| host_of(&o.origin).as_deref() == Some(host));
            match (of_host.next(), of_host.next()) {
                (Some(one), None) => Some(one),
                _ => None,
            }
        };
        let entry = own.or_else(same_host)?;
        Some((origin, entry.local_storage.as_slice()))
    }

    /// Loads the cookies and local storage into `page` (a fresh page of a side's own browser
    /// context) before it navigates to a page of the side at `base`.
    pub async fn load_into(&self, page: &ChromiumPage, base: &str) -> Result<(), String> {
        let parsed = url::Url::parse(base).map_err(|e| format!("`{base}` is not a URL: {e}"))?;
        let origin = parsed.origin().ascii_serialization();
        let cookies: Vec<CookieParam> = self
            .cookies
            .iter()
            .map(|cookie| cookie_param(cookie, &origin, parsed.host_str()))
            .collect();
        if !cookies.is_empty() {
            page.cdp_page()
                .execute(SetCookiesParams::new(cookies))
                .await
                .map_err(|e| format!("cannot set the cookies: {e}"))?;
        }
        if let Some((origin, items)) = self.local_storage_for(base)
            && !items.is_empty()
        {
            let pairs: Vec<(&str, &str)> = items
                .iter()
                .map(|i| (i.name.as_str(), i.value.as_str()))
                .collect();
            let script = format!(
                "(() => {{ if (location.origin !== {origin}) return; \
                 for (const [k, v] of {pairs}) {{ try {{ localStorage.setItem(k, v); }} \
                 catch (e) {{}} }} }})()",
                origin = serde_json::Value::String(origin),
                pairs = serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".into()),
            );
            page.cdp_page()
                .execute(AddScriptToEvaluateOnNewDocumentParams::new(script))
                .await
                .map_err(|e| format!("cannot load the local storage: {e}"))?;
        }
        Ok(())
    }

    /// The state of `run`'s browser context: its cookies, and the local storage of the origin
    /// of `url`, read in a new page of the run that opens `url` (the login's start page).
    pub async fn read_from(run: &ChromiumBrowser, url: &str) -> Result<Self, String> {
        let page = run
            .open_page()
            .await
            .map_err(|e| format!("cannot open a page to read the signed-in state: {e}"))?;
        let state = Self::read_on(run, &page, url).await;
        let _ = page.close().await;
        state
    }

    async fn read_on(
        run: &ChromiumBrowser,
        page: &ChromiumPage,
        url: &str,
    ) -> Result<Self, String> {
        let context = run
            .context_id()
            .ok_or("the login's browser context is gone")?;
        let params = GetCookiesParams::builder()
            .browser_context_id(BrowserContextId::new(context))
            .build();
        let cookies = run
            .cdp_browser()
            .execute(params)
            .await
            .map_err(|e| format!("cannot read the cookies: {e}"))?
            .result
            .cookies
            .into_iter()
            .map(|c| StoredCookie {
                name: c.name,
                value: c.value,
                domain: c.domain,
                path: c.path,
                expires: if c.session { -1.0 } else { c.expires },
                http_only: c.http_only,
                secure: c.secure,
                same_site: c.same_site.map(|s| match s {
                    CookieSameSite::Strict => SameSite::Strict,
                    CookieSameSite::Lax => SameSite::Lax,
                    CookieSameSite::None => SameSite::None,
                }),
            })
            .collect();
        page.navigate(url)
            .await
            .map_err(|e| format!("cannot open {url} to read its local storage: {e}"))?;
        let items = page
            .evaluate("Object.entries(localStorage)")
            .await
            .map_err(|e| format!("cannot read the local storage of {url}: {e}"))?;
        let pairs: Vec<(String, String)> = serde_json::from_value(items).unwrap_or_default();
        let origin = url::Url::parse(url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_default();
        let local_storage: Vec<StorageItem> = pairs
            .into_iter()
            .map(|(name, value)| StorageItem { name, value })
            .collect();
        let origins = if local_storage.is_empty() {
            Vec::new()
        } else {
            vec![OriginStorage {
                origin,
                local_storage,
            }]
        };
        Ok(Self { cookies, origins })
    }
}

/// `cookie` as Chromium sets it for a side at `origin` whose host is `host`: one of the side's
/// host is set for the side's URL (host-only, ports aside), any other by its domain.
fn cookie_param(cookie: &StoredCookie, origin: &str, host: Option<&str>) -> CookieParam {
    let mut param = CookieParam::new(cookie.name.clone(), cookie.value.clone());
    let domain = cookie.domain.trim_start_matches('.');
    if host == Some(domain) && !cookie.domain.starts_with('.') {
        param.url = Some(format!("{origin}{}", cookie.path));
    } else {
        param.domain = Some(cookie.domain.clone());
    }
    param.path = Some(cookie.path.clone());
    param.secure = Some(cookie.secure);
    param.http_only = Some(cookie.http_only);
    param.same_site = cookie.same_site.map(|s| match s {
        SameSite::Strict => CookieSameSite::Strict,
        SameSite::Lax => CookieSameSite::Lax,
        SameSite::None => CookieSameSite::None,
    });
    if cookie.expires > 0.0 {
        param.expires = Some(TimeSinceEpoch::new(cookie.expires));
    }
    param
}

#[cfg(test)]
#[path = "storage_state_tests.rs"]
mod tests;
