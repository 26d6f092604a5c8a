//! Request bodies assembled from per-message JSON fragments, each serialised once.
//!
//! Between two turns of an agent the history only grows, and a message does not change once
//! it is in the history. [`FragmentCache`] keeps the JSON of every message of the previous
//! request, so the next request serialises only the messages it has not seen and copies the
//! rest: a screenshot's ~220 KB of base64 is turned into JSON (copied, scanned for
//! characters to escape) once, not on every turn. A fragment is reused only for a message
//! equal to the one it was made from (image data compares by pointer first, so the check
//! costs little), so a changed message (an image the context policy replaced by a note) is
//! serialised afresh and the body is always exactly what serialising the request whole
//! would give.

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use retrace_protocol::Message;
use serde_json::Map;
use serde_json::Value;

use crate::VlmError;

/// The JSON of the messages of the previous request, for reuse by the next.
#[derive(Default)]
pub(crate) struct FragmentCache {
    entries: Mutex<Vec<Entry>>,
    serialised: AtomicU64,
}

struct Entry {
    message: Message,
    json: Bytes,
}

impl std::fmt::Debug for FragmentCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FragmentCache")
            .field("messages", &lock(&self.entries).len())
            .field("serialised", &self.serialised())
            .finish()
    }
}

impl FragmentCache {
    /// The JSON of each message, from the cache where the previous request had an equal
    /// message, else from `encode` (whose output is kept for the next request). The cache
    /// then holds exactly these messages.
    pub(crate) fn fragments(
        &self,
        messages: &[Message],
        encode: impl Fn(&Message) -> Result<Vec<u8>, serde_json::Error>,
    ) -> Result<Vec<Bytes>, VlmError> {
        let mut entries = lock(&self.entries);
        let mut old: Vec<Option<Entry>> = std::mem::take(&mut *entries)
            .into_iter()
            .map(Some)
            .collect();
        let mut fresh = Vec::with_capacity(messages.len());
        // Where the previous hit was found relative to its position now: a history whose
        // oldest turns were dropped keeps hitting at a constant shift.
        let mut shift = 0_isize;
        for (index, message) in messages.iter().enumerate() {
            let found = reusable(&old, index, shift, message);
            let entry = match found.and_then(|at| old[at].take().map(|entry| (at, entry))) {
                Some((at, entry)) => {
                    shift = at as isize - index as isize;
                    entry
                }
                None => {
                    let json = encode(message).map_err(|e| VlmError::Config {
                        detail: format!("cannot serialise message {index} of the request: {e}"),
                    })?;
                    self.serialised.fetch_add(1, Ordering::Relaxed);
                    Entry {
                        message: message.clone(),
                        json: Bytes::from(json),
                    }
                }
            };
            fresh.push(entry);
        }
        let fragments = fresh.iter().map(|entry| entry.json.clone()).collect();
        *entries = fresh;
        Ok(fragments)
    }

    /// Forgets every fragment (they encode one request shape; another needs new ones).
    pub(crate) fn clear(&self) {
        lock(&self.entries).clear();
    }

    /// How many messages have been serialised since the cache was made (each reuse saves
    /// one).
    pub(crate) fn serialised(&self) -> u64 {
        self.serialised.load(Ordering::Relaxed)
    }
}

/// The index of an unused previous entry equal to `message`: the one at the current shift
/// first, else any.
fn reusable(old: &[Option<Entry>], index: usize, shift: isize, message: &Message) -> Option<usize> {
    let matches = |at: usize| matches!(old.get(at), Some(Some(entry)) if entry.message == *message);
    let expected = index.checked_add_signed(shift);
    if let Some(at) = expected.filter(|at| matches(*at)) {
        return Some(at);
    }
    (0..old.len()).find(|at| Some(*at) != expected && matches(*at))
}

/// `head` as a JSON object whose field `key` is the array of the JSON values in `fragments`
/// (empty fragments stand for no value). `head` has a placeholder under `key`, which keeps
/// the field order. The bytes equal serialising the whole object with `serde_json`.
pub(crate) fn assemble(
    head: &Map<String, Value>,
    key: &str,
    fragments: &[Bytes],
) -> Result<Bytes, VlmError> {
    let error = |e: serde_json::Error| VlmError::Config {
        detail: format!("cannot serialise the request body: {e}"),
    };
    let array_len: usize = fragments.iter().map(|f| f.len() + 1).sum();
    let mut out = Vec::with_capacity(array_len + 4096);
    out.push(b'{');
    for (position, (name, value)) in head.iter().enumerate() {
        if position > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, name).map_err(error)?;
        out.push(b':');
        if name == key {
            out.push(b'[');
            let mut first = true;
            for fragment in fragments.iter().filter(|f| !f.is_empty()) {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(fragment);
            }
            out.push(b']');
        } else {
            serde_json::to_writer(&mut out, value).map_err(error)?;
        }
    }
    out.push(b'}');
    Ok(Bytes::from(out))
}

/// Locks a mutex, ignoring poisoning (the cache holds no invariant a panic could break
/// halfway: it is replaced whole).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
#[path = "fragments_tests.rs"]
mod tests;
