//! What several tools share: parameter values with their secrecy, and paths as text.

use std::collections::BTreeMap;
use std::path::Path;

use crate::Parameters;

/// The runner's parameters from a call's `params` (values by name) and `secret` (names to
/// treat as secret whatever their name).
pub fn parameters(params: &BTreeMap<String, String>, secret: &[String]) -> Parameters {
    Parameters::new(
        params
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect(),
        secret.to_vec(),
    )
}

/// A path as the results show it.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}
