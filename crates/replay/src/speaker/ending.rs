//! How a replay ends: at a failure (filed, reported, then ended or handed to the model), at
//! its last step (reported, then ended or handed back to verify), or before it started.

use retrace_agent::speaker::SpeakerContext;
use retrace_agent::speaker::SpeakerResult;
use retrace_agent::speaker::SpeakerTurn;
use retrace_agent::speaker::StopCause;
use retrace_agent::speaker::TurnContext;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::events::FailureKind;
use retrace_protocol::events::ReplayFailure;
use retrace_protocol::events::ReplayStatus;

use super::ReplaySpeaker;
use super::Run;
use super::State;
use crate::messages;
use crate::request::OnMismatch;

impl ReplaySpeaker {
    /// Ends the replay at a failure: metadata (unless the step only needs the model), events,
    /// and the hand-over or the end.
    pub(super) async fn fail(
        &mut self,
        turn: &TurnContext<'_>,
        failure: ReplayFailure,
    ) -> SpeakerTurn {
        let State::Running(run) = std::mem::replace(&mut self.state, State::Idle) else {
            return SpeakerTurn::ending(
                Vec::new(),
                SpeakerResult::Failed(StopCause::Failed(failure.message)),
            );
        };
        let Run { plan, tally, .. } = *run;
        let paused = failure.kind == FailureKind::NeedsModel;
        if !paused && self.settings.write_metadata {
            self.metadata
                .record_failure(&plan.path, failure.step.saturating_sub(1), &failure.message)
                .await;
        }
        let status = if paused {
            ReplayStatus::Paused
        } else {
            ReplayStatus::Failed
        };
        tally.finish(turn.events, &plan, status, Some(failure.clone()));
        let (note, instruction) = if paused {
            (
                format!("Replay paused at step {}.", failure.step),
                failure.message.clone(),
            )
        } else {
            (
                messages::stopped(&failure),
                messages::hand_over(&failure, &plan),
            )
        };
        let note = Message::assistant(vec![ContentBlock::text(note)]);
        match &self.settings.on_mismatch {
            OnMismatch::Fail => SpeakerTurn::ending(
                vec![note],
                SpeakerResult::Failed(StopCause::Failed(failure.message)),
            ),
            OnMismatch::HandTo(speaker) => SpeakerTurn::ending(
                vec![note, Message::user_text(instruction)],
                SpeakerResult::SwitchTo {
                    speaker: speaker.clone(),
                    context: SpeakerContext::none(),
                    reason: if paused {
                        "non-cacheable step".into()
                    } else {
                        "replay step failed".into()
                    },
                },
            ),
        }
    }

    /// Ends a replay that ran to its end.
    pub(super) async fn complete(&mut self, turn: &TurnContext<'_>) -> SpeakerTurn {
        let State::Running(run) = std::mem::replace(&mut self.state, State::Idle) else {
            return SpeakerTurn::ending(Vec::new(), SpeakerResult::Done);
        };
        let Run { plan, tally, .. } = *run;
        if self.settings.write_metadata {
            self.metadata.record_completion(&plan.path).await;
        }
        tally.finish(turn.events, &plan, ReplayStatus::Passed, None);
        let summary = Message::assistant(vec![ContentBlock::text(messages::completed(&plan))]);
        match self.settings.hand_back_on_completion.clone() {
            Some(speaker) => SpeakerTurn::ending(
                vec![
                    summary,
                    Message::user_text(messages::VERIFY_AFTER_COMPLETION),
                ],
                SpeakerResult::SwitchTo {
                    speaker,
                    context: SpeakerContext::none(),
                    reason: "replay completed".into(),
                },
            ),
            None => SpeakerTurn::ending(vec![summary], SpeakerResult::Done),
        }
    }

    /// The turn after an activation that could not load its file.
    pub(super) fn cannot_start(&self, reason: String) -> SpeakerTurn {
        let note = Message::assistant(vec![ContentBlock::text(format!("Cannot replay: {reason}"))]);
        match &self.settings.on_mismatch {
            OnMismatch::Fail => {
                SpeakerTurn::ending(vec![note], SpeakerResult::Failed(StopCause::Failed(reason)))
            }
            OnMismatch::HandTo(speaker) => SpeakerTurn::ending(
                vec![note, Message::user_text(messages::could_not_start(&reason))],
                SpeakerResult::SwitchTo {
                    speaker: speaker.clone(),
                    context: SpeakerContext::none(),
                    reason: "replay could not start".into(),
                },
            ),
        }
    }
}
