//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) of one page, answered so
//! that nothing hangs.
//!
//! A dialog blocks its page: no script runs, and the input that opened it is not finished
//! until somebody answers. A headless page has nobody to answer, so every page gets a
//! [`DialogWatch`] that answers each dialog as soon as it opens (`Page.javascriptDialogOpening`,
//! `Page.handleJavaScriptDialog`): with the next answer a replay said to expect
//! ([`DialogWatch::expect`], in order, when the kind matches), else by dismissing it and
//! noting it as unexpected. The page's next input then fails naming the dialog
//! ([`DialogWatch::unexpected_error`]), so a replay stops at the step that opened it with the
//! dialog's message, and a model reads what happened.
//!
//! A page a person acts in (`retrace record`) is left to the person
//! ([`DialogWatch::leave_to_person`]), and [`report_answers`] reports how they answered.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::Mutex;

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::EventJavascriptDialogClosed;
use chromiumoxide::cdp::browser_protocol::page::EventJavascriptDialogOpening;
use chromiumoxide::cdp::browser_protocol::page::HandleJavaScriptDialogParams;
use futures::StreamExt;
use retrace_protocol::dialog::Dialog;

use super::connection::BACKEND;
use crate::error::DriveError;

/// What the watch knows: the answers still expected, the dialogs nobody expected.
#[derive(Debug, Default)]
struct DialogState {
    /// A person answers: the watch does nothing.
    person: bool,
    expected: VecDeque<Dialog>,
    unexpected: Vec<Dialog>,
}

/// Answers one page's dialogs; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct DialogWatch {
    state: Arc<Mutex<DialogState>>,
}

impl DialogWatch {
    /// Starts answering `page`'s dialogs until the page goes away.
    pub async fn attach(page: &Page) -> Result<Self, chromiumoxide::error::CdpError> {
        let mut opening = page
            .event_listener::<EventJavascriptDialogOpening>()
            .await?;
        let watch = Self::default();
        let state = Arc::clone(&watch.state);
        let page = page.clone();
        tokio::spawn(async move {
            while let Some(event) = opening.next().await {
                let kind = AsRef::<str>::as_ref(&event.r#type).to_owned();
                let Some(answer) = answer(&state, kind, event.message.clone()) else {
                    continue;
                };
                let mut params = HandleJavaScriptDialogParams::new(answer.accepted);
                params.prompt_text = answer.prompt_text;
                if let Err(error) = page.execute(params).await {
                    tracing::warn!(%error, "could not answer a dialog");
                }
            }
        });
        Ok(watch)
    }

    /// Answers the next dialogs with `dialogs`, in order (each taken by a dialog of its
    /// kind), instead of dismissing them; forgets earlier expectations (not the unexpected
    /// dialogs the next input names). An empty list expects none.
    pub fn expect(&self, dialogs: &[Dialog]) {
        if let Ok(mut state) = self.state.lock() {
            state.expected = dialogs.iter().cloned().collect();
        }
    }

    /// Leaves every dialog to the person acting in the page (its window is on a screen).
    pub fn leave_to_person(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.person = true;
        }
    }

    /// The error naming the dialogs that opened unexpected since the last look (each was
    /// dismissed), while `doing`; `Ok` when none did.
    pub fn unexpected_error(&self, doing: &str) -> Result<(), DriveError> {
        let unexpected = match self.state.lock() {
            Ok(mut state) => std::mem::take(&mut state.unexpected),
            Err(_) => Vec::new(),
        };
        if unexpected.is_empty() {
            return Ok(());
        }
        let named: Vec<String> = unexpected
            .iter()
            .map(|dialog| format!("{} '{}'", dialog.kind, dialog.message))
            .collect();
        Err(DriveError::UnexpectedDialog {
            backend: BACKEND.to_owned(),
            doing: doing.to_owned(),
            detail: format!(
                "an unexpected {} opened; retrace dismissed it",
                named.join(", then ")
            ),
        })
    }
}

/// How to answer a dialog of `kind` showing `message`: the next expected answer of that
/// kind, else a dismissal noted as unexpected; `None` when a person answers.
fn answer(state: &Mutex<DialogState>, kind: String, message: String) -> Option<Dialog> {
    let Ok(mut state) = state.lock() else {
        return None;
    };
    if state.person {
        return None;
    }
    if state.expected.front().is_some_and(|next| next.kind == kind) {
        return state.expected.pop_front();
    }
    let dismissed = Dialog {
        kind,
        message,
        accepted: false,
        prompt_text: None,
    };
    state.unexpected.push(dismissed.clone());
    Some(dismissed)
}

/// Passes each dialog the person answered to `report` (until it returns false): what opened
/// (kind, message) and, once it closed, their answer (and a prompt's text).
pub(super) async fn report_answers(
    opening: impl futures::Stream<Item = Arc<EventJavascriptDialogOpening>> + Unpin,
    closed: impl futures::Stream<Item = Arc<EventJavascriptDialogClosed>> + Unpin,
    report: impl Fn(Dialog) -> bool,
) {
    enum Seen {
        Opened(String, String),
        Closed(bool, String),
    }
    let opened = opening.map(|event| {
        Seen::Opened(
            AsRef::<str>::as_ref(&event.r#type).to_owned(),
            event.message.clone(),
        )
    });
    let answered = closed.map(|event| Seen::Closed(event.result, event.user_input.clone()));
    let mut events = futures::stream::select(opened, answered);
    let mut open = None;
    while let Some(seen) = events.next().await {
        match seen {
            Seen::Opened(kind, message) => open = Some((kind, message)),
            Seen::Closed(accepted, text) => {
                let Some((kind, message)) = open.take() else {
                    continue;
                };
                let prompt_text = (accepted && kind == "prompt").then_some(text);
                let dialog = Dialog {
                    kind,
                    message,
                    accepted,
                    prompt_text,
                };
                if !report(dialog) {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn dialog(kind: &str, accepted: bool) -> Dialog {
        Dialog {
            kind: kind.into(),
            message: "Sure?".into(),
            accepted,
            prompt_text: None,
        }
    }

    #[test]
    fn expected_answers_go_in_order_and_anything_else_is_dismissed_and_named() {
        let watch = DialogWatch::default();
        watch.expect(&[dialog("confirm", true)]);
        let first = answer(&watch.state, "confirm".into(), "Sure?".into()).unwrap();
        assert!(first.accepted);
        assert!(watch.unexpected_error("clicking").is_ok());
        let second = answer(&watch.state, "alert".into(), "Saved".into()).unwrap();
        assert!(!second.accepted);
        let error = watch.unexpected_error("clicking").unwrap_err().to_string();
        assert!(error.contains("unexpected alert 'Saved' opened"), "{error}");
        // Named once.
        assert!(watch.unexpected_error("clicking").is_ok());
        watch.leave_to_person();
        assert!(answer(&watch.state, "confirm".into(), "Sure?".into()).is_none());
    }
}
