//! A trajectory directory kept in a [`Store`] (`act --cache-dir s3://bucket/flows/`): the
//! trajectories (not the run state) are read into a private temporary folder before the run,
//! `act` records and replays there as in any local directory, and afterwards every file the
//! run wrote or changed goes back to the store: a new file with a create-only write, a changed
//! one only if nobody replaced it meanwhile (its revision still the one read), so two machines
//! recording into one prefix never overwrite each other's work silently.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::RunnerError;
use crate::store::Key;
use crate::store::Location;
use crate::store::Revision;
use crate::store::Store;
use crate::store::StoreError;

/// A store's trajectories, copied into a private folder for one run.
#[derive(Debug)]
pub struct StoredCacheDir {
    /// The location as given.
    url: String,
    store: Store,
    local: tempfile::TempDir,
    /// What was read: each file's bytes and revision.
    read: BTreeMap<String, (Vec<u8>, Revision)>,
}

fn store_error(error: StoreError) -> RunnerError {
    RunnerError::Input(error.to_string())
}

impl StoredCacheDir {
    /// Reads the trajectories at `url` (`s3://bucket/prefix`, S3 settings from the
    /// environment) into a new private folder.
    pub async fn fetch(url: &str) -> Result<StoredCacheDir, RunnerError> {
        let store = Location::parse(url)
            .and_then(|location| location.open())
            .map_err(store_error)?;
        Self::fetch_from(store, url).await
    }

    /// Reads the trajectories of `store` (known to the user as `url`) into a new private
    /// folder.
    pub async fn fetch_from(store: Store, url: &str) -> Result<StoredCacheDir, RunnerError> {
        let local = tempfile::tempdir().map_err(|e| RunnerError::io(Path::new("/tmp"), e))?;
        let mut read = BTreeMap::new();
        for key in store.list(None).await.map_err(store_error)? {
            let name = key.as_str();
            if name.contains('/') || !name.ends_with(".json") {
                continue; // Run state, other folders: not this directory's trajectories.
            }
            let Some(stored) = store.get(&key).await.map_err(store_error)? else {
                continue; // Deleted since it was listed.
            };
            let path = local.path().join(name);
            retrace_files::write_atomic(&path, &stored.bytes)
                .map_err(|e| RunnerError::io(&path, e))?;
            read.insert(name.to_owned(), (stored.bytes, stored.revision));
        }
        Ok(StoredCacheDir {
            url: url.trim_end_matches('/').to_owned(),
            store,
            local,
            read,
        })
    }

    /// The private folder the run uses as its cache directory.
    pub fn path(&self) -> &Path {
        self.local.path()
    }

    /// Where `file` of the private folder lives in the store.
    pub fn url_of(&self, file: &Path) -> String {
        let name = file
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{}/{name}", self.url)
    }

    /// Writes every trajectory of the private folder that is new or changed back to the
    /// store; the URLs written. A file someone else replaced since it was read is refused,
    /// naming it, and left as it is in the store.
    pub async fn upload(&self) -> Result<Vec<String>, RunnerError> {
        let entries =
            std::fs::read_dir(self.path()).map_err(|e| RunnerError::io(self.path(), e))?;
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".json"))
            .collect();
        names.sort();
        let mut written = Vec::new();
        for name in names {
            let path = self.path().join(&name);
            let bytes = std::fs::read(&path).map_err(|e| RunnerError::io(&path, e))?;
            let key = Key::new(&name).map_err(store_error)?;
            let result = match self.read.get(&name) {
                Some((before, _)) if *before == bytes => continue,
                Some((_, revision)) => self.store.put_if_match(&key, &bytes, revision).await,
                None => self.store.put_create(&key, &bytes).await,
            };
            match result {
                Ok(_) => written.push(format!("{}/{name}", self.url)),
                Err(StoreError::Changed { .. } | StoreError::AlreadyExists { .. }) => {
                    return Err(RunnerError::Input(format!(
                        "{}/{name} was written by someone else during this run; this run's \
                         version is not stored",
                        self.url
                    )));
                }
                Err(error) => return Err(store_error(error)),
            }
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn key(name: &str) -> Key {
        Key::new(name).unwrap()
    }

    #[tokio::test]
    async fn only_new_and_changed_files_go_back_and_never_over_someone_elses_write() {
        let store = Store::in_memory();
        store.put_create(&key("kept.json"), b"kept").await.unwrap();
        store.put_create(&key("mine.json"), b"v1").await.unwrap();
        store
            .put_create(&key(".retrace_state/x/run.json"), b"state")
            .await
            .unwrap();
        let dir = StoredCacheDir::fetch_from(store.clone(), "s3://b/flows/")
            .await
            .unwrap();
        let mut local: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        local.sort();
        assert_eq!(local, ["kept.json", "mine.json"], "run state is not copied");

        std::fs::write(dir.path().join("mine.json"), b"v2").unwrap();
        std::fs::write(dir.path().join("new.json"), b"new").unwrap();
        let written = dir.upload().await.unwrap();
        assert_eq!(
            written,
            ["s3://b/flows/mine.json", "s3://b/flows/new.json"],
            "the unchanged file is not written"
        );
        let bytes = |name: &str| {
            let store = store.clone();
            let key = key(name);
            async move { store.get(&key).await.unwrap().unwrap().bytes }
        };
        assert_eq!(bytes("mine.json").await, b"v2");
        assert_eq!(bytes("new.json").await, b"new");

        // Someone else replaced a file this run also changed: it is refused, theirs kept.
        let dir = StoredCacheDir::fetch_from(store.clone(), "s3://b/flows")
            .await
            .unwrap();
        let theirs = store.get(&key("mine.json")).await.unwrap().unwrap();
        store
            .put_if_match(&key("mine.json"), b"theirs", &theirs.revision)
            .await
            .unwrap();
        std::fs::write(dir.path().join("mine.json"), b"ours").unwrap();
        let error = dir.upload().await.unwrap_err().to_string();
        assert!(
            error.contains("s3://b/flows/mine.json was written by someone else"),
            "{error}"
        );
        assert_eq!(bytes("mine.json").await, b"theirs");
    }
}
