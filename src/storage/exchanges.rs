//! A conversation's last exchange (the person's last message and the replies stored after it),
//! the history as it stood at that message, and replacing those replies with a new one: what
//! `/retry` reads and writes.
//!
//! A replaced reply is deleted, not kept beside the new one, so that prompts, `/export`, recall
//! and summaries see only the new answer: its full-text entry and its vector go with the row (the
//! triggers of the `messages_fts` and `memory_vectors` migrations), and a summary written from the
//! old answer is deleted with the session marked for summarizing again. Its token counts move to
//! the new reply, because the person did use them.

use super::Result;
use super::backend::Writing;
use super::{Backend, Store};
use super::{ConversationKey, NewMessage, Role, StoredMessage};

/// The person's last message in a conversation and the replies stored after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastExchange {
    pub message: StoredMessage,
    /// Oldest first; none when the message got no reply (the model failed, the turn stopped
    /// before it was stored).
    pub replies: Vec<ExchangeReply>,
}

/// A reply of a [`LastExchange`], with the Telegram messages that carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeReply {
    pub id: i64,
    pub content: String,
    pub tokens_in: i64,
    pub tokens_out: i64,
    /// In reading order; empty when it was never delivered to Telegram.
    pub telegram_message_ids: Vec<i64>,
}

/// A reply as read (by either backend), before the ids of its Telegram messages are put
/// together.
pub(super) struct ReplyRow {
    pub(super) id: i64,
    pub(super) content: String,
    pub(super) tokens_in: i64,
    pub(super) tokens_out: i64,
    pub(super) telegram_message_id: Option<i64>,
    pub(super) answer_message_ids: Option<String>,
}

impl From<ReplyRow> for ExchangeReply {
    fn from(row: ReplyRow) -> Self {
        // The messages recorded with the update it answered, when there were several (a preview,
        // the parts of a long reply); otherwise the one message recorded with the reply. The
        // column is only ever written as a JSON array of integers (`updates.rs`).
        let recorded: Vec<i64> = row
            .answer_message_ids
            .and_then(|ids| serde_json::from_str(&ids).ok())
            .unwrap_or_default();
        let telegram_message_ids = match row.telegram_message_id {
            Some(first) if recorded.first() == Some(&first) => recorded,
            Some(first) => vec![first],
            None => Vec::new(),
        };
        Self {
            id: row.id,
            content: row.content,
            tokens_in: row.tokens_in,
            tokens_out: row.tokens_out,
            telegram_message_ids,
        }
    }
}

