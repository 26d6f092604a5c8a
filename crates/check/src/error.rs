//! Why a check could not run at all.

use crate::spec::SpecError;
use crate::spec::Viewport;

/// Why a check could not run at all (not one page's ERROR).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The spec is not usable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// A stored baseline could not be written.
    #[error("storing the baseline: {0}")]
    Baseline(String),
    /// A side could not be signed in (its login flow failed, or no state could be read from
    /// it): nothing was compared.
    #[error("{0}")]
    Login(String),
    /// The browser did not start (or could not be reached).
    #[error("cannot open {browser} at {viewport}: {detail}")]
    Browser {
        /// Which browser: `Chromium (/usr/bin/chromium)`, or the remote endpoint.
        browser: String,
        /// The viewport.
        viewport: Viewport,
        /// Why.
        detail: String,
    },
}
