//! PostgreSQL: storing messages and reading a conversation's history. The triggers of the schema
//! (`messages_after_insert`, `messages_after_update`) keep sessions, people, updates, daily usage
//! and stored bytes current in the same statement, as on SQLite.

use std::borrow::Cow;

use super::PgStore;
use crate::storage::Result;
use crate::storage::{NewMessage, Role};

/// How often `Store::add_user_message_once` (PostgreSQL) tries again when the stored copy it collided with
/// is gone by the time it looks it up (deleted by `/clear` in between).
pub(in crate::storage) const STORE_ONCE_ATTEMPTS: usize = 3;

/// `text` as PostgreSQL can store it: TEXT cannot hold the NUL character, which Telegram's JSON
/// can carry, so each one becomes U+FFFD (the replacement character) instead of failing the
/// write. SQLite stores NUL as it is.
pub(in crate::storage) fn storable(text: &str) -> Cow<'_, str> {
    if text.contains('\0') {
        Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(text)
    }
}

impl PgStore {
    /// Inserts `message` with the role `role`, answering the Telegram update `update_id` if any;
    /// its id, or `None` when the same Telegram message is stored already (only a user's
    /// message can be: a person's Telegram message is stored once).
    pub(in crate::storage) async fn insert_message(
        &self,
        message: &NewMessage<'_>,
        role: Role,
        update_id: Option<i64>,
    ) -> Result<Option<i64>> {
        sqlx::query_scalar!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at,
                    tokens_in, tokens_out, telegram_message_id, update_id)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
               ON CONFLICT DO NOTHING
               RETURNING id"#,
            message.key.chat_id.0,
            message.key.user_id.0,
            message.session_id,
            role as Role,
            &*storable(message.content),
            message.created_at_ms,
            message.tokens_in,
            message.tokens_out,
            message.telegram_message_id,
            update_id,
        )
        .fetch_optional(&self.pool)
        .await
    }

    /// Inserts `message` like [`Self::insert_message`], failing when it is stored already.
    pub(in crate::storage) async fn insert_new_message(
        &self,
        message: &NewMessage<'_>,
        update_id: Option<i64>,
    ) -> Result<i64> {
        self.insert_message(message, message.role, update_id)
            .await?
            .ok_or_else(|| sqlx::Error::Protocol("this Telegram message is stored already".into()))
    }
}
