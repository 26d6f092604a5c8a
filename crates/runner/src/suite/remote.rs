//! A suite in object storage (`retrace run s3://bucket/suite/`): read into a private folder
//! and run from there, its run state going back to the store, its tests named at their URLs.

use std::path::Path;
use std::path::PathBuf;

use super::config::SUITE_FILE;
use super::load::LoadedSuite;
use crate::failure::Context;
use crate::failure::Failure;
use crate::store::Location;
use crate::store::Store;
use crate::stored_replay::download_suite;

/// The first of `paths` that names a place in object storage, if any.
pub fn remote_path(paths: &[PathBuf]) -> Option<&str> {
    paths
        .iter()
        .filter_map(|path| path.to_str())
        .find(|text| Location::is_remote(text))
}

/// Reads the suite at `url` into `dir`; returns its suite file (the store's `retrace.toml`,
/// else an empty one, so test ids are paths inside the suite) and the store. `paths` is every
/// path given and `suite_given` whether `--suite` was: a remote suite is run alone.
pub async fn fetch_suite(
    url: &str,
    paths: usize,
    suite_given: bool,
    dir: &Path,
) -> Result<(PathBuf, Store), Failure> {
    if paths != 1 {
        return Err(Failure::msg(format!(
            "{url}: a suite in object storage is run alone; give no other paths"
        )));
    }
    if suite_given {
        return Err(Failure::msg(format!(
            "{url}: --suite does not apply to a suite in object storage; put its retrace.toml in the prefix"
        )));
    }
    let store = Store::open(url).map_err(Failure::of)?;
    let copied = download_suite(&store, dir).await.map_err(Failure::of)?;
    if copied == 0 {
        return Err(Failure::msg(format!("{url}: no files there")));
    }
    let suite_file = dir.join(SUITE_FILE);
    if !suite_file.is_file() {
        retrace_files::write_atomic(&suite_file, b"")
            .with_context(|| format!("cannot write {}", suite_file.display()))?;
    }
    Ok((suite_file, store))
}

/// Names the suite read from `url` and each of its tests as they are in the store: reports
/// and rerun commands name each file at its URL, not its private copy, and the suite after
/// its prefix.
pub fn name_after(loaded: &mut LoadedSuite, url: &str) {
    for plan in &mut loaded.plans {
        plan.origin = Some(format!("{}/{}", url.trim_end_matches('/'), plan.id));
    }
    let path = url.split_once("://").map_or(url, |(_, path)| path);
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .clone_into(&mut loaded.name);
}
