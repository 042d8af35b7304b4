//! `/retry` on Telegram: where the new answer to the person's last message shows
//! ([`RetryPlacement`]); the turn itself is `Conversations::take_turn`'s, its new answer taking the
//! old answer's place in the history.
//!
//! In the chat, the old answer's messages become the new answer when nothing came between them
//! and the `/retry` and the new answer fits in them: the new answer streams into them (with its
//! Stop button) and is edited in. Otherwise the new answer comes in messages of its own, and the
//! old one is edited to a short notice that a newer answer replaced it. A retry that fails leaves
//! the old answer as it was, with the failure's notice below it.
//!
//! A retry is crash-safe like any chat turn: the `/retry` stays `received` until the new answer
//! is stored (a crash before that retries again, the old answer still in place), and an answer
//! stored but not delivered is delivered after a restart into the messages recorded for the
//! `/retry`. The old answer's messages are retired before the new answer is stored, so that no
//! restart finds them still showing an answer the history no longer has.

use teloxide::types::MessageId;

use crate::conversation::Retry;
use crate::replies;
use crate::telegram::delivery::{self, Preview, ReplyTarget, deliver_reply, messages_needed};
use crate::telegram::turn_context::TurnContext;

/// Where a retry's new answer goes: into the old answer's messages, or messages of its own.
pub(super) struct RetryPlacement {
    old_answer: OldAnswer,
    /// Whether the new answer streams into the old answer's messages.
    pub(super) in_place: bool,
}

impl RetryPlacement {
    /// The placement for `retry`, whose answer starts in `preview`'s messages (those an earlier
    /// run sent for it, if any).
    pub(super) fn of(turn: &TurnContext<'_>, retry: &Retry, preview: &Preview) -> Self {
        let old_answer = OldAnswer::of(retry);
        let in_place = old_answer.takes_the_new_one(turn, preview);
        Self {
            old_answer,
            in_place,
        }
    }

    /// The messages the new answer starts in: the old answer's when it goes in their place,
    /// recorded before anything is sent for the `/retry`, so that a restart delivers into them.
    pub(super) async fn first_preview(&self, turn: &TurnContext<'_>, preview: Preview) -> Preview {
        if self.in_place && preview.message_ids.is_empty() {
            turn.answer.record(&self.old_answer.message_ids).await;
            Preview::of(self.old_answer.message_ids.clone())
        } else {
            preview
        }
    }

    /// Before the new answer `text` is stored: when it does not go into the old answer's
    /// messages (or no longer fits in them), the old answer is marked as replaced, and the
    /// messages it goes into are its own.
    pub(super) async fn make_way(
        &self,
        turn: &TurnContext<'_>,
        preview: Preview,
        text: &str,
    ) -> Preview {
        let old_ids = &self.old_answer.message_ids;
        if self.in_place && messages_needed(text) <= old_ids.len() {
            return preview;
        }
        self.old_answer.retire(turn).await;
        if self.in_place {
            // The new answer goes into messages of its own: no restart may put it into these.
            turn.answer.record(&[]).await;
        }
        Preview {
            message_ids: preview
                .message_ids
                .into_iter()
                .filter(|id| !old_ids.contains(id))
                .collect(),
            next_edit_at: preview.next_edit_at,
        }
    }

    /// A retry that streamed into the old answer's messages and then failed: the old answer is
    /// shown again as it was (the failure's notice comes below it).
    pub(super) async fn keep_old_answer(&self, turn: &TurnContext<'_>, preview: Preview) {
        let target = ReplyTarget::answering(turn.message);
        let old_text = self.old_answer.single_text.as_deref().unwrap_or_default();
        if let Err(error) = deliver_reply(turn.bot, target, preview, old_text, &turn.answer).await {
            tracing::warn!(
                error = crate::telegram::errors::loggable(&error),
                "could not show the old answer again"
            );
        }
    }
}

/// The answer a retry replaces, as the chat shows it.
struct OldAnswer {
    /// Its messages, in reading order; none when it never reached Telegram.
    message_ids: Vec<MessageId>,
    /// Its text when it is a single stored reply, which could show the new answer in its place.
    single_text: Option<String>,
}

impl OldAnswer {
    fn of(retry: &Retry) -> Self {
        let message_ids = retry
            .replaced_telegram_message_ids()
            .into_iter()
            .filter_map(|id| i32::try_from(id).ok().map(MessageId))
            .collect();
        let single_text = match retry.replaced.as_slice() {
            [reply] => Some(reply.content.clone()),
            _ => None,
        };
        Self {
            message_ids,
            single_text,
        }
    }

    /// Whether the new answer goes into the old answer's messages: when they are the last thing
    /// in the chat before the `/retry`. Telegram's message ids only grow, so that is when the
    /// last of them is just below the `/retry`'s id; when anything came between (or ids were
    /// skipped) the new answer gets messages of its own, which is always safe. A resumed retry
    /// keeps the choice its first run made, as the messages it recorded show.
    fn takes_the_new_one(&self, turn: &TurnContext<'_>, preview: &Preview) -> bool {
        if self.single_text.is_none() {
            return false;
        }
        if !preview.message_ids.is_empty() {
            return preview.message_ids == self.message_ids;
        }
        self.message_ids
            .last()
            .is_some_and(|last| last.0.checked_add(1) == Some(turn.message.id.0))
    }

    /// Edits the old answer into a notice that a newer answer replaced it. Only the look of the
    /// chat depends on it, so a failure is logged and the retry goes on.
    async fn retire(&self, turn: &TurnContext<'_>) {
        let chat_id = turn.message.chat.id;
        if let Err(error) = delivery::retire_messages(
            turn.bot,
            chat_id,
            &self.message_ids,
            &replies::replaced_by_newer(turn.lang),
        )
        .await
        {
            tracing::info!(
                error = crate::telegram::errors::loggable(&error),
                "could not mark the replaced answer"
            );
        }
    }
}
