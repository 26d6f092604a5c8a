//! Stores: where trajectories and run state live, a local directory or object storage
//! (`s3://bucket/prefix`, and any S3-compatible server such as MinIO or Ceph).
//!
//! It lives in `retrace-runner` because the runner owns stores (see the architecture's crate
//! table) and already runs on tokio, which `object_store` needs; `retrace-cache` stays free
//! of async runtimes and network clients.
//!
//! [`Store`] has four operations, each the same on both backends: [`Store::get`] (bytes and a
//! [`Revision`]), [`Store::list`], [`Store::put_create`] (only if the key is new) and
//! [`Store::put_if_match`] (only if the key is still at the revision read). Everything else is
//! built on them: [`Store::update_json`] (read-modify-write, retried when someone else wrote
//! first) and [`run_records`] (run state as append-only records, no contention at all).
//! Every key is a [`Key`], confined to the store's directory or prefix.
//!
//! - [`key`]: confinement of names;
//! - [`local`]: a directory (temporary file + rename, sidecar lock);
//! - [`object`]: a prefix of an object store;
//! - [`location`]: `s3://bucket/prefix` or a path to a [`Store`], S3 settings from the
//!   standard `AWS_*` variables;
//! - [`run_records`]: what runs learn about a trajectory, as one record per run.

pub mod error;
mod handle;
pub mod key;
pub mod local;
pub mod location;
pub mod object;
mod revision;
pub mod run_records;

pub use error::StoreError;
pub use handle::Store;
pub use key::Key;
pub use local::LocalStore;
pub use location::Location;
pub use object::ObjectBacked;
pub use revision::Revision;
pub use revision::Stored;

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
