//! Asking the model in a way the person can stop. The turn waits for its model call and for its
//! stop token ([`RunningTurn`]) together; a stop drops the call at once, which closes the
//! connection to the provider, and keeps the text written so far, marked as stopped. That marked
//! text is the turn's reply: what the person sees and what history keeps.

use tokio::sync::watch;

use super::{Conversations, Turn};
use crate::ids::ConversationKey;
use crate::llm::{Completion, LlmError};
use crate::replies;
use crate::running_turns::RunningTurn;

/// What came of asking the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The model finished its reply.
    Complete(Completion),
    /// The person stopped the reply: the text written so far, marked as stopped, without usage
    /// figures (the provider reports them at the end, which never came).
    Stopped(Completion),
}

impl Answer {
    pub fn completion(&self) -> &Completion {
        match self {
            Self::Complete(completion) | Self::Stopped(completion) => completion,
        }
    }

    pub fn is_stopped(&self) -> bool {
        matches!(self, Self::Stopped(_))
    }
}

impl Conversations {
    /// Registers a turn of `key` as running, for `origin` (Telegram: the update it answers), until
    /// the returned guard is dropped; [`Conversations::stop_running`] stops it.
    pub fn start_running(&self, key: ConversationKey, origin: Option<i64>) -> RunningTurn {
        self.running.start(key, origin)
    }

    /// Stops the turn running in `key`'s conversation (only the one started for `origin`, when
    /// given). Returns whether there was one.
    pub fn stop_running(&self, key: ConversationKey, origin: Option<i64>) -> bool {
        self.running.stop(key, origin)
    }

    /// [`Conversations::ask`], unless `running` is stopped first: then the model call is dropped
    /// and the answer is what `progress` showed so far, marked as stopped. A turn stopped before
    /// the call does not call the model at all.
    pub async fn ask_until_stopped(
        &self,
        turn: &Turn,
        progress: Option<&watch::Sender<String>>,
        running: &RunningTurn,
    ) -> Result<Answer, LlmError> {
        if !running.is_stopped() {
            tokio::select! {
                biased;
                () = running.stopped() => {}
                answer = self.ask(turn, progress) => return answer.map(Answer::Complete),
            }
        }
        // A line saying which tool runs is not part of the reply.
        let so_far = progress
            .map(|progress| progress.borrow().clone())
            .filter(|text| !super::tools::is_activity_line(text));
        Ok(Answer::Stopped(Completion {
            text: marked_as_stopped(so_far.as_deref().unwrap_or_default()),
            tokens_in: None,
            tokens_out: None,
            tool_calls: Vec::new(),
        }))
    }
}

/// `so_far` with the stop mark after it. A code block left open is closed first, so that the
/// mark does not read as code.
fn marked_as_stopped(so_far: &str) -> String {
    let text = so_far.trim_end();
    if text.is_empty() {
        return replies::STOPPED.to_owned();
    }
    let fences = text
        .lines()
        .filter(|line| line.trim_start().starts_with("```"))
        .count();
    if fences % 2 == 1 {
        format!("{text}\n```\n… {}", replies::STOPPED)
    } else {
        format!("{text} … {}", replies::STOPPED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_mark_follows_the_text_so_far() {
        assert_eq!(
            marked_as_stopped("Once upon a time "),
            format!("Once upon a time … {}", replies::STOPPED)
        );
    }

    #[test]
    fn a_reply_stopped_before_any_text_is_the_mark_alone() {
        assert_eq!(marked_as_stopped(" \n"), replies::STOPPED);
    }

    #[test]
    fn an_open_code_block_is_closed_before_the_mark() {
        assert_eq!(
            marked_as_stopped("Here:\n```rust\nfn main() {"),
            format!("Here:\n```rust\nfn main() {{\n```\n… {}", replies::STOPPED)
        );
        assert_eq!(
            marked_as_stopped("```\ncode\n```\nand then"),
            format!("```\ncode\n```\nand then … {}", replies::STOPPED)
        );
    }
}
