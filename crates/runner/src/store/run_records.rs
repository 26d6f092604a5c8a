//! [`RunRecords`]: run state (attempts, failures, whether validators retired a trajectory)
//! kept in any [`Store`] as append-only records, so many machines can count runs of the same
//! trajectory at once without contention and without losing one.
//!
//! Each run writes one small JSON record with [`Store::put_create`] under a key no other
//! writer uses: `.retrace_state/<test id>/<content hash>/<time>-<pid>-<counter>-<random>.json`.
//! Nothing is ever rewritten, so there is nothing to race on; reading lists the records and
//! folds them, oldest first, into a [`FileState`] with the same counting and validators as
//! the local `.retrace_state/` files ([`FileState::count_run`]). The content hash in the key
//! means a changed trajectory starts afresh, as locally.

use std::hash::BuildHasher;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use futures::StreamExt;
use futures::TryStreamExt;
use jiff::Timestamp;
use retrace_cache::validators::Validators;
use serde::Deserialize;
use serde::Serialize;

use super::error::StoreError;
use super::handle::Store;
use super::key::Key;
use crate::suite::state::FileState;
use crate::suite::state::RunVerdict;
use crate::suite::state::STATE_DIR;
use crate::suite::state::retire_reason;
use retrace_protocol::stable_hash::fnv1a64_hex as fnv1a;

/// One run, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// When it ended (microseconds, as askui writes timestamps).
    pub at: Timestamp,
    /// How it ended.
    #[serde(flatten)]
    pub verdict: RunVerdict,
}

/// Records read at once.
const READ_CONCURRENCY: usize = 16;

/// Run records of the trajectories of one store (a suite's folder or prefix).
#[derive(Debug)]
pub struct RunRecords {
    store: Store,
    validators: Validators,
}

impl RunRecords {
    /// The records under `.retrace_state/` of `store`, with askui's default validators.
    pub fn new(store: Store) -> Self {
        RunRecords {
            store,
            validators: Validators::default(),
        }
    }

    /// The store the records are in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The folder of the records of test `id` whose trajectory has these bytes.
    pub fn folder_of(&self, id: &str, trajectory: &[u8]) -> Result<Key, StoreError> {
        Key::new(STATE_DIR)?
            .join(&id.replace(['/', '\\'], "__"))?
            .join(&fnv1a(trajectory))
    }

    /// Adds the record of one run of test `id`; returns its key.
    pub async fn record(
        &self,
        id: &str,
        trajectory: &[u8],
        verdict: &RunVerdict,
    ) -> Result<Key, StoreError> {
        let folder = self.folder_of(id, trajectory)?;
        let now = Timestamp::now();
        let record = RunRecord {
            at: Timestamp::from_microsecond(now.as_microsecond()).unwrap_or(now),
            verdict: verdict.clone(),
        };
        let bytes = serde_json::to_vec_pretty(&record)
            .map_err(|e| StoreError::backend(&self.store.name(), folder.as_str(), e))?;
        loop {
            let key = folder.join(&unique_name(record.at))?;
            match self.store.put_create(&key, &bytes).await {
                Ok(_) => return Ok(key),
                // Another writer had the same name (it cannot in practice): take another.
                Err(StoreError::AlreadyExists { .. }) => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Every run of test `id` whose trajectory has these bytes, folded oldest first. A
    /// record that cannot be read is a warning, never a reason to fail.
    pub async fn load(&self, id: &str, trajectory: &[u8]) -> Result<FileState, StoreError> {
        let folder = self.folder_of(id, trajectory)?;
        let keys = self.store.list(Some(&folder)).await?;
        let reads = futures::stream::iter(keys)
            .map(|key| async move {
                let stored = self.store.get(&key).await?;
                Ok::<_, StoreError>((key, stored))
            })
            .buffer_unordered(READ_CONCURRENCY)
            .try_collect::<Vec<_>>()
            .await?;
        let mut records = Vec::new();
        for (key, stored) in reads {
            let Some(stored) = stored else { continue };
            match serde_json::from_slice::<RunRecord>(&stored.bytes) {
                Ok(record) => records.push((record, key)),
                Err(error) => tracing::warn!("ignoring run record {key}: {error}"),
            }
        }
        records.sort_by(|(a, a_key), (b, b_key)| a.at.cmp(&b.at).then_with(|| a_key.cmp(b_key)));
        let metadata =
            retrace_cache::parse_bytes(std::path::Path::new(id), trajectory, Timestamp::now())
                .ok()
                .map(|file| file.metadata);
        let mut state = FileState {
            file: id.to_owned(),
            content_hash: fnv1a(trajectory),
            is_valid: true,
            ..FileState::default()
        };
        for (record, _) in &records {
            state.count_run(&record.verdict, record.at, |state, step_index| {
                let metadata = metadata.clone()?;
                retire_reason(&self.validators, metadata, state, step_index, record.at)
            });
        }
        Ok(state)
    }
}

/// A record name no other writer uses: the time, this process, a counter and a random part
/// (two machines can have the same pid at the same microsecond).
fn unique_name(at: Timestamp) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let random = std::collections::hash_map::RandomState::new().hash_one((count, at));
    format!(
        "{:020}-{}-{count}-{random:016x}.json",
        at.as_microsecond(),
        std::process::id()
    )
}
