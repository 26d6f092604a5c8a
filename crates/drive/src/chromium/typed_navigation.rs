//! Navigation a person makes through the browser itself (a URL typed in the address bar, a
//! suggestion or bookmark chosen), which the page never sees as an input: each new document
//! of the top frame is looked up in the tab's history (`Page.getNavigationHistory`), and one
//! whose transition came from the browser's own UI is reported (`retrace record` makes it a
//! `PageInput::Navigation`). Links, form submissions, scripts and reloads are not: the input
//! that caused them is recorded instead.

use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;
use chromiumoxide::cdp::browser_protocol::page::TransitionType;
use futures::StreamExt;

/// The history entry id nothing is reported up to: [`NOT_ARMED`] until the first page was
/// opened, then that page's entry (its navigation was retrace's, not the person's).
pub(super) type Baseline = Arc<AtomicI64>;

/// The baseline before the first page was opened: nothing is reported.
pub(super) const NOT_ARMED: i64 = i64::MIN;

/// Whether a transition comes from the browser's UI rather than the page.
fn from_browser_ui(transition: &TransitionType) -> bool {
    matches!(
        transition,
        TransitionType::Typed
            | TransitionType::AddressBar
            | TransitionType::Generated
            | TransitionType::AutoBookmark
            | TransitionType::Keyword
            | TransitionType::KeywordGenerated
    )
}

/// How long the history may stay unreadable after a navigation: right after a commit the page
/// answers "Not attached to an active page" until its new document is set up.
const HISTORY_BUDGET: Duration = Duration::from_secs(5);

/// Between two asks for it.
const HISTORY_POLL: Duration = Duration::from_millis(20);

/// The current history entry's id, URL and whether it came from the browser's UI.
async fn current_entry(page: &Page) -> Option<(i64, String, bool)> {
    let started = Instant::now();
    let history = loop {
        match page.execute(GetNavigationHistoryParams::default()).await {
            Ok(history) => break history,
            Err(error) if started.elapsed() > HISTORY_BUDGET => {
                tracing::debug!(%error, "the navigation history stayed unreadable");
                return None;
            }
            Err(_) => tokio::time::sleep(HISTORY_POLL).await,
        }
    };
    let index = usize::try_from(history.result.current_index).ok()?;
    let entry = history.result.entries.get(index)?;
    Some((
        entry.id,
        entry.url.clone(),
        from_browser_ui(&entry.transition_type),
    ))
}

/// Sets the baseline to the page's current entry: what was opened so far is not the person's.
pub(super) async fn arm(page: &Page, baseline: &Baseline) {
    let id = current_entry(page).await.map_or(0, |(id, _, _)| id);
    baseline.store(id, Ordering::SeqCst);
}

/// Passes the URL of each navigation of the top frame from the browser's UI past the
/// baseline to `report`, once each (until it returns false).
pub(super) async fn watch(
    page: Page,
    mut navigated: impl futures::Stream<Item = Arc<EventFrameNavigated>> + Unpin,
    baseline: Baseline,
    report: impl Fn(String) -> bool,
) {
    while let Some(event) = navigated.next().await {
        if event.frame.parent_id.is_some() {
            continue;
        }
        let Some((id, url, typed)) = current_entry(&page).await else {
            continue;
        };
        let armed = baseline.load(Ordering::SeqCst);
        tracing::debug!(id, typed, armed, "the top frame navigated");
        if !typed || armed == NOT_ARMED || id <= armed {
            continue;
        }
        baseline.store(id, Ordering::SeqCst);
        if !report(url) {
            break;
        }
    }
}
