//! [`Key`]: a name inside a store, confined to it.
//!
//! A key is relative, `/`-separated, and stays below the store's root (a directory or an
//! object-storage prefix) however it is spelled: empty segments, `.`, `..`, a leading `/` or
//! `\`, a drive letter, a backslash or a NUL are refused with an error naming the key, before
//! any file or object is touched. The same rules hold for both backends, so a name that works
//! locally works on S3 and the reverse.

use std::fmt;

use super::error::StoreError;

/// A confined, normalised name inside a store (`flows/login.json`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(String);

impl Key {
    /// Checks `name` and makes it a key; see the module doc for what is refused.
    pub fn new(name: &str) -> Result<Key, StoreError> {
        let refuse = |reason: &str| StoreError::KeyRefused {
            key: name.to_owned(),
            reason: reason.to_owned(),
        };
        if name.is_empty() {
            return Err(refuse("the key is empty"));
        }
        if name.contains('\0') {
            return Err(refuse("the key contains a NUL character"));
        }
        if name.contains('\\') {
            return Err(refuse("use `/` to separate a key's parts, not `\\`"));
        }
        if name.starts_with('/') {
            return Err(refuse(
                "absolute keys are not allowed; give a key inside the store",
            ));
        }
        if name.as_bytes().get(1) == Some(&b':') {
            return Err(refuse("a drive letter makes the key absolute"));
        }
        for part in name.split('/') {
            match part {
                "" => return Err(refuse("the key has an empty part (`//` or a trailing `/`)")),
                "." => return Err(refuse("`.` is not a key part")),
                ".." => return Err(refuse("`..` would lead out of the store")),
                _ => {}
            }
        }
        Ok(Key(name.to_owned()))
    }

    /// `self/child`: `child` is checked as a key of its own.
    pub fn join(&self, child: &str) -> Result<Key, StoreError> {
        Key::new(&format!("{}/{}", self.0, child)).map_err(|error| match error {
            StoreError::KeyRefused { reason, .. } => StoreError::KeyRefused {
                key: child.to_owned(),
                reason,
            },
            other => other,
        })
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The last part (`login.json` of `flows/login.json`).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
