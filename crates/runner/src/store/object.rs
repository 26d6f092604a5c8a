//! [`ObjectBacked`]: a store under a prefix of an object store (`object_store`'s S3 client,
//! or its in-memory store in tests).
//!
//! Conditional writes are the object store's own: [`PutMode::Create`] (`If-None-Match: *`)
//! for records that must not replace anything, [`PutMode::Update`] (`If-Match: <ETag>`) for
//! read-modify-write. `object_store` already retries S3's `409 Conflict` on concurrent
//! `If-Match` writes; a precondition failure, or a conflict that persists, is reported as
//! [`StoreError::Changed`] for the caller to read again and retry.

use std::sync::Arc;

use futures::TryStreamExt;
use object_store::ObjectStore;
use object_store::PutMode;
use object_store::PutOptions;
use object_store::UpdateVersion;
use object_store::path::Path as ObjectPath;

use super::error::StoreError;
use super::key::Key;
use super::revision::Revision;
use super::revision::Stored;

/// A prefix of an object store.
#[derive(Debug, Clone)]
pub struct ObjectBacked {
    inner: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    name: String,
}

impl ObjectBacked {
    /// The keys under `prefix` (`suite/` of `s3://bucket/suite/`) of `inner`; `name` is how
    /// errors name the store (`s3://bucket/suite`).
    pub fn new(
        inner: Arc<dyn ObjectStore>,
        prefix: &str,
        name: String,
    ) -> Result<Self, StoreError> {
        let trimmed = prefix.trim_matches('/');
        let prefix = if trimmed.is_empty() {
            ObjectPath::default()
        } else {
            // The prefix is confined like any key: it comes from a user's URL.
            ObjectPath::from(Key::new(trimmed)?.as_str())
        };
        Ok(ObjectBacked {
            inner,
            prefix,
            name,
        })
    }

    /// The whole of `inner` (no prefix).
    pub fn from_parts(inner: Arc<dyn ObjectStore>, name: String) -> Self {
        ObjectBacked {
            inner,
            prefix: ObjectPath::default(),
            name,
        }
    }

    /// How errors name the store.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same object store under `prefix/key`.
    pub fn child(&self, key: &Key) -> ObjectBacked {
        ObjectBacked {
            inner: Arc::clone(&self.inner),
            prefix: self.location(key),
            name: format!("{}/{key}", self.name.trim_end_matches('/')),
        }
    }

    /// The object's full path.
    fn location(&self, key: &Key) -> ObjectPath {
        // Key parts never hold `/`, `.` or `..`, so each is one path part.
        self.prefix
            .parts()
            .chain(
                key.as_str()
                    .split('/')
                    .map(object_store::path::PathPart::from),
            )
            .collect()
    }

    fn error(&self, key: &Key, error: object_store::Error) -> StoreError {
        StoreError::backend(&self.name, key.as_str(), error)
    }

    /// The bytes and revision of `key`, `None` when it does not exist.
    pub async fn get(&self, key: &Key) -> Result<Option<Stored>, StoreError> {
        let result = match self.inner.get(&self.location(key)).await {
            Ok(result) => result,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(self.error(key, error)),
        };
        let revision = Revision {
            tag: result.meta.e_tag.clone().unwrap_or_default(),
            version: result.meta.version.clone(),
        };
        let bytes = result.bytes().await.map_err(|e| self.error(key, e))?;
        Ok(Some(Stored {
            bytes: bytes.to_vec(),
            revision,
        }))
    }

    /// Every key under `prefix` (all keys for `None`), sorted.
    pub async fn list(&self, prefix: Option<&Key>) -> Result<Vec<Key>, StoreError> {
        let start = prefix.map_or_else(|| self.prefix.clone(), |key| self.location(key));
        let metas: Vec<_> = self
            .inner
            .list(Some(&start))
            .try_collect()
            .await
            .map_err(|e| StoreError::backend(&self.name, start.as_ref(), e))?;
        let mut keys = Vec::new();
        for meta in metas {
            let Some(parts) = meta.location.prefix_match(&self.prefix) else {
                continue;
            };
            let relative: Vec<String> = parts.map(|part| part.as_ref().to_owned()).collect();
            // An object whose name is no valid key (written by another tool) is not ours.
            if let Ok(key) = Key::new(&relative.join("/")) {
                keys.push(key);
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// Writes `key` only if it does not exist yet.
    pub async fn put_create(&self, key: &Key, bytes: &[u8]) -> Result<Revision, StoreError> {
        self.put(key, bytes, PutMode::Create).await
    }

    /// Replaces `key` only if it is still at `expected`.
    pub async fn put_if_match(
        &self,
        key: &Key,
        bytes: &[u8],
        expected: &Revision,
    ) -> Result<Revision, StoreError> {
        let version = UpdateVersion {
            e_tag: Some(expected.tag.clone()).filter(|tag| !tag.is_empty()),
            version: expected.version.clone(),
        };
        self.put(key, bytes, PutMode::Update(version)).await
    }

    async fn put(&self, key: &Key, bytes: &[u8], mode: PutMode) -> Result<Revision, StoreError> {
        let options = PutOptions {
            mode,
            ..PutOptions::default()
        };
        let payload = bytes.to_vec().into();
        let is_update = matches!(options.mode, PutMode::Update(_));
        match self
            .inner
            .put_opts(&self.location(key), payload, options)
            .await
        {
            Ok(result) => Ok(Revision {
                tag: result.e_tag.unwrap_or_default(),
                version: result.version,
            }),
            // S3 answers concurrent `If-Match` writes with 409 Conflict, which `object_store`
            // retries and, when it persists, reports as `AlreadyExists`: for an update that
            // means someone else wrote first.
            Err(object_store::Error::AlreadyExists { .. }) if is_update => {
                Err(StoreError::Changed {
                    store: self.name.clone(),
                    key: key.to_string(),
                })
            }
            Err(object_store::Error::AlreadyExists { .. }) => Err(StoreError::AlreadyExists {
                store: self.name.clone(),
                key: key.to_string(),
            }),
            Err(
                object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
            ) => Err(StoreError::Changed {
                store: self.name.clone(),
                key: key.to_string(),
            }),
            Err(error) => Err(self.error(key, error)),
        }
    }
}
