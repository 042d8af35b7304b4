//! PostgreSQL: the last exchange of a conversation and replacing its replies (`/retry`). A
//! replaced reply is deleted (its vector goes with it, a trigger), and a summary written from it
//! is deleted with its session marked for summarizing again, as on SQLite.

use super::PgStore;
use super::messages::storable;
use crate::storage::exchanges::ReplyRow;
use crate::storage::{
    ConversationKey, ExchangeReply, LastExchange, NewMessage, Role, StoredMessage,
};

impl PgStore {
    /// The conversation's last message from the person and the replies stored after it; `None`
    /// when the person has no message stored here.
    pub async fn last_exchange(
        &self,
        key: ConversationKey,
    ) -> Result<Option<LastExchange>, sqlx::Error> {
        let message = sqlx::query_as!(
            StoredMessage,
            r#"SELECT id, chat_id, user_id, session_id, role AS "role: Role",
                      content, created_at AS created_at_ms, tokens_in, tokens_out,
                      telegram_message_id
               FROM messages
               WHERE chat_id = $1 AND user_id = $2 AND role = 'user'
               ORDER BY created_at DESC, id DESC
               LIMIT 1"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_optional(&self.pool)
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
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(LastExchange {
            message,
            replies: replies.into_iter().map(ExchangeReply::from).collect(),
        }))
    }

    /// Like `history`, but only up to the message `through_id`: the history a prompt carried
    /// when that message was new.
    pub async fn history_through(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
        through_id: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id AS "id!", chat_id AS "chat_id!", user_id AS "user_id!",
                      session_id AS "session_id!", role AS "role!: Role",
                      content AS "content!", created_at AS "created_at_ms!",
                      tokens_in AS "tokens_in!", tokens_out AS "tokens_out!",
                      telegram_message_id
               FROM (SELECT * FROM messages
                     WHERE chat_id = $1 AND user_id = $2 AND created_at >= $3 AND id <= $5
                     ORDER BY created_at DESC, id DESC
                     LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END) AS latest
               ORDER BY created_at ASC, id ASC"#,
            key.chat_id.0,
            key.user_id.0,
            since_ms,
            limit,
            through_id,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Stores `reply` in place of the replies `replaced` (of the same conversation), in one
    /// transaction, and returns its id. With `update_id`, the reply answers that Telegram update,
    /// which it marks `replying` like any reply. The session the reply belongs to loses a summary
    /// written before, and is summarized again.
    pub async fn replace_replies(
        &self,
        replaced: &[i64],
        reply: &NewMessage<'_>,
        update_id: Option<i64>,
    ) -> Result<i64, sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        sqlx::query!(
            "DELETE FROM messages
             WHERE chat_id = $1 AND user_id = $2 AND role = 'assistant' AND id = ANY($3)",
            reply.key.chat_id.0,
            reply.key.user_id.0,
            replaced,
        )
        .execute(&mut *transaction)
        .await?;
        let id = sqlx::query_scalar!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at,
                    tokens_in, tokens_out, telegram_message_id, update_id)
               VALUES ($1, $2, $3, 'assistant', $4, $5, $6, $7, NULL, $8)
               RETURNING id"#,
            reply.key.chat_id.0,
            reply.key.user_id.0,
            reply.session_id,
            &*storable(reply.content),
            reply.created_at_ms,
            reply.tokens_in,
            reply.tokens_out,
            update_id,
        )
        .fetch_one(&mut *transaction)
        .await?;
        sqlx::query!(
            "DELETE FROM session_summaries WHERE session_id = $1",
            reply.session_id,
        )
        .execute(&mut *transaction)
        .await?;
        sqlx::query!(
            "UPDATE sessions SET summarized = false, summary_attempts = 0, summary_retry_at = NULL
             WHERE id = $1 AND summarized",
            reply.session_id,
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(id)
    }
}
