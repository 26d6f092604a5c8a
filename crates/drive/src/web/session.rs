//! One session: a page and the variables saved in it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;

use crate::backend::BrowserBackend;

/// One page of the executor and its variables.
pub(super) struct Session {
    pub(super) page: Arc<dyn BrowserBackend>,
    pub(super) variables: Mutex<BTreeMap<String, String>>,
}

/// Locks a mutex whose data stays consistent even if a holder panicked (plain maps,
/// replaced whole), so poisoning is not an error here.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
