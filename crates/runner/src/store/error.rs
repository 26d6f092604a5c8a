//! [`StoreError`]: why a store operation failed, naming the store and the key.

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A key (from a user, a file or a model) would leave the store, or is malformed.
    #[error("key `{key}` refused: {reason}")]
    KeyRefused {
        /// The key as given.
        key: String,
        /// Why.
        reason: String,
    },
    /// A store location (`s3://bucket/prefix`, a directory) cannot be used.
    #[error("store `{location}`: {message}")]
    Location {
        /// The location as given.
        location: String,
        /// Why.
        message: String,
    },
    /// [`Store::put_create`](super::Store::put_create): the key already exists.
    #[error("{store}: `{key}` already exists")]
    AlreadyExists {
        /// The store.
        store: String,
        /// The key.
        key: String,
    },
    /// [`Store::put_if_match`](super::Store::put_if_match): the object changed (or vanished)
    /// since its revision was read; read it again and retry.
    #[error("{store}: `{key}` changed since it was read")]
    Changed {
        /// The store.
        store: String,
        /// The key.
        key: String,
    },
    /// The file system or the object store failed.
    #[error("{store}: `{key}`: {message}")]
    Backend {
        /// The store.
        store: String,
        /// The key (empty for the store as a whole).
        key: String,
        /// What the backend said.
        message: String,
    },
}

impl StoreError {
    /// A backend failure at `key` of `store`.
    pub fn backend(store: &str, key: &str, message: impl ToString) -> Self {
        StoreError::Backend {
            store: store.to_owned(),
            key: key.to_owned(),
            message: message.to_string(),
        }
    }
}
