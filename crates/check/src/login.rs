//! Checks behind a login: before any page is compared, each side is signed in, by a login
//! flow replayed against the side ([`SignIn`], given by the runner, which owns the replay
//! engine) or by a Playwright `storageState` file (module `storage_state`). A login that
//! fails on either side ends the check as an error naming the side, before any page is
//! captured; each side's signed-in state is then loaded into the fresh browser context of
//! every capture of that side, and a captured page that is not the one asked for (the server
//! redirected it, to its login page) is an ERROR rather than a comparison of two login pages.

use futures::future::LocalBoxFuture;

use crate::error::CheckError;
use crate::spec::CheckSpec;
use crate::storage_state::StorageState;
use crate::storage_state::load_storage_state;

/// Signs a side in: replays the login flow against the side whose base URL is `base`, in a
/// browser context of its own, and returns that context's state once the flow passed; an
/// error names the login file, the step and its reason (and never a secret value).
pub trait SignIn {
    /// `side` is `baseline` or `candidate`.
    fn sign_in<'a>(
        &'a self,
        side: &'a str,
        base: &'a str,
    ) -> LocalBoxFuture<'a, Result<StorageState, String>>;
}

/// Each side's signed-in state (none for a stored baseline, which is not captured).
#[derive(Debug, Clone, Default)]
pub(crate) struct SideStates {
    pub(crate) baseline: Option<StorageState>,
    pub(crate) candidate: Option<StorageState>,
}

impl SideStates {
    pub(crate) fn of(&self, side: &str) -> Option<&StorageState> {
        match side {
            "baseline" => self.baseline.as_ref(),
            _ => self.candidate.as_ref(),
        }
    }
}

/// Signs both sides in as `spec.login` says, before any page: `None` when it asks for no
/// login. Every side's failure is named (a login failing on both sides is one error naming
/// both).
pub(crate) async fn sign_in_sides(
    spec: &CheckSpec,
    sign_in: Option<&dyn SignIn>,
) -> Result<Option<SideStates>, CheckError> {
    let login = &spec.login;
    let stored = spec.stored_baseline().is_some();
    if let Some(path) = &login.storage_state {
        let state = load_storage_state(path)?;
        return Ok(Some(SideStates {
            baseline: (!stored).then(|| state.clone()),
            candidate: Some(state),
        }));
    }
    let Some(flow) = &login.flow else {
        return Ok(None);
    };
    let Some(sign_in) = sign_in else {
        return Err(CheckError::Login(format!(
            "{}: this caller cannot replay a login flow (give --storage-state instead)",
            flow.display()
        )));
    };
    let mut states = SideStates::default();
    let mut failures = Vec::new();
    for (side, base) in [("baseline", &spec.baseline), ("candidate", &spec.candidate)] {
        if side == "baseline" && stored {
            continue;
        }
        match sign_in.sign_in(side, base).await {
            Ok(state) if side == "baseline" => states.baseline = Some(state),
            Ok(state) => states.candidate = Some(state),
            Err(reason) => failures.push(format!("{side} ({base}): {reason}")),
        }
    }
    if failures.is_empty() {
        Ok(Some(states))
    } else {
        Err(CheckError::Login(format!(
            "the login {} failed before any page was compared: {}",
            flow.display(),
            failures.join("; ")
        )))
    }
}

/// The path part of `url` (`/dashboard`), as the browser reports `location.pathname`.
pub(crate) fn path_of(url: &str) -> Option<String> {
    url::Url::parse(url).ok().map(|u| u.path().to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::spec::LoginOptions;

    #[test]
    fn the_flow_starts_at_the_base_url_or_the_start_path_under_it() {
        let mut login = LoginOptions::default();
        assert_eq!(
            login.start_url("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/"
        );
        login.start_path = Some("/login".into());
        assert_eq!(
            login.start_url("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/login"
        );
        assert_eq!(
            path_of("http://127.0.0.1:9/dashboard?x=1").as_deref(),
            Some("/dashboard")
        );
    }

    #[test]
    fn a_flow_and_a_state_file_together_or_a_bad_start_path_are_refused() {
        let both = LoginOptions {
            flow: Some("login.json".into()),
            storage_state: Some("state.json".into()),
            ..LoginOptions::default()
        };
        assert_eq!(both.validate().unwrap_err().field, "login");
        let bad = LoginOptions {
            start_path: Some("login".into()),
            ..LoginOptions::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "login.start_path");
    }
}
