//! Stored messages: adding one (which also marks its session active, and for a user's message
//! the user's activity) and reading a conversation's recent history.

use super::Result;
#[cfg(feature = "sqlite")]
use super::combined::{MessageRow, Write};
#[cfg(feature = "postgres")]
use super::postgres::messages::STORE_ONCE_ATTEMPTS;
use super::{Backend, Store};
use super::{ChatId, ConversationKey, Role, UserId};

/// A message about to be stored.
#[derive(Clone, Debug)]
pub struct NewMessage<'a> {
    pub key: ConversationKey,
    pub session_id: i64,
    pub role: Role,
    pub content: &'a str,
    pub created_at_ms: i64,
    pub tokens_in: i64,
    pub tokens_out: i64,
    pub telegram_message_id: Option<i64>,
}

/// A reply that was stored but whose delivery was never recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndeliveredReply {
    pub id: i64,
    pub content: String,
}

/// A message as stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::FromRow)]
pub struct StoredMessage {
    pub id: i64,
    pub chat_id: ChatId,
    pub user_id: UserId,
    pub session_id: i64,
    pub role: Role,
    pub content: String,
    pub created_at_ms: i64,
    pub tokens_in: i64,
    pub tokens_out: i64,
    pub telegram_message_id: Option<i64>,
}

impl StoredMessage {
    /// A message of `key`'s conversation as a prompt sees it: no tokens counted and no Telegram
    /// message yet (set the fields that differ with struct update syntax).
    pub fn new(
        id: i64,
        key: ConversationKey,
        session_id: i64,
        role: Role,
        content: impl Into<String>,
        created_at_ms: i64,
    ) -> Self {
        Self {
            id,
            chat_id: key.chat_id,
            user_id: key.user_id,
            session_id,
            role,
            content: content.into(),
            created_at_ms,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id: None,
        }
    }
}

