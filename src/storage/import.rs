//! Storing a history brought in by `telemem import` (`crate::import`): the conversation's
//! sessions and the keys of the messages already imported, which the import plans around, and
//! the write of the planned sessions and messages in one transaction.
//!
//! Which message goes into which session is decided by the caller; this module only writes the
//! plan. Every imported message carries its `import_key`, unique within its conversation (the
//! `imported_messages` migration): a message already stored is skipped, so importing the same
//! file twice stores nothing twice. A new session is stored closed, so the summarizer and the
//! embedder find it like any other; an existing session that receives messages widens to hold
//! them and, when it was closed, loses its summary so the summarizer writes it again with them.

use super::Result;
use super::Store;
use super::backend::Writing;
#[cfg(feature = "postgres")]
use super::postgres::import::{Bookkeeping, insert_imported_chunk};
use super::{ConversationKey, Role};

/// One session of a conversation as an import plans around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionSpan {
    pub id: i64,
    pub started_at_ms: i64,
    pub last_activity_at_ms: i64,
    pub closed: bool,
}

/// One message to import.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ImportMessage {
    pub role: Role,
    pub content: String,
    pub created_at_ms: i64,
    /// Unique within the conversation for the same message of the same source.
    pub import_key: String,
}

/// Messages that go into one session, oldest first: a new (closed) session, or an existing one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportSession {
    /// The existing session the messages join; `None` for a new session.
    pub existing_id: Option<i64>,
    pub messages: Vec<ImportMessage>,
}

/// What an import stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    /// Messages stored (those already stored by an earlier import not counted).
    pub messages: u64,
    /// New sessions stored, all closed.
    pub sessions_created: u64,
    /// Existing sessions that received messages.
    pub sessions_extended: u64,
}

/// Messages stored per statement: bounds one statement's JSON or arrays, not the transaction.
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
pub(super) const IMPORT_CHUNK: usize = 2_000;

