//! [`Store`]: one handle on a directory or a prefix of an object store, with the same four
//! operations on both and a read-modify-write built on them.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::StoreError;
use super::key::Key;
use super::local::LocalStore;
use super::object::ObjectBacked;
use super::revision::Revision;
use super::revision::Stored;

/// A directory or a prefix of an object store.
#[derive(Debug, Clone)]
pub enum Store {
    /// A local directory.
    Local(LocalStore),
    /// A prefix of an object store.
    Object(ObjectBacked),
}

/// What [`Store::update_json`] writes: the value and a counter that makes every write's
/// bytes (and so its ETag) new.
#[derive(Debug, Serialize, Deserialize)]
struct Revisioned<T> {
    revision: u64,
    value: T,
}

/// How many conflicting writes [`Store::update_json`] survives before it gives up.
const UPDATE_ATTEMPTS: u32 = 1000;

impl Store {
    /// An empty store in memory (`object_store`'s `InMemory`), for tests and dry runs.
    pub fn in_memory() -> Store {
        let inner: Arc<dyn object_store::ObjectStore> =
            Arc::new(object_store::memory::InMemory::new());
        Store::Object(ObjectBacked::from_parts(inner, "memory:".to_owned()))
    }

    /// How messages name the store (`s3://bucket/suite`, `/home/me/suite`).
    pub fn name(&self) -> String {
        match self {
            Store::Local(store) => store.root().display().to_string(),
            Store::Object(store) => store.name().to_owned(),
        }
    }

    /// The store under `key` of this one (a sub-directory, a longer prefix).
    pub fn child(&self, key: &Key) -> Store {
        match self {
            Store::Local(store) => Store::Local(LocalStore::new(store.path_of(key))),
            Store::Object(store) => Store::Object(store.child(key)),
        }
    }

    /// The bytes and revision of `key`; `None` when it does not exist.
    pub async fn get(&self, key: &Key) -> Result<Option<Stored>, StoreError> {
        match self {
            Store::Local(store) => {
                let (store, key) = (store.clone(), key.clone());
                blocking(move || store.get(&key)).await
            }
            Store::Object(store) => store.get(key).await,
        }
    }

    /// Every key under `prefix` (all for `None`), sorted.
    pub async fn list(&self, prefix: Option<&Key>) -> Result<Vec<Key>, StoreError> {
        match self {
            Store::Local(store) => {
                let (store, prefix) = (store.clone(), prefix.cloned());
                blocking(move || store.list(prefix.as_ref())).await
            }
            Store::Object(store) => store.list(prefix).await,
        }
    }

    /// Writes `key` only if it does not exist ([`StoreError::AlreadyExists`] otherwise).
    pub async fn put_create(&self, key: &Key, bytes: &[u8]) -> Result<Revision, StoreError> {
        match self {
            Store::Local(store) => {
                let (store, key, bytes) = (store.clone(), key.clone(), bytes.to_vec());
                blocking(move || store.put_create(&key, &bytes)).await
            }
            Store::Object(store) => store.put_create(key, bytes).await,
        }
    }

    /// Replaces `key` only if it is still at `expected` ([`StoreError::Changed`] otherwise).
    pub async fn put_if_match(
        &self,
        key: &Key,
        bytes: &[u8],
        expected: &Revision,
    ) -> Result<Revision, StoreError> {
        match self {
            Store::Local(store) => {
                let (store, key, bytes) = (store.clone(), key.clone(), bytes.to_vec());
                let expected = expected.clone();
                blocking(move || store.put_if_match(&key, &bytes, &expected)).await
            }
            Store::Object(store) => store.put_if_match(key, bytes, expected).await,
        }
    }

    /// Read-modify-write of the JSON value at `key`: `change` gets the current value (`None`
    /// when there is none) and returns the new one, which is written only if nobody wrote in
    /// between (`PutMode::Create` for a new key, `PutMode::Update` otherwise); when someone
    /// did, it reads again and calls `change` again. Each write carries a revision counter,
    /// so two writes never have the same bytes (or ETag). Returns the value written.
    pub async fn update_json<T, F>(&self, key: &Key, mut change: F) -> Result<T, StoreError>
    where
        T: Serialize + DeserializeOwned,
        F: FnMut(Option<T>) -> T,
    {
        for attempt in 0..UPDATE_ATTEMPTS {
            let current = self.get(key).await?;
            let (revision, value) = match &current {
                None => (0, None),
                Some(stored) => {
                    let old: Revisioned<T> =
                        serde_json::from_slice(&stored.bytes).map_err(|e| {
                            StoreError::backend(
                                &self.name(),
                                key.as_str(),
                                format!("not a revisioned JSON value: {e}"),
                            )
                        })?;
                    (old.revision, Some(old.value))
                }
            };
            let next = Revisioned {
                revision: revision + 1,
                value: change(value),
            };
            let bytes = serde_json::to_vec(&next)
                .map_err(|e| StoreError::backend(&self.name(), key.as_str(), e))?;
            let written = match &current {
                None => self.put_create(key, &bytes).await,
                Some(stored) => self.put_if_match(key, &bytes, &stored.revision).await,
            };
            match written {
                Ok(_) => return Ok(next.value),
                Err(StoreError::AlreadyExists { .. } | StoreError::Changed { .. }) => {
                    tokio::time::sleep(backoff(attempt)).await;
                }
                Err(error) => return Err(error),
            }
        }
        Err(StoreError::backend(
            &self.name(),
            key.as_str(),
            format!("gave up after {UPDATE_ATTEMPTS} writes that conflicted with other writers"),
        ))
    }
}

/// A short pause that grows with the attempt and differs between processes, so writers
/// that collided do not collide again in lockstep.
fn backoff(attempt: u32) -> Duration {
    let spread = u64::from(std::process::id() % 7) + u64::from(attempt % 5);
    Duration::from_millis((u64::from(attempt.min(20)) + spread).min(50))
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| StoreError::backend("local", "", format!("file work stopped: {e}")))?
}
