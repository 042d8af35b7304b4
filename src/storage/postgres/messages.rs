//! PostgreSQL: storing messages and reading a conversation's history. The triggers of the schema
//! (`messages_after_insert`, `messages_after_update`) keep sessions, people, updates, daily usage
//! and stored bytes current in the same statement, as on SQLite.

use std::borrow::Cow;

use super::PgStore;
use crate::storage::{ConversationKey, NewMessage, Role, StoredMessage};

/// How often [`PgStore::add_user_message_once`] tries again when the stored copy it collided with
/// is gone by the time it looks it up (deleted by `/clear` in between).
const STORE_ONCE_ATTEMPTS: usize = 3;

/// `text` as PostgreSQL can store it: TEXT cannot hold the NUL character, which Telegram's JSON
/// can carry, so each one becomes U+FFFD (the replacement character) instead of failing the
/// write. SQLite stores NUL as it is.
pub(super) fn storable(text: &str) -> Cow<'_, str> {
    if text.contains('\0') {
        Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(text)
    }
}

impl PgStore {
    /// Stores a message and returns its id. Its session's last activity moves forward with it
    /// (a trigger does that in the same statement).
    pub async fn add_message(&self, message: &NewMessage<'_>) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at,
                    tokens_in, tokens_out, telegram_message_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
               RETURNING id"#,
            message.key.chat_id.0,
            message.key.user_id.0,
            message.session_id,
            message.role as Role,
            &*storable(message.content),
            message.created_at_ms,
            message.tokens_in,
            message.tokens_out,
            message.telegram_message_id,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Stores the bot's reply to the Telegram update `update_id` (if any) and, in the same
    /// statement (a trigger), marks that update as `replying`: after a crash the reply is in the
    /// history and the update is not answered a second time. Returns the reply's id.
    pub async fn add_reply(
        &self,
        reply: &NewMessage<'_>,
        update_id: Option<i64>,
    ) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at,
                    tokens_in, tokens_out, telegram_message_id, update_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
               RETURNING id"#,
            reply.key.chat_id.0,
            reply.key.user_id.0,
            reply.session_id,
            reply.role as Role,
            &*storable(reply.content),
            reply.created_at_ms,
            reply.tokens_in,
            reply.tokens_out,
            reply.telegram_message_id,
            update_id,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Stores a user's message unless the same Telegram message (chat and message id) is already
    /// stored, as when an update is handled again after a crash or by two replicas at once.
    /// Returns the message's id and whether it was new.
    pub async fn add_user_message_once(
        &self,
        message: &NewMessage<'_>,
    ) -> Result<(i64, bool), sqlx::Error> {
        // `ON CONFLICT DO NOTHING` waits for a replica inserting the same message to commit, so
        // the look-up after it (a statement of its own, with a fresh snapshot) finds that row.
        for _ in 0..STORE_ONCE_ATTEMPTS {
            if let Some(id) = self.insert_user_message_unless_stored(message).await? {
                return Ok((id, true));
            }
            let stored = sqlx::query_scalar!(
                r#"SELECT id FROM messages
                   WHERE chat_id = $1 AND telegram_message_id = $2 AND role = 'user'"#,
                message.key.chat_id.0,
                message.telegram_message_id,
            )
            .fetch_optional(&self.pool)
            .await?;
            if let Some(id) = stored {
                return Ok((id, false));
            }
        }
        Err(sqlx::Error::Protocol(
            "a user's message was neither stored nor found".into(),
        ))
    }

    /// Inserts `message` as a user's message; its id, or `None` when the same Telegram message
    /// is stored already.
    async fn insert_user_message_unless_stored(
        &self,
        message: &NewMessage<'_>,
    ) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query_scalar!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at,
                    tokens_in, tokens_out, telegram_message_id)
               VALUES ($1, $2, $3, 'user', $4, $5, $6, $7, $8)
               ON CONFLICT DO NOTHING
               RETURNING id"#,
            message.key.chat_id.0,
            message.key.user_id.0,
            message.session_id,
            &*storable(message.content),
            message.created_at_ms,
            message.tokens_in,
            message.tokens_out,
            message.telegram_message_id,
        )
        .fetch_optional(&self.pool)
        .await
    }

    /// Records which Telegram message carried a stored reply; for a reply that answers a
    /// Telegram update, the same statement marks that update `done` (a trigger).
    pub async fn set_telegram_message_id(
        &self,
        message_id: i64,
        telegram_message_id: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE messages SET telegram_message_id = $2 WHERE id = $1",
            message_id,
            telegram_message_id,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The conversation's last `limit` messages created at or after `since_ms`, oldest first.
    /// A negative `limit` means no limit, as SQLite reads it.
    pub async fn history(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        // The inner query walks the (chat_id, user_id, created_at) index backwards from the newest
        // row and stops after `limit`; the outer one only reverses those few rows.
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id AS "id!", chat_id AS "chat_id!", user_id AS "user_id!",
                      session_id AS "session_id!", role AS "role!: Role",
                      content AS "content!", created_at AS "created_at_ms!",
                      tokens_in AS "tokens_in!", tokens_out AS "tokens_out!",
                      telegram_message_id
               FROM (SELECT * FROM messages
                     WHERE chat_id = $1 AND user_id = $2 AND created_at >= $3
                     ORDER BY created_at DESC, id DESC
                     LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END) AS latest
               ORDER BY created_at ASC, id ASC"#,
            key.chat_id.0,
            key.user_id.0,
            since_ms,
            limit,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Every message of the conversation, oldest first (for exports).
    pub async fn all_messages(
        &self,
        key: ConversationKey,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id, chat_id, user_id, session_id, role AS "role: Role",
                      content, created_at AS created_at_ms, tokens_in, tokens_out,
                      telegram_message_id
               FROM messages
               WHERE chat_id = $1 AND user_id = $2
               ORDER BY created_at ASC, id ASC"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// The text stored for the person's Telegram message `telegram_message_id` in `key`'s
    /// conversation, if it was stored (a turn started before a crash): a voice note's transcript
    /// is then not asked for again.
    pub async fn user_message_text(
        &self,
        key: ConversationKey,
        telegram_message_id: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT content FROM messages
               WHERE chat_id = $1 AND telegram_message_id = $2 AND role = 'user'
                 AND user_id = $3"#,
            key.chat_id.0,
            telegram_message_id,
            key.user_id.0,
        )
        .fetch_optional(&self.pool)
        .await
    }

    /// Every message of one session, oldest first (for its summary).
    pub async fn session_messages(
        &self,
        session_id: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id, chat_id, user_id, session_id, role AS "role: Role",
                      content, created_at AS created_at_ms, tokens_in, tokens_out,
                      telegram_message_id
               FROM messages
               WHERE session_id = $1
               ORDER BY created_at ASC, id ASC"#,
            session_id,
        )
        .fetch_all(&self.pool)
        .await
    }
}