impl Store {
    /// Every session of the conversation, oldest first.
    pub async fn session_spans(&self, key: ConversationKey) -> Result<Vec<SessionSpan>> {
        run!(
            self.reader.fetch_all,
            query_as!(
                SessionSpan,
                sql = r#"SELECT id AS "id!", started_at AS started_at_ms,
                                last_activity_at AS last_activity_at_ms,
                                closed_at IS NOT NULL AS "closed!: bool"
                         FROM sessions
                         WHERE chat_id = $1 AND user_id = $2
                         ORDER BY started_at, id"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// The import keys of the conversation's imported messages.
    pub async fn import_keys(&self, key: ConversationKey) -> Result<Vec<String>> {
        run!(
            self.reader.fetch_all,
            query_scalar!(
                sql = r#"SELECT import_key AS "import_key!" FROM messages
                         WHERE chat_id = $1 AND user_id = $2 AND import_key IS NOT NULL"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// Stores `sessions` in one transaction: nothing of it is stored unless all of it is.
    pub async fn import_sessions(
        &self,
        key: ConversationKey,
        sessions: &[ImportSession],
    ) -> Result<ImportCounts> {
        begin!(self, transaction);
        self.messages_to_index();
        let mut import = Import {
            transaction,
            key,
            #[cfg(feature = "postgres")]
            bookkeeping: Bookkeeping::default(),
        };
        let counts = import.session_list(sessions).await?;
        import.finish().await?;
        Ok(counts)
    }
}

/// An import into one conversation, inside its transaction.
struct Import<'t> {
    transaction: Writing<'t>,
    key: ConversationKey,
    /// What the imported rows add to the person's bookkeeping so far (PostgreSQL; on SQLite the
    /// triggers of each row keep it, and each chunk counts its daily usage).
    #[cfg(feature = "postgres")]
    bookkeeping: Bookkeeping,
}

impl Import<'_> {
    /// Writes the planned `sessions`, counting what was stored.
    async fn session_list(&mut self, sessions: &[ImportSession]) -> Result<ImportCounts> {
        let mut counts = ImportCounts::default();
        for session in sessions {
            let (Some(first), Some(last)) = (session.messages.first(), session.messages.last())
            else {
                continue;
            };
            let (first_ms, last_ms) = (first.created_at_ms, last.created_at_ms);
            let session_id = match session.existing_id {
                Some(id) => id,
                None => self.insert_closed_session(first_ms, last_ms).await?,
            };
            let stored = self.insert_messages(session_id, &session.messages).await?;
            match (session.existing_id, stored) {
                // The new session received no message.
                (None, 0) => {
                    self.transaction.delete_session(session_id).await?;
                }
                (None, _) => counts.sessions_created += 1,
                (Some(_), 0) => {}
                (Some(_), _) => {
                    self.widen_session(session_id, first_ms, last_ms).await?;
                    counts.sessions_extended += 1;
                }
            }
            counts.messages += stored;
        }
        Ok(counts)
    }

    /// Stores a new closed session of the conversation from `first_ms` to `last_ms`; its id.
    async fn insert_closed_session(&mut self, first_ms: i64, last_ms: i64) -> Result<i64> {
        let (chat_id, user_id) = (self.key.chat_id.0, self.key.user_id.0);
        let transaction = &mut self.transaction;
        run_in!(
            transaction.fetch_one,
            query_scalar!(
                sql = r#"INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at, closed_at)
                         VALUES ($1, $2, $3, $4, $4)
                         RETURNING id AS "id!""#,
                chat_id,
                user_id,
                first_ms,
                last_ms,
            ),
        )
    }

    /// Stores `messages` in the session `session_id`, skipping those already stored, a chunk
    /// per statement; returns how many were stored.
    async fn insert_messages(
        &mut self,
        session_id: i64,
        messages: &[ImportMessage],
    ) -> Result<u64> {
        let mut stored = 0;
        for chunk in messages.chunks(IMPORT_CHUNK) {
            stored += match self.transaction.statements() {
                #[cfg(feature = "sqlite")]
                Writing::Sqlite(transaction) => {
                    insert_message_chunk(transaction, self.key, session_id, chunk).await?
                }
                #[cfg(feature = "postgres")]
                Writing::Postgres(transaction) => {
                    let key = self.key;
                    let days = insert_imported_chunk(transaction, key, session_id, chunk).await?;
                    self.bookkeeping.add_days(days)
                }
            };
        }
        Ok(stored)
    }

    /// Makes the existing session `session_id` span its imported messages too and, when it is
    /// closed, summarized again: its old summary goes (its triggers take its vector and byte
    /// count).
    async fn widen_session(&mut self, session_id: i64, first_ms: i64, last_ms: i64) -> Result<()> {
        let transaction = &mut self.transaction;
        run_in!(
            transaction.execute,
            query!(
                sqlite = "UPDATE sessions
                          SET started_at = min(started_at, ?2),
                              last_activity_at = max(last_activity_at, ?3),
                              closed_at = CASE WHEN closed_at IS NULL THEN NULL ELSE max(closed_at, ?3) END,
                              summarized = 0, summary_attempts = 0, summary_retry_at = NULL
                          WHERE id = ?1",
                postgres = "UPDATE sessions
                            SET started_at = least(started_at, $2),
                                last_activity_at = greatest(last_activity_at, $3),
                                closed_at = CASE WHEN closed_at IS NULL THEN NULL
                                                 ELSE greatest(closed_at, $3) END,
                                summarized = false, summary_attempts = 0, summary_retry_at = NULL
                            WHERE id = $1",
                session_id,
                first_ms,
                last_ms,
            ),
        )?;
        transaction.delete_summary(session_id).await?;
        Ok(())
    }

    /// Writes the bookkeeping of the imported rows (PostgreSQL) and commits.
    async fn finish(mut self) -> Result<()> {
        match self.transaction.statements() {
            #[cfg(feature = "sqlite")]
            Writing::Sqlite(_) => {}
            #[cfg(feature = "postgres")]
            Writing::Postgres(transaction) => {
                self.bookkeeping.write(transaction, self.key).await?;
            }
        }
        self.transaction.commit().await
    }
}

/// Stores one chunk of imported messages in SQLite, counted in the person's daily usage; how many
/// were stored.
#[cfg(feature = "sqlite")]
async fn insert_message_chunk(
    transaction: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    key: ConversationKey,
    session_id: i64,
    chunk: &[ImportMessage],
) -> Result<u64> {
    let rows =
        serde_json::to_string(chunk).map_err(|error| sqlx::Error::Encode(Box::new(error)))?;
    // `WHERE true`: SQLite needs it to read `ON CONFLICT` after a SELECT as the upsert clause.
    // The only conflict possible is the import key (the message is stored already).
    let stored = sqlx::query!(
        r#"INSERT INTO messages
               (chat_id, user_id, session_id, role, content, created_at, import_key)
           SELECT ?1, ?2, ?3, json_extract(value, '$.role'), json_extract(value, '$.content'),
                  json_extract(value, '$.created_at_ms'), json_extract(value, '$.import_key')
           FROM json_each(?4) WHERE true
           ON CONFLICT DO NOTHING"#,
        key.chat_id,
        key.user_id,
        session_id,
        rows,
    )
    .execute(&mut **transaction)
    .await?
    .rows_affected();
    super::usage::count_newest_messages(transaction, stored).await?;
    Ok(stored)
}
