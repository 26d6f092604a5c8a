//! `max_sessions`: a process-wide limit on concurrent sessions per endpoint, so runs in
//! parallel never hold more sessions on one farm or Grid than it allows (or than the user
//! pays for). A session takes a slot before it is created and frees it only after it has
//! ended (the Grid session deleted), so the next run cannot overlap it.
//!
//! Endpoints are told apart by [`super::Endpoint::limit_key`] (scheme, host, port, path). The
//! first limit given for an endpoint in this process is the one that holds.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::OnceLock;

use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::Semaphore;

/// One endpoint's slots.
#[derive(Debug)]
struct Slots {
    limit: usize,
    semaphore: Arc<Semaphore>,
}

fn registry() -> &'static Mutex<HashMap<String, Slots>> {
    static REGISTRY: OnceLock<Mutex<HashMap<String, Slots>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A held session slot; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct SessionSlot {
    _permit: Option<OwnedSemaphorePermit>,
}

/// Takes one of `key`'s `limit` slots, waiting for one to be freed when all are taken (then
/// calling `on_wait` once, with the limit in force, before waiting).
pub(crate) async fn acquire(
    key: &str,
    limit: NonZeroUsize,
    on_wait: impl FnOnce(usize),
) -> SessionSlot {
    let (semaphore, limit) = {
        let mut registry = registry()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slots = registry.entry(key.to_owned()).or_insert_with(|| Slots {
            limit: limit.get(),
            semaphore: Arc::new(Semaphore::new(limit.get())),
        });
        if slots.limit != limit.get() {
            tracing::warn!(
                endpoint = key,
                first = slots.limit,
                given = limit.get(),
                "another max_sessions was set for this endpoint earlier in this process; it holds"
            );
        }
        (Arc::clone(&slots.semaphore), slots.limit)
    };
    let permit = match Arc::clone(&semaphore).try_acquire_owned() {
        Ok(permit) => Some(permit),
        Err(_) => {
            on_wait(limit);
            // Fails only on a closed semaphore, and these are never closed.
            semaphore.acquire_owned().await.ok()
        }
    };
    SessionSlot { _permit: permit }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_full_endpoint_makes_the_next_session_wait_for_a_freed_slot() {
        let key = "ws://limits-test:1/";
        let two = NonZeroUsize::new(2).unwrap();
        let first = acquire(key, two, |_| panic!("a free slot was there")).await;
        let _second = acquire(key, two, |_| panic!("a free slot was there")).await;
        let (waited_tx, waited_rx) = tokio::sync::oneshot::channel();
        let third = tokio::spawn(async move {
            // A different limit later does not change the first.
            acquire(key, NonZeroUsize::new(5).unwrap(), move |limit| {
                let _ = waited_tx.send(limit);
            })
            .await
        });
        assert_eq!(waited_rx.await.unwrap(), 2);
        assert!(!third.is_finished());
        drop(first);
        tokio::time::timeout(Duration::from_secs(30), third)
            .await
            .unwrap()
            .unwrap();
        // Other endpoints are counted apart.
        let _other = acquire("ws://limits-test:2/", two, |_| panic!("separate")).await;
    }
}
