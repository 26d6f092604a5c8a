//! Commands sent to a page without waiting for each answer.
//!
//! One page's commands are handled in the order they arrive, so a command that must come
//! before another (a key press before the next, a metrics reset before a capture) need not
//! wait for its answer first: [`send`] hands it to the page's channel now and its answer is
//! awaited later. A command future hands its message to the channel on its first poll (a
//! fresh sender always has room for one).

use std::pin::Pin;

use chromiumoxide::Page;
use chromiumoxide::error::CdpError;
use futures::future::MaybeDone;

/// A command's answer, with nothing kept but whether it failed.
pub(super) type Answer = futures::future::BoxFuture<'static, Result<(), CdpError>>;

/// The answer to `command`; its message goes to the page's channel on the answer's first
/// poll.
pub(super) fn answer<C: chromiumoxide::types::Command + Send + 'static>(
    page: &Page,
    command: C,
) -> Result<Answer, CdpError> {
    use futures::FutureExt;
    Ok(page
        .command_future(command)?
        .map(|answer| answer.map(drop))
        .boxed())
}

/// A command handed to the page's channel, its answer still to come.
pub(super) struct Sent(Pin<Box<MaybeDone<Answer>>>);

impl Sent {
    /// Waits for the answer.
    pub(super) async fn answer(mut self) -> Result<(), CdpError> {
        self.0.as_mut().await;
        self.0.as_mut().take_output().unwrap_or(Ok(()))
    }
}

/// Hands `answer`'s command to the page's channel now, without waiting for the answer.
pub(super) async fn send(answer: Answer) -> Sent {
    let mut sent = Box::pin(futures::future::maybe_done(answer));
    let _sent = futures::poll!(sent.as_mut());
    Sent(sent)
}

/// Sends the commands of `answers` in order without waiting between them, then waits for
/// every answer.
pub(super) async fn send_in_order(answers: Vec<Answer>) -> Result<(), CdpError> {
    let mut sent = Vec::with_capacity(answers.len());
    for answer in answers {
        sent.push(send(answer).await);
    }
    for sent in sent {
        sent.answer().await?;
    }
    Ok(())
}
