//! Network idleness of one page: requests in flight, tracked from CDP Network events.
//!
//! Long-lived connections (WebSocket, EventSource) and `data:` URLs never finish in the usual
//! sense, so they are not counted. Document requests (a navigation's) are also told apart: one
//! in flight is a navigation under way even before the frame says it started loading, which a
//! busy browser may not say until the response comes.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::network::EventLoadingFailed;
use chromiumoxide::cdp::browser_protocol::network::EventLoadingFinished;
use chromiumoxide::cdp::browser_protocol::network::EventRequestWillBeSent;
use chromiumoxide::cdp::browser_protocol::network::ResourceType;
use futures::StreamExt;
use futures::stream::BoxStream;

/// What a page's network is doing now.
#[derive(Debug)]
struct NetState {
    in_flight: HashSet<String>,
    /// The requests in flight that fetch a document (a frame's navigation).
    documents: HashSet<String>,
    /// Requests whose end was seen before their start: the three event streams are separate
    /// channels, merged without their order, so on a busy machine `loadingFinished` can be
    /// handled before `requestWillBeSent`. Such a request must not then count as in flight
    /// for ever.
    ended_early: HashSet<String>,
    last_change: Instant,
}

/// Counts a page's requests in flight; cheap to clone.
#[derive(Debug, Clone)]
pub struct NetworkTracker {
    state: Arc<Mutex<NetState>>,
}

enum NetEvent {
    /// A request began; `true` when it fetches a document.
    Started(String, bool),
    Ended(String),
}

impl NetworkTracker {
    /// Subscribes to `page`'s Network events and keeps counting until the page goes away.
    pub async fn attach(page: &Page) -> Result<Self, chromiumoxide::error::CdpError> {
        let started = page.event_listener::<EventRequestWillBeSent>().await?;
        let finished = page.event_listener::<EventLoadingFinished>().await?;
        let failed = page.event_listener::<EventLoadingFailed>().await?;
        let streams: Vec<BoxStream<'static, NetEvent>> = vec![
            started
                .filter_map(|event| async move {
                    let long_lived = matches!(
                        event.r#type,
                        Some(ResourceType::WebSocket | ResourceType::EventSource)
                    );
                    let document = event.r#type == Some(ResourceType::Document);
                    (!long_lived && !event.request.url.starts_with("data:"))
                        .then(|| NetEvent::Started(event.request_id.inner().clone(), document))
                })
                .boxed(),
            finished
                .map(|event| NetEvent::Ended(event.request_id.inner().clone()))
                .boxed(),
            failed
                .map(|event| NetEvent::Ended(event.request_id.inner().clone()))
                .boxed(),
        ];
        let tracker = Self {
            state: Arc::new(Mutex::new(NetState {
                in_flight: HashSet::new(),
                documents: HashSet::new(),
                ended_early: HashSet::new(),
                last_change: Instant::now(),
            })),
        };
        let state = Arc::clone(&tracker.state);
        tokio::spawn(async move {
            let mut events = futures::stream::select_all(streams);
            while let Some(event) = events.next().await {
                let Ok(mut state) = state.lock() else {
                    return;
                };
                match event {
                    NetEvent::Started(id, document) => {
                        if !state.ended_early.remove(&id) {
                            if document {
                                state.documents.insert(id.clone());
                            }
                            state.in_flight.insert(id);
                        }
                    }
                    NetEvent::Ended(id) => {
                        state.documents.remove(&id);
                        if !state.in_flight.remove(&id) {
                            state.ended_early.insert(id);
                        }
                    }
                }
                state.last_change = Instant::now();
            }
        });
        Ok(tracker)
    }

    /// How many requests are in flight and how long ago the count last changed.
    pub fn status(&self) -> (usize, Duration) {
        match self.state.lock() {
            Ok(state) => (state.in_flight.len(), state.last_change.elapsed()),
            Err(_) => (0, Duration::MAX),
        }
    }

    /// Whether a document request (a navigation's) is in flight.
    pub fn document_in_flight(&self) -> bool {
        self.state
            .lock()
            .is_ok_and(|state| !state.documents.is_empty())
    }

    /// Marks activity now, so an idle wait that starts right after an action gives the page
    /// time to issue the requests the action triggers.
    pub fn touch(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.last_change = Instant::now();
        }
    }
}
