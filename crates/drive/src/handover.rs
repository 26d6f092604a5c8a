//! A tool's request to hand the conversation to another speaker ([`SwitchRequest`]) and the
//! value that speaker is handed ([`SpeakerContext`]). They live beside the tool trait because
//! control tools (switching speaker, the cache tools) return them from `call`.

use std::any::Any;
use std::sync::Arc;

/// What a speaker is handed when the conversation switches to it: a typed value the speaker
/// knows how to read (the replay speaker reads a replay request), or JSON a model passed to
/// the `switch_speaker` tool. Typed, so no speaker parses a hand-built JSON object.
#[derive(Clone, Default)]
pub struct SpeakerContext(Option<Arc<dyn Any + Send + Sync>>);

impl std::fmt::Debug for SpeakerContext {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => formatter.write_str("SpeakerContext(none)"),
            Some(_) => formatter.write_str("SpeakerContext(..)"),
        }
    }
}

impl PartialEq for SpeakerContext {
    /// Two contexts are equal when both are empty or both are the same value.
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(left), Some(right)) => Arc::ptr_eq(left, right),
            _ => false,
        }
    }
}

impl SpeakerContext {
    /// No context.
    pub fn none() -> Self {
        Self(None)
    }

    /// A context holding `value`.
    pub fn of<T: Any + Send + Sync>(value: T) -> Self {
        Self(Some(Arc::new(value)))
    }

    /// The value, when the context holds one of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0
            .as_deref()
            .and_then(|value| value.downcast_ref::<T>())
    }

    /// Whether the context is empty.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}

/// A request to hand the conversation to another speaker after this tool's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchRequest {
    /// The speaker to switch to.
    pub speaker: String,
    /// What the speaker gets in `on_activate` (a replay request...).
    pub context: SpeakerContext,
    /// Why, for the event stream.
    pub reason: String,
}
