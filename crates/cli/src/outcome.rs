//! How a command ended, and the exit code that says so: 0 pass, 1 a check failed, 2 error.

use std::process::ExitCode;

/// The result of a command that ran to the end. Errors (exit 2) travel as `anyhow::Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked for was done and every check passed (exit 0).
    Pass,
    /// The command ran, but a check it performs failed: a mismatch, a FAIL verdict, an
    /// invalid file (exit 1).
    CheckFailed,
    /// Bad input or broken infrastructure (exit 2).
    Error,
}

impl Outcome {
    /// The process exit code for this outcome.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Pass => ExitCode::SUCCESS,
            Outcome::CheckFailed => ExitCode::from(1),
            Outcome::Error => ExitCode::from(2),
        }
    }
}
