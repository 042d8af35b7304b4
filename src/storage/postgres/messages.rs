//! PostgreSQL: storing messages and reading a conversation's history. The triggers of the schema
//! (`messages_after_insert`, `messages_after_update`) keep sessions, people, updates, daily usage
//! and stored bytes current in the same statement, as on SQLite.

use std::borrow::Cow;

use super::PgStore;
use crate::storage::NewMessage;
use crate::storage::Result;

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
    /// Inserts `message` as a user's message; its id, or `None` when the same Telegram message
    /// is stored already.
    pub(in crate::storage) async fn insert_user_message_unless_stored(
        &self,
        message: &NewMessage<'_>,
    ) -> Result<Option<i64>> {
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
}