impl Store {
    /// The conversation's last message from the person and the replies stored after it; `None`
    /// when the person has no message stored here.
    pub async fn last_exchange(&self, key: ConversationKey) -> Result<Option<LastExchange>> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let mut reader = db.reader().await?;
                let message = select!(
                    StoredMessage,
                    r#"FROM messages
                       WHERE chat_id = ?1 AND user_id = ?2 AND role = 'user'
                       ORDER BY created_at DESC, id DESC
                       LIMIT 1"#,
                    key.chat_id,
                    key.user_id,
                )
                .fetch_optional(&mut *reader)
                .await?;
                let Some(message) = message else {
                    return Ok(None);
                };
                let replies = sqlx::query_as!(
                    ReplyRow,
                    r#"SELECT reply.id AS "id!", reply.content, reply.tokens_in, reply.tokens_out,
                              reply.telegram_message_id, update_.answer_message_ids
                       FROM messages AS reply
                       LEFT JOIN processed_updates AS update_ ON update_.update_id = reply.update_id
                       WHERE reply.chat_id = ?1 AND reply.user_id = ?2 AND reply.role = 'assistant'
                         AND reply.id > ?3
                       ORDER BY reply.id"#,
                    key.chat_id,
                    key.user_id,
                    message.id,
                )
                .fetch_all(&mut *reader)
                .await?;
                Ok(Some(LastExchange {
                    message,
                    replies: replies.into_iter().map(ExchangeReply::from).collect(),
                }))
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let message = select!(
                    StoredMessage,
                    r#"FROM messages
                       WHERE chat_id = $1 AND user_id = $2 AND role = 'user'
                       ORDER BY created_at DESC, id DESC
                       LIMIT 1"#,
                    key.chat_id.0,
                    key.user_id.0,
                )
                .fetch_optional(&db.pool)
                .await?;
                let Some(message) = message else {
                    return Ok(None);
                };
                let replies = sqlx::query_as!(
                    ReplyRow,
                    r#"SELECT reply.id, reply.content, reply.tokens_in, reply.tokens_out,
                              reply.telegram_message_id, update_.answer_message_ids AS "answer_message_ids?"
                       FROM messages AS reply
                       LEFT JOIN processed_updates AS update_ ON update_.update_id = reply.update_id
                       WHERE reply.chat_id = $1 AND reply.user_id = $2 AND reply.role = 'assistant'
                         AND reply.id > $3
                       ORDER BY reply.id"#,
                    key.chat_id.0,
                    key.user_id.0,
                    message.id,
                )
                .fetch_all(&db.pool)
                .await?;
                Ok(Some(LastExchange {
                    message,
                    replies: replies.into_iter().map(ExchangeReply::from).collect(),
                }))
            }
        }
    }

    /// Like [`Store::history`], but only up to the message `through_id`: the history a prompt
    /// carried when that message was new.
    pub async fn history_through(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
        through_id: i64,
    ) -> Result<Vec<StoredMessage>> {
        run!(
            self.reader.fetch_all,
            // The inner query walks the (chat_id, user_id, created_at) index backwards from the
            // newest row and stops after `limit`; the outer one only reverses those few rows.
            // `+?4`, not `?4`: SQLite plans a bare `LIMIT ?` with the bound value and then
            // re-prepares the statement whenever a new value is bound; the unary plus hides it
            // from the planner.
            select!(
                StoredMessage,
                sqlite = r#"FROM (SELECT * FROM messages
                                  WHERE chat_id = ?1 AND user_id = ?2 AND created_at >= ?3 AND id <= ?5
                                  ORDER BY created_at DESC, id DESC
                                  LIMIT +?4)
                            ORDER BY created_at ASC, id ASC"#,
                postgres = r#"FROM (SELECT * FROM messages
                                    WHERE chat_id = $1 AND user_id = $2 AND created_at >= $3 AND id <= $5
                                    ORDER BY created_at DESC, id DESC
                                    LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END) AS latest
                              ORDER BY created_at ASC, id ASC"#,
                key.chat_id.0,
                key.user_id.0,
                since_ms,
                limit,
                through_id,
            ),
        )
    }

    /// Stores `reply` in place of the replies `replaced` (of the same conversation), in one
    /// transaction, and returns its id. With `update_id`, the reply answers that Telegram update,
    /// which it marks `replying` like any reply (see [`Store::add_reply`]). The session the reply
    /// belongs to loses a summary written before, and is summarized again. The person's daily
    /// usage counts the reply's tokens, and keeps what the replaced replies cost.
    pub async fn replace_replies(
        &self,
        replaced: &[i64],
        reply: &NewMessage<'_>,
        update_id: Option<i64>,
    ) -> Result<i64> {
        let (chat_id, user_id) = (reply.key.chat_id.0, reply.key.user_id.0);
        let content = self.storable(reply.content);
        #[cfg(feature = "sqlite")]
        let replaced_json =
            serde_json::to_string(replaced).map_err(|error| sqlx::Error::Encode(error.into()))?;
        begin!(self, transaction);
        self.messages_to_index();
        run_in!(
            transaction.execute,
            // `+` keeps SQLite from choosing the conversation's index (a scan of all its
            // messages) over the few ids' primary key.
            sqlite = sqlx::query!(
                "DELETE FROM messages
                 WHERE +chat_id = ?1 AND +user_id = ?2 AND role = 'assistant'
                   AND id IN (SELECT value FROM json_each(?3))",
                chat_id,
                user_id,
                replaced_json,
            ),
            postgres = sqlx::query!(
                "DELETE FROM messages
                 WHERE chat_id = $1 AND user_id = $2 AND role = 'assistant' AND id = ANY($3)",
                chat_id,
                user_id,
                replaced,
            ),
        )?;
        let id = run_in!(
            transaction.fetch_one,
            query_scalar!(
                sql = r#"INSERT INTO messages
                             (chat_id, user_id, session_id, role, content, created_at,
                              tokens_in, tokens_out, telegram_message_id, update_id)
                         VALUES ($1, $2, $3, 'assistant', $4, $5, $6, $7, NULL, $8)
                         RETURNING id AS "id!""#,
                chat_id,
                user_id,
                reply.session_id,
                &*content,
                reply.created_at_ms,
                reply.tokens_in,
                reply.tokens_out,
                update_id,
            ),
        )?;
        match transaction.statements() {
            #[cfg(feature = "sqlite")]
            Writing::Sqlite(transaction) => {
                super::usage::count_newest_messages(transaction, 1).await?;
            }
            // The trigger `messages_after_insert` counted it.
            #[cfg(feature = "postgres")]
            Writing::Postgres(_) => {}
        }
        transaction.delete_summary(reply.session_id).await?;
        run_in!(
            transaction.execute,
            query!(
                sql = "UPDATE sessions SET summarized = false, summary_attempts = 0, summary_retry_at = NULL
                       WHERE id = $1 AND summarized",
                reply.session_id,
            ),
        )?;
        transaction.commit().await?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(telegram_message_id: Option<i64>, answer_message_ids: Option<&str>) -> ReplyRow {
        ReplyRow {
            id: 1,
            content: "an answer".to_owned(),
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id,
            answer_message_ids: answer_message_ids.map(str::to_owned),
        }
    }

    fn telegram_ids(row: ReplyRow) -> Vec<i64> {
        ExchangeReply::from(row).telegram_message_ids
    }

    #[test]
    fn a_reply_is_carried_by_the_messages_recorded_with_its_update_when_they_start_with_it() {
        assert_eq!(telegram_ids(row(Some(7), Some("[7,8,9]"))), [7, 8, 9]);
        assert_eq!(telegram_ids(row(Some(7), None)), [7]);
        assert_eq!(telegram_ids(row(Some(7), Some("[]"))), [7]);
        // Recorded for a preview that was later replaced by a message of its own.
        assert_eq!(telegram_ids(row(Some(12), Some("[7]"))), [12]);
    }

    #[test]
    fn a_reply_never_delivered_has_no_telegram_messages() {
        assert!(telegram_ids(row(None, Some("[7]"))).is_empty());
    }
}
