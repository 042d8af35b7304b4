//! `/retry` on Telegram: a chat turn for the person's last message ([`Conversations::begin_retry`]),
//! whose answer takes the old answer's place in the history and in the chat.
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

use crate::conversation::{Retry, RetryStart};
use crate::metrics;
use crate::replies;
use crate::telegram::delivery::{self, Preview, ReplyTarget, deliver_reply, messages_needed};
use crate::telegram::turn::{
    TurnContext, TurnOutcome, ask_showing_progress, count_tokens, deliver_stored, usable_answer,
};

/// The retry itself, its answer starting in `preview`'s messages (those an earlier run sent for
/// it, if any).
pub(super) async fn retry_turn(
    turn: &TurnContext<'_>,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let retry = match turn.conversations.begin_retry(turn.key).await {
        Ok(RetryStart::Ready(retry)) => retry,
        Ok(RetryStart::LimitReached(reached)) => {
            let notice = replies::daily_limit_reached(turn.lang, &reached);
            return turn.answer_with_notice(preview, &notice).await;
        }
        Ok(RetryStart::NothingToRetry) => {
            let notice = replies::nothing_to_retry(turn.lang);
            return turn.answer_with_notice(preview, &notice).await;
        }
        Ok(RetryStart::StillRunning) => {
            let notice = replies::retry_while_running(turn.lang);
            return turn.answer_with_notice(preview, &notice).await;
        }
        Err(error) => {
            metrics::error("database");
            let notice = replies::internal_error(turn.lang);
            turn.answer_with_notice(preview, &notice).await?;
            return Err(error.context("could not start the retry"));
        }
    };
    let running = turn.start_running();
    let old_answer = OldAnswer::of(&retry);
    let in_place = old_answer.takes_the_new_one(turn, &preview);
    let preview = if in_place && preview.message_ids.is_empty() {
        // Before anything is sent for the /retry: a restart delivers into these messages.
        turn.answer.record(&old_answer.message_ids).await;
        Preview::of(old_answer.message_ids.clone())
    } else {
        preview
    };
    let (answer, preview) = ask_showing_progress(turn, &retry.turn, preview, running, "").await;
    let answer = match usable_answer(turn, &retry.turn, answer) {
        Ok(answer) => answer,
        Err(notice) if in_place => {
            return keep_old_answer(turn, &old_answer, preview, &notice).await;
        }
        Err(notice) => return turn.answer_with_notice(preview, &notice).await,
    };
    let text = &answer.completion().text;
    let fits = in_place && messages_needed(text) <= old_answer.message_ids.len();
    let preview = if fits {
        preview
    } else {
        old_answer.retire(turn).await;
        if in_place {
            // The new answer goes into messages of its own: no restart may put it into these.
            turn.answer.record(&[]).await;
        }
        Preview {
            message_ids: preview
                .message_ids
                .into_iter()
                .filter(|id| !old_answer.message_ids.contains(id))
                .collect(),
            next_edit_at: preview.next_edit_at,
        }
    };
    count_tokens(&answer);
    let reply_id = turn
        .conversations
        .finish_retry(&retry, answer.completion(), Some(turn.update_id))
        .await?;
    deliver_stored(turn, preview, reply_id, text).await
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

/// A retry that streamed into the old answer's messages and then failed: the old answer is shown
/// again as it was, and the failure's notice comes below it.
async fn keep_old_answer(
    turn: &TurnContext<'_>,
    old_answer: &OldAnswer,
    preview: Preview,
    notice: &str,
) -> anyhow::Result<TurnOutcome> {
    let target = ReplyTarget::answering(turn.message);
    let old_text = old_answer.single_text.as_deref().unwrap_or_default();
    if let Err(error) = deliver_reply(turn.bot, target, preview, old_text, &turn.answer).await {
        tracing::warn!(
            error = crate::telegram::errors::loggable(&error),
            "could not show the old answer again"
        );
    }
    turn.answer_with_notice(Preview::of(Vec::new()), notice)
        .await
}
