//! `/retry`: the model is asked again for the person's last message, with the context that message
//! had (the history up to it, as of when it was written, without the answer it got), and the new
//! answer takes the old one's place in the history ([`Store::replace_replies`]). Like a turn, a
//! retry is begun, asked ([`Conversations::ask_until_stopped`], so it can be stopped too) and
//! finished; where the new answer shows is the front end's business.
//!
//! [`Store::replace_replies`]: crate::storage::Store::replace_replies

use anyhow::Context;

use super::turn::reply_usage;
use super::{Conversations, Turn, TurnRecord};
use crate::ids::ConversationKey;
use crate::llm::Completion;
use crate::quota::LimitReached;
use crate::storage::{ExchangeReply, NewMessage, Role};

/// A retry ready to ask the model.
#[derive(Clone, Debug)]
pub struct Retry {
    /// The turn of the person's last message, its prompt assembled again.
    pub turn: Turn,
    /// The stored replies the new answer replaces, oldest first: usually one, none when the
    /// message got no answer (the model had failed).
    pub replaced: Vec<ExchangeReply>,
}

impl Retry {
    /// The Telegram messages that show the answers being replaced, in reading order.
    pub fn replaced_telegram_message_ids(&self) -> Vec<i64> {
        self.replaced
            .iter()
            .flat_map(|reply| reply.telegram_message_ids.iter().copied())
            .collect()
    }
}

/// How a retry starts.
#[derive(Clone, Debug)]
pub enum RetryStart {
    Ready(Retry),
    /// The person has no message in this conversation.
    NothingToRetry,
    /// A turn of the conversation is still running: its answer is not there to replace yet.
    StillRunning,
    /// The person used up their daily tokens: a retry asks the model like any turn.
    LimitReached(LimitReached),
}

impl Conversations {
    /// Finds the person's last message and assembles its prompt again, as of when it was
    /// written: the history up to it, the summaries and recall of that moment (the persona and
    /// the notes as they are now). A summary of the message's own session is left out, since it
    /// was written from the answer being replaced.
    pub async fn begin_retry(&self, key: ConversationKey) -> anyhow::Result<RetryStart> {
        if let Some(reached) = self.daily_limit_reached(key.user_id).await {
            return Ok(RetryStart::LimitReached(reached));
        }
        if self.running.is_running(key) {
            return Ok(RetryStart::StillRunning);
        }
        // Incognito answers are not stored, so there is none to replace; the last stored one
        // belongs to the conversation before the switch.
        if self.incognito(key).await? {
            return Ok(RetryStart::NothingToRetry);
        }
        let exchange = self
            .store
            .last_exchange(key)
            .await
            .context("cannot read the last message")?;
        let Some(exchange) = exchange else {
            return Ok(RetryStart::NothingToRetry);
        };
        let message = exchange.message;
        let asked_at_ms = message.created_at_ms;
        let mut start = self.turn_start(key, asked_at_ms).await?;
        start.history = self.history_through(key, asked_at_ms, message.id).await?;
        start
            .summaries
            .retain(|summary| summary.session_id != message.session_id);
        let (session_id, user_message_id) = (message.session_id, message.id);
        let zone = self.person_zone(&start);
        let assembled = self
            .assemble_context(key, asked_at_ms, start, message)
            .await?;
        Ok(RetryStart::Ready(Retry {
            turn: Turn::stored(key, assembled, session_id, user_message_id, zone),
            replaced: exchange.replies,
        }))
    }

    /// Stores the new answer in place of the replaced ones, with their token usage added to its
    /// own (the person used those tokens too). With `update_id`, the Telegram update of the
    /// `/retry` is marked as being answered in the same transaction, as
    /// [`Conversations::finish_turn`] does. Returns the new reply's id.
    pub async fn finish_retry(
        &self,
        retry: &Retry,
        completion: &Completion,
        update_id: Option<i64>,
    ) -> anyhow::Result<i64> {
        let TurnRecord::Stored { session_id, .. } = retry.turn.record else {
            anyhow::bail!("a retry is always of a stored turn");
        };
        let (tokens_in, tokens_out) = reply_usage(&retry.turn, completion);
        let replaced_ids: Vec<i64> = retry.replaced.iter().map(|reply| reply.id).collect();
        let reply = NewMessage {
            key: retry.turn.key,
            session_id,
            role: Role::Assistant,
            content: &completion.text,
            created_at_ms: self.clock.now_ms(),
            tokens_in: tokens_in + retry.replaced.iter().map(|r| r.tokens_in).sum::<i64>(),
            tokens_out: tokens_out + retry.replaced.iter().map(|r| r.tokens_out).sum::<i64>(),
            telegram_message_id: None,
        };
        self.store
            .replace_replies(&replaced_ids, &reply, update_id)
            .await
            .context("cannot store the new answer")
    }
}
