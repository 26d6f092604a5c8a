//! [`Location`]: where a store is, as a user writes it: a directory, or `s3://bucket/prefix`
//! wherever a suite path or a cache directory goes.
//!
//! S3 settings come from the standard AWS variables, read as `object_store`'s
//! `AmazonS3Builder::from_env` reads them: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`; `us-east-1` when neither is
//! set) and `AWS_ENDPOINT_URL` for S3-compatible servers (MinIO, Ceph, moto). An endpoint
//! given as `http://...` is allowed without TLS (the user named it); `AWS_ALLOW_HTTP=true`
//! does the same for any endpoint. Only `s3://` is built in: `gs://` and `az://` would need
//! `object_store`'s `gcp`/`azure` features, which are not enabled (see the root manifest).

use std::path::PathBuf;
use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::aws::AmazonS3ConfigKey;

use super::error::StoreError;
use super::handle::Store;
use super::local::LocalStore;
use super::object::ObjectBacked;

/// Where a store is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A local directory.
    Local(PathBuf),
    /// A bucket and a prefix in it (without slashes at either end; empty for the bucket).
    S3 {
        /// The bucket.
        bucket: String,
        /// The prefix.
        prefix: String,
    },
}

/// URL schemes of object stores this build cannot reach.
const OTHER_SCHEMES: &[&str] = &[
    "gs://", "gcs://", "az://", "azure://", "abfs://", "abfss://",
];

impl Location {
    /// Whether `text` names an object store (`s3://...`) rather than a path.
    pub fn is_remote(text: &str) -> bool {
        text.contains("://")
    }

    /// Parses `text`: `s3://bucket/prefix` (or `s3a://`), else a path.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let refuse = |message: &str| StoreError::Location {
            location: text.to_owned(),
            message: message.to_owned(),
        };
        let rest = text
            .strip_prefix("s3://")
            .or_else(|| text.strip_prefix("s3a://"));
        let Some(rest) = rest else {
            if OTHER_SCHEMES.iter().any(|scheme| text.starts_with(scheme)) {
                return Err(refuse(
                    "only s3:// object storage is built in (and S3-compatible servers through AWS_ENDPOINT_URL)",
                ));
            }
            if Location::is_remote(text) {
                return Err(refuse(
                    "unknown URL scheme; use s3://bucket/prefix or a path",
                ));
            }
            return Ok(Location::Local(PathBuf::from(text)));
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(refuse("the bucket name is missing (s3://bucket/prefix)"));
        }
        let prefix = prefix.trim_matches('/');
        if !prefix.is_empty() {
            // The prefix is confined like any key.
            super::key::Key::new(prefix)?;
        }
        Ok(Location::S3 {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }

    /// The store here; S3 settings from the process's `AWS_*` variables.
    pub fn open(&self) -> Result<Store, StoreError> {
        self.open_with(std::env::vars())
    }

    /// The store here, with S3 settings from `vars` (`AWS_*` names, as in the environment)
    /// instead of the process's environment.
    pub fn open_with(
        &self,
        vars: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Store, StoreError> {
        match self {
            Location::Local(dir) => Ok(Store::Local(LocalStore::new(dir.clone()))),
            Location::S3 { bucket, prefix } => {
                let name = format!("s3://{bucket}/{prefix}");
                let aws: Vec<(String, String)> = vars
                    .into_iter()
                    .filter(|(key, _)| key.starts_with("AWS_"))
                    .collect();
                let mut builder = AmazonS3Builder::new();
                for (key, value) in &aws {
                    // As `AmazonS3Builder::from_env`: unknown AWS_ variables are not ours.
                    if let Ok(config) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
                        builder = builder.with_config(config, value);
                    }
                }
                builder = builder.with_bucket_name(bucket);
                let has = |name: &str| aws.iter().any(|(key, _)| key == name);
                if !has("AWS_REGION") && !has("AWS_DEFAULT_REGION") {
                    builder = builder.with_region("us-east-1");
                }
                let plain_http = aws.iter().any(|(key, value)| {
                    (key == "AWS_ENDPOINT_URL" || key == "AWS_ENDPOINT")
                        && value.starts_with("http://")
                });
                if plain_http && !has("AWS_ALLOW_HTTP") {
                    builder = builder.with_allow_http(true);
                }
                let inner = builder.build().map_err(|e| StoreError::Location {
                    location: name.clone(),
                    message: e.to_string(),
                })?;
                Ok(Store::Object(ObjectBacked::new(
                    Arc::new(inner),
                    prefix,
                    name,
                )?))
            }
        }
    }
}

impl Store {
    /// The store at `location`: a directory, or `s3://bucket/prefix` (see [`location`]).
    pub fn open(location: &str) -> Result<Store, StoreError> {
        Location::parse(location)?.open()
    }
}
