//! Progress notifications from a run's event stream: a sink turns the events that finish a
//! piece of work (a test, a page) into lines, and a task sends each as a notification of the
//! call, numbered against the total. The sink never waits (the run calls it inline); the
//! task does the sending.

use std::sync::Arc;

use retrace_protocol::events::Event;
use retrace_protocol::events::EventSink;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::mcp::call::CallContext;

/// The line for an event that finishes a piece of work; `None` for the others.
pub type LineOf = fn(&Event) -> Option<String>;

struct Lines {
    sender: mpsc::UnboundedSender<String>,
    line: LineOf,
}

impl EventSink for Lines {
    fn emit(&self, event: &Event) {
        if let Some(line) = (self.line)(event) {
            let _ = self.sender.send(line);
        }
    }
}

/// A sink for the run's events and the task sending `context`'s notifications: `0/total
/// started`, then one per finished piece. The task ends once every clone of the sink is
/// dropped; await it before the result so the notifications come first.
pub fn forward(
    context: &CallContext,
    total: usize,
    line: LineOf,
) -> (Arc<dyn EventSink>, JoinHandle<()>) {
    let (sender, mut lines) = mpsc::unbounded_channel::<String>();
    let context = context.clone();
    let task = tokio::spawn(async move {
        context.progress(0, total, "started").await;
        let mut done = 0;
        while let Some(line) = lines.recv().await {
            done += 1;
            context.progress(done, total, &line).await;
        }
    });
    (Arc::new(Lines { sender, line }), task)
}
