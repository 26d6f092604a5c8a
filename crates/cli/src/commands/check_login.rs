//! `retrace check`'s login flags: a login flow replayed on each side, or a Playwright state
//! file, and the flow's parameters read as `retrace run` reads them.

use std::path::PathBuf;

use retrace_check::CheckSpec;

use super::replay::ParameterArgs;

/// Pages behind a login: each side signed in before any page is compared.
#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    /// A login trajectory replayed on each side (as `retrace replay` replays it, with its
    /// checks) before its pages are captured, starting at the side's base URL (or
    /// --login-path under it); a login that fails on either side is an error naming the
    /// side, the file and the step, and a page the server then sends elsewhere (its login
    /// page) is an ERROR.
    #[arg(long, value_name = "FLOW.json", conflicts_with = "storage_state")]
    pub login: Option<PathBuf>,
    /// Where the login flow starts on each side, a path under its base URL (default: the
    /// base URL itself).
    #[arg(long, value_name = "PATH")]
    pub login_path: Option<String>,
    /// A Playwright storageState file (cookies[], origins[].localStorage[]) loaded into each
    /// side instead of a login flow.
    #[arg(long, value_name = "FILE")]
    pub storage_state: Option<PathBuf>,
    #[command(flatten)]
    pub parameters: ParameterArgs,
    /// A TOML file of `NAME = "VALUE"` values for the login's parameters (no secrets: those
    /// come from RETRACE_PARAM_<NAME> or --param).
    #[arg(long, value_name = "FILE")]
    pub params_file: Option<PathBuf>,
}

impl LoginArgs {
    /// The parameters of `spec`'s login flow (from the flags or a spec file) and the rerun
    /// command's words for them, read as `retrace run` reads them.
    pub fn parameters(
        &self,
        spec: &CheckSpec,
    ) -> anyhow::Result<(retrace_runner::Parameters, Vec<String>)> {
        let Some(flow) = &spec.login.flow else {
            return Ok(Default::default());
        };
        Ok(retrace_runner::check_login::login_parameters(
            flow,
            &self.parameters.params,
            &self.parameters.secret,
            self.params_file.as_deref(),
            &|name| std::env::var(name).ok(),
        )?)
    }
}