impl Store {
    /// Stores a message and returns its id. Its session's last activity moves forward with it
    /// (a trigger does that in the same statement), and the person's daily usage counts it.
    pub async fn add_message(&self, message: &NewMessage<'_>) -> Result<i64> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let mut writer = db.writer().await?;
                db.connections.messages_to_index();
                // One transaction sent as one command, like a round of `combined`. `fetch_all`:
                // the first row would end the command before the statements after it run.
                let inserted = sqlx::query_scalar!(
                    r#"BEGIN IMMEDIATE;
                       INSERT INTO messages
                           (chat_id, user_id, session_id, role, content, created_at,
                            tokens_in, tokens_out, telegram_message_id)
                       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                       RETURNING id AS "id!";
                       INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
                       SELECT user_id, created_at - created_at % 86400000, role = 'user',
                              tokens_in + tokens_out
                       FROM messages WHERE id = last_insert_rowid()
                       ON CONFLICT (user_id, day_start_at) DO UPDATE
                           SET messages = messages + excluded.messages,
                               tokens = tokens + excluded.tokens;
                       COMMIT"#,
                    message.key.chat_id,
                    message.key.user_id,
                    message.session_id,
                    message.role,
                    message.content,
                    message.created_at_ms,
                    message.tokens_in,
                    message.tokens_out,
                    message.telegram_message_id,
                )
                .fetch_all(&mut *writer)
                .await;
                match inserted.map(|ids| ids.first().copied()) {
                    Ok(Some(id)) => Ok(id),
                    Ok(None) => Err(sqlx::Error::RowNotFound),
                    Err(error) => {
                        // Statements after a failing one do not run: roll back what it began.
                        super::roll_back_failed_command(&mut writer).await;
                        Err(error)
                    }
                }
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.insert_new_message(message, None).await,
        }
    }

    /// Stores the bot's reply to the Telegram update `update_id` (if any) and, in the same
    /// statement (a trigger, see the `turn_writes` migration), marks that update as `replying`:
    /// after a crash the reply is in the history and the update is not answered a second time.
    /// Returns the reply's id. Written together with the other turns' messages (`combined`).
    pub async fn add_reply(&self, reply: &NewMessage<'_>, update_id: Option<i64>) -> Result<i64> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let row = MessageRow::new(reply, reply.role, update_id)?;
                let (id, _) = db.queue_write(|done| Write::Message { row, done }).await?;
                Ok(id)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.insert_new_message(reply, update_id).await,
        }
    }

    /// Stores a user's message unless the same Telegram message (chat and message id) is already
    /// stored, as when an update is handled again after a crash. Returns the message's id and
    /// whether it was new. Written together with the other turns' messages (`combined`).
    pub async fn add_user_message_once(&self, message: &NewMessage<'_>) -> Result<(i64, bool)> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let row = MessageRow::new(message, Role::User, None)?;
                db.queue_write(|done| Write::Message { row, done }).await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Stores a user's message unless the same Telegram message (chat and
                // message id) is already stored, as when an update is handled again after a crash
                // or by two replicas at once. Returns the message's id and whether it was new.
                // `ON CONFLICT DO NOTHING` waits for a replica inserting the same message to commit, so
                // the look-up after it (a statement of its own, with a fresh snapshot) finds that row.
                for _ in 0..STORE_ONCE_ATTEMPTS {
                    if let Some(id) = db.insert_message(message, Role::User, None).await? {
                        return Ok((id, true));
                    }
                    let stored = sqlx::query_scalar!(
                        r#"SELECT id FROM messages
                           WHERE chat_id = $1 AND user_telegram_message_id = $2"#,
                        message.key.chat_id.0,
                        message.telegram_message_id,
                    )
                    .fetch_optional(&db.pool)
                    .await?;
                    if let Some(id) = stored {
                        return Ok((id, false));
                    }
                }
                Err(sqlx::Error::Protocol(
                    "a user's message was neither stored nor found".into(),
                ))
            }
        }
    }

    /// Records which Telegram message carried a stored reply; for a reply that answers a
    /// Telegram update, the same statement marks that update `done` (a trigger). Written together
    /// with the other turns' records on SQLite (`combined`). On PostgreSQL it is a statement of
    /// its own, written the moment the reply is delivered: a record held back for a batch would
    /// widen the window in which a replica killed after delivering leaves its reply to be
    /// delivered again by the replica that takes over.
    pub async fn set_telegram_message_id(
        &self,
        message_id: i64,
        telegram_message_id: i64,
    ) -> Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let record = (message_id, telegram_message_id);
                db.queue_write(|done| Write::Delivered { record, done })
                    .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                sqlx::query!(
                    "UPDATE messages SET telegram_message_id = $2 WHERE id = $1",
                    message_id,
                    telegram_message_id,
                )
                .execute(&db.pool)
                .await?;
                Ok(())
            }
        }
    }

    /// The conversation's last `limit` messages created at or after `since_ms`, oldest first.
    /// A negative `limit` means no limit.
    pub async fn history(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>> {
        self.history_through(key, since_ms, limit, i64::MAX).await
    }

    /// Every message of the conversation, oldest first (for exports).
    pub async fn all_messages(&self, key: ConversationKey) -> Result<Vec<StoredMessage>> {
        run!(
            self.reader.fetch_all,
            select!(
                StoredMessage,
                sql = r#"FROM messages
                         WHERE chat_id = $1 AND user_id = $2
                         ORDER BY created_at ASC, id ASC"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// The text stored for the person's Telegram message `telegram_message_id` in `key`'s
    /// conversation, if it was stored (a turn started before a crash): a voice note's transcript
    /// is then not asked for again.
    pub async fn user_message_text(
        &self,
        key: ConversationKey,
        telegram_message_id: i64,
    ) -> Result<Option<String>> {
        run!(
            self.reader.fetch_optional,
            // PostgreSQL reads the column its one-per-Telegram-message index holds, which only
            // a person's message fills (so that a reply's delivery record is a HOT update).
            query_scalar!(
                sqlite = r#"SELECT content AS "content!" FROM messages
                            WHERE chat_id = ?1 AND telegram_message_id = ?2 AND role = 'user'
                              AND user_id = ?3"#,
                postgres = r#"SELECT content AS "content!" FROM messages
                              WHERE chat_id = $1 AND user_telegram_message_id = $2
                                AND user_id = $3"#,
                key.chat_id.0,
                telegram_message_id,
                key.user_id.0,
            ),
        )
    }

    /// Every message of one session, oldest first (for its summary).
    pub async fn session_messages(&self, session_id: i64) -> Result<Vec<StoredMessage>> {
        run!(
            self.reader.fetch_all,
            select!(
                StoredMessage,
                sql = r#"FROM messages
                         WHERE session_id = $1
                         ORDER BY created_at ASC, id ASC"#,
                session_id,
            ),
        )
    }
}

/// One thing to look for among a conversation's older messages (see [`Store::search_messages`]).
///
/// [`Store::search_messages`]: super::Store::search_messages
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchTerm {
    /// This word, lowercased.
    Word(String),
    /// Any word starting with these characters, lowercased.
    Prefix(String),
}

#[cfg(feature = "sqlite")]
/// The start of every word of the conversation in the full-text index (see the
/// `conversation_scoped_search_words` migration): `o<user>c<chat>x`, with `n` marking a negative
/// (group) chat id and `x` ending the owner, so that one owner's words never begin another's.
pub(super) fn fts_owner_token(key: ConversationKey) -> String {
    if key.chat_id.0 < 0 {
        format!("o{}cn{}x", key.user_id, key.chat_id.0.unsigned_abs())
    } else {
        format!("o{}c{}x", key.user_id, key.chat_id)
    }
}
