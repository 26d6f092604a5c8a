//! `retrace check`'s login flags: a login flow replayed on each side, or a Playwright state
//! file, and the flow's parameters read as `retrace run` reads them.

use std::path::PathBuf;

use retrace_runner::check_spec::CheckPlan;

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
    /// The parameters of the plan's login flow (from the flags or a spec file), read as
    /// `retrace run` reads them; the plan's rerun command names them too.
    pub fn parameters(&self, plan: &mut CheckPlan) -> anyhow::Result<retrace_runner::Parameters> {
        Ok(plan.login_parameters(
            &self.parameters.params,
            &self.parameters.secret,
            self.params_file.as_deref(),
            &|name| std::env::var(name).ok(),
        )?)
    }
}
