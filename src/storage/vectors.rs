//! Embedding vectors of messages and session summaries (`memory_vectors`) and of notes
//! (`note_vectors`), the embedder's progress, and the search by meaning within one conversation.
//!
//! Vectors are signed bytes (see the `memory_vectors` migration); computing them is the memory
//! layer's job, this module only stores, deletes and compares them. Vectors are stored at the
//! same length (127), so the Euclidean distance `d` ranks them as cosine similarity does, and the
//! similarity is `1 - d² / (2 · 127²)`. A search over a conversation's messages usually ranks the
//! vectors held in memory (`vector_cache.rs`) and reads here only the counters that say whether
//! they are current, the vectors added since, and the nearest rows; the search over stored rows
//! (summaries, notes, and messages of a conversation too large to hold) runs inside SQLite with
//! the scalar function `int8_similarity`, registered on every connection. Queries calling it are
//! checked when they run, not at compile time: the compile-time checker's own connection does
//! not have the function.
//!
//! Every search is bounded to one (chat, user) by the table's key and checks the owner again on
//! the row it returns, like the full-text search.

#[cfg(feature = "sqlite")]
use std::sync::Once;

#[cfg(feature = "postgres")]
use super::postgres::vectors::{distinct_in_order, in_ranked_order, nearest, store_note_vectors};
#[cfg(feature = "sqlite")]
use super::vector_cache::squared_distance;
use super::vector_cache::{VectorCounts, similarity};
use super::{Backend, Store};
use super::{ChatId, ConversationKey, NoteRecord, Role, StoredMessage, SummaryRecord, UserId};

/// What a vector belongs to; stored as `memory_vectors.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorSource {
    /// `source_id` is a message's id.
    Message,
    /// `source_id` is the summarized session's id.
    Summary,
    /// `source_id` is a note's id (`user_notes.id`); stored in `note_vectors`.
    Note,
}

/// A stored text still waiting for its vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextToEmbed {
    pub key: ConversationKey,
    pub source: VectorSource,
    pub source_id: i64,
    pub text: String,
}

/// A stored text of a conversation without a vector, as the queries of `*_to_embed` read it.
struct StoredText {
    chat_id: i64,
    user_id: i64,
    source_id: i64,
    text: String,
}

impl StoredText {
    fn into_text_to_embed(self, source: VectorSource) -> TextToEmbed {
        TextToEmbed {
            key: ConversationKey::new(ChatId(self.chat_id), UserId(self.user_id)),
            source,
            source_id: self.source_id,
            text: self.text,
        }
    }
}

/// A message's vector as `Store::message_vectors_after` reads it.
struct StoredVector {
    source_id: i64,
    vector: Vec<u8>,
}

/// The vector computed for a [`TextToEmbed`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryVector {
    pub source: VectorSource,
    pub source_id: i64,
    /// The text the vector was computed from: a summary or note rewritten in the meantime keeps
    /// no vector of its old text.
    pub text: String,
    pub vector: Vec<u8>,
}

/// `notes` in the order of `ranked` (note ids, nearest first, with their similarity); a ranked
/// note no longer among `notes` (deleted meanwhile) is left out. Notes are read through the notes'
/// own query, so a note found by meaning is the same record `/memory` shows.
pub(super) fn notes_in_ranked_order(
    ranked: &[(i64, f64)],
    notes: Vec<NoteRecord>,
) -> Vec<(NoteRecord, f64)> {
    let mut by_id: std::collections::HashMap<i64, NoteRecord> =
        notes.into_iter().map(|note| (note.id, note)).collect();
    ranked
        .iter()
        .filter_map(|(id, similarity)| by_id.remove(id).map(|note| (note, *similarity)))
        .collect()
}

/// Makes `int8_similarity(a, b)` available on every SQLite connection the process opens from
/// now on: the similarity of two vectors stored as signed bytes at length 127, from their
/// Euclidean distance `d`, `1 - d² / (2 · 127²)` (their cosine when both have that length, as
/// /// the PostgreSQL backend and the vector cache compute it); NULL unless both are blobs of the
/// same length. It reads each vector where SQLite holds it. Safe to call any number of times.
#[cfg(feature = "sqlite")]
pub(super) fn register_int8_similarity() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SAFETY: `create_int8_similarity` is an SQLite extension entry point, which is what
        // `sqlite3_auto_extension` calls it as.
        let status =
            unsafe { libsqlite3_sys::sqlite3_auto_extension(Some(create_int8_similarity)) };
        if status != libsqlite3_sys::SQLITE_OK {
            tracing::error!(status, "cannot register int8_similarity with SQLite");
        }
    });
}

/// Registers `int8_similarity` on one new connection (an SQLite extension entry point).
#[cfg(feature = "sqlite")]
unsafe extern "C" fn create_int8_similarity(
    db: *mut libsqlite3_sys::sqlite3,
    _error: *mut *mut std::os::raw::c_char,
    _api: *const libsqlite3_sys::sqlite3_api_routines,
) -> std::os::raw::c_int {
    let flags = libsqlite3_sys::SQLITE_UTF8
        | libsqlite3_sys::SQLITE_DETERMINISTIC
        | libsqlite3_sys::SQLITE_INNOCUOUS;
    // SAFETY: SQLite hands an open connection to its extension entry points; the name is a
    // NUL-terminated constant and `int8_similarity` has the signature of a scalar function.
    unsafe {
        libsqlite3_sys::sqlite3_create_function_v2(
            db,
            c"int8_similarity".as_ptr(),
            2,
            flags,
            std::ptr::null_mut(),
            Some(int8_similarity),
            None,
            None,
            None,
        )
    }
}

/// The scalar function `int8_similarity(a, b)`.
#[cfg(feature = "sqlite")]
unsafe extern "C" fn int8_similarity(
    context: *mut libsqlite3_sys::sqlite3_context,
    arguments: std::os::raw::c_int,
    values: *mut *mut libsqlite3_sys::sqlite3_value,
) {
    use libsqlite3_sys as ffi;
    // SAFETY: SQLite passes `arguments` (2, as registered) valid values; a blob's pointer stays
    // valid until the value changes, which nothing here does, and holds `sqlite3_value_bytes`
    // bytes (read after the pointer, as SQLite's documentation asks).
    unsafe {
        if arguments != 2 {
            ffi::sqlite3_result_null(context);
            return;
        }
        let (a, b) = (*values, *values.add(1));
        if ffi::sqlite3_value_type(a) != ffi::SQLITE_BLOB
            || ffi::sqlite3_value_type(b) != ffi::SQLITE_BLOB
        {
            ffi::sqlite3_result_null(context);
            return;
        }
        let (a_bytes, b_bytes) = (ffi::sqlite3_value_blob(a), ffi::sqlite3_value_blob(b));
        let (a_length, b_length) = (ffi::sqlite3_value_bytes(a), ffi::sqlite3_value_bytes(b));
        if a_bytes.is_null() || b_bytes.is_null() || a_length != b_length {
            ffi::sqlite3_result_null(context);
            return;
        }
        let length = usize::try_from(a_length).unwrap_or(0);
        let a = std::slice::from_raw_parts(a_bytes.cast::<u8>(), length);
        let b = std::slice::from_raw_parts(b_bytes.cast::<u8>(), length);
        ffi::sqlite3_result_double(context, similarity(squared_distance(a, b)));
    }
}

#[cfg(feature = "sqlite")]
/// A message found by meaning, as read.
#[derive(sqlx::FromRow)]
struct NearMessageRow {
    #[sqlx(flatten)]
    message: StoredMessage,
    similarity: f64,
}

#[cfg(feature = "sqlite")]
/// A summary found by meaning, as read.
#[derive(sqlx::FromRow)]
struct NearSummaryRow {
    #[sqlx(flatten)]
    summary: SummaryRecord,
    similarity: f64,
}

impl Store {
    /// Makes `model` the model the stored vectors come from. When they came from another model,
    /// all of them are deleted and every message waits for a vector again (vectors of two
    /// models cannot be compared). Returns whether that happened. On PostgreSQL the progress row
    /// stays locked until the switch commits, so a second replica switching too waits, then sees
    /// it done.
    pub async fn use_embedding_model(&self, model: &str) -> Result<bool, sqlx::Error> {
        begin!(self, transaction);
        let current = run_in!(
            transaction.fetch_one,
            sqlite = sqlx::query_scalar!("SELECT model FROM embedding_progress"),
            postgres =
                sqlx::query_scalar!("SELECT model FROM embedding_progress WHERE id = 1 FOR UPDATE"),
        )?;
        if current.as_deref() == Some(model) {
            return Ok(false);
        }
        run_in!(
            transaction.execute,
            sqlite = sqlx::query!("DELETE FROM memory_vectors"),
            postgres = sqlx::query!("DELETE FROM memory_vectors WHERE true"),
        )?;
        run_in!(
            transaction.execute,
            sqlite = sqlx::query!("DELETE FROM note_vectors"),
            postgres = sqlx::query!("DELETE FROM note_vectors WHERE true"),
        )?;
        run_in!(
            transaction.execute,
            sqlite = sqlx::query!(
                "UPDATE embedding_progress SET model = ?1, messages_through = 0",
                model
            ),
            postgres = sqlx::query!(
                "UPDATE embedding_progress SET model = $1, messages_through = 0 WHERE id = 1",
                model
            ),
        )?;
        transaction.commit().await?;
        Ok(current.is_some())
    }

    /// Up to `limit` messages waiting for a vector, oldest first.
    pub async fn messages_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = run!(
            self,
            reader.fetch_all,
            sqlite = sqlx::query_as!(
                StoredText,
                r#"SELECT id AS "source_id!", chat_id, user_id, content AS text FROM messages
                   WHERE id > (SELECT messages_through FROM embedding_progress)
                   ORDER BY id LIMIT +?1"#,
                limit,
            ),
            postgres = sqlx::query_as!(
                StoredText,
                r#"SELECT id AS source_id, chat_id, user_id, content AS text FROM messages AS message
                   WHERE id > (SELECT messages_through FROM embedding_progress WHERE id = 1)
                     AND NOT EXISTS (
                         SELECT 1 FROM memory_vectors AS vector
                         WHERE vector.chat_id = message.chat_id AND vector.user_id = message.user_id
                           AND vector.kind = 0 AND vector.source_id = message.id)
                   ORDER BY id
                   LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
                limit,
            ),
        )?;
        Ok(rows
            .into_iter()
            .map(|row| row.into_text_to_embed(VectorSource::Message))
            .collect())
    }

    /// Up to `limit` session summaries without a vector.
    pub async fn summaries_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = run!(
            self,
            reader.fetch_all,
            sqlite = sqlx::query_as!(
                StoredText,
                r#"SELECT summary.session_id AS "source_id!", summary.chat_id, summary.user_id,
                          summary.summary AS text
                   FROM session_summaries AS summary
                   WHERE NOT EXISTS (
                       SELECT 1 FROM memory_vectors AS vector
                       WHERE vector.chat_id = summary.chat_id AND vector.user_id = summary.user_id
                         AND vector.kind = 1 AND vector.source_id = summary.session_id)
                   LIMIT +?1"#,
                limit,
            ),
            postgres = sqlx::query_as!(
                StoredText,
                r#"SELECT summary.session_id AS source_id, summary.chat_id, summary.user_id,
                          summary.summary AS text
                   FROM session_summaries AS summary
                   WHERE NOT EXISTS (
                       SELECT 1 FROM memory_vectors AS vector
                       WHERE vector.chat_id = summary.chat_id AND vector.user_id = summary.user_id
                         AND vector.kind = 1 AND vector.source_id = summary.session_id)
                   ORDER BY summary.session_id
                   LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
                limit,
            ),
        )?;
        Ok(rows
            .into_iter()
            .map(|row| row.into_text_to_embed(VectorSource::Summary))
            .collect())
    }

    /// Up to `limit` notes without a vector.
    pub async fn notes_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = run!(
            self,
            reader.fetch_all,
            sqlite = sqlx::query_as!(
                StoredText,
                r#"SELECT note.id AS "source_id!", note.chat_id, note.user_id, note.note AS text
                   FROM user_notes AS note
                   WHERE NOT EXISTS (
                       SELECT 1 FROM note_vectors AS vector
                       WHERE vector.chat_id = note.chat_id AND vector.user_id = note.user_id
                         AND vector.note_id = note.id)
                   LIMIT +?1"#,
                limit,
            ),
            postgres = sqlx::query_as!(
                StoredText,
                r#"SELECT note.id AS source_id, note.chat_id, note.user_id, note.note AS text
                   FROM user_notes AS note
                   WHERE NOT EXISTS (
                       SELECT 1 FROM note_vectors AS vector
                       WHERE vector.chat_id = note.chat_id AND vector.user_id = note.user_id
                         AND vector.note_id = note.id)
                   ORDER BY note.id
                   LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
                limit,
            ),
        )?;
        Ok(rows
            .into_iter()
            .map(|row| row.into_text_to_embed(VectorSource::Note))
            .collect())
    }

    /// Stores `vectors` for the rows that still exist (a row deleted since it was read gets
    /// none; a summary or note rewritten since gets none for its old text) and, in the same
    /// transaction, marks every message up to `messages_through` as done, including those that
    /// could not be embedded.
    pub async fn store_vectors(
        &self,
        vectors: &[MemoryVector],
        messages_through: Option<i64>,
    ) -> Result<(), sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let mut writer = db.writer().await?;
                let mut transaction = super::begin_write(&mut writer).await?;
                for vector in vectors {
                    match vector.source {
                        VectorSource::Message => {
                            sqlx::query!(
                                r#"INSERT OR REPLACE INTO memory_vectors
                                       (chat_id, user_id, kind, source_id, vector)
                                   SELECT chat_id, user_id, 0, id, ?2 FROM messages WHERE id = ?1"#,
                                vector.source_id,
                                vector.vector,
                            )
                            .execute(&mut *transaction)
                            .await?;
                        }
                        VectorSource::Summary => {
                            sqlx::query!(
                                r#"INSERT OR REPLACE INTO memory_vectors
                                       (chat_id, user_id, kind, source_id, vector)
                                   SELECT chat_id, user_id, 1, session_id, ?2 FROM session_summaries
                                   WHERE session_id = ?1 AND summary = ?3"#,
                                vector.source_id,
                                vector.vector,
                                vector.text,
                            )
                            .execute(&mut *transaction)
                            .await?;
                        }
                        VectorSource::Note => {
                            sqlx::query!(
                                r#"INSERT OR REPLACE INTO note_vectors (chat_id, user_id, note_id, vector)
                                   SELECT chat_id, user_id, id, ?2 FROM user_notes
                                   WHERE id = ?1 AND note = ?3"#,
                                vector.source_id,
                                vector.vector,
                                vector.text,
                            )
                            .execute(&mut *transaction)
                            .await?;
                        }
                    }
                }
                if let Some(through) = messages_through {
                    sqlx::query!(
                        "UPDATE embedding_progress SET messages_through = max(messages_through, ?1)",
                        through
                    )
                    .execute(&mut *transaction)
                    .await?;
                }
                transaction.commit().await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Stores `vectors` for the rows that still exist (a row deleted since
                // it was read gets none; a summary or note rewritten since gets none for its old
                // text) and, in the same transaction, marks the messages up to `messages_through`
                // as done, including those that could not be embedded. The mark never moves back,
                // whoever stored vectors last, and passes only messages stored a minute ago or
                // more: ids are handed out before commit, so a message with a lower id may still
                // commit after a higher one; until the mark passes them, messages with a vector are
                // told apart by the vector itself.
                let messages = distinct_in_order(vectors, VectorSource::Message);
                let summaries = distinct_in_order(vectors, VectorSource::Summary);
                let notes = distinct_in_order(vectors, VectorSource::Note);
                let mut transaction = db.pool.begin().await?;
                if !messages.is_empty() {
                    let ids: Vec<i64> = messages.iter().map(|vector| vector.source_id).collect();
                    let bytes: Vec<Vec<u8>> = messages
                        .iter()
                        .map(|vector| vector.vector.clone())
                        .collect();
                    sqlx::query!(
                        r#"INSERT INTO memory_vectors (chat_id, user_id, kind, source_id, vector)
                           SELECT message.chat_id, message.user_id, 0, message.id, given.vector
                           FROM unnest($1::bigint[], $2::bytea[]) WITH ORDINALITY
                                AS given (id, vector, position)
                           JOIN messages AS message ON message.id = given.id
                           ORDER BY given.position
                           ON CONFLICT (chat_id, user_id, kind, source_id)
                           DO UPDATE SET vector = excluded.vector"#,
                        &ids,
                        &bytes,
                    )
                    .execute(&mut *transaction)
                    .await?;
                }
                if !summaries.is_empty() {
                    let ids: Vec<i64> = summaries.iter().map(|vector| vector.source_id).collect();
                    let bytes: Vec<Vec<u8>> = summaries
                        .iter()
                        .map(|vector| vector.vector.clone())
                        .collect();
                    let texts: Vec<String> =
                        summaries.iter().map(|vector| vector.text.clone()).collect();
                    sqlx::query!(
                        r#"INSERT INTO memory_vectors (chat_id, user_id, kind, source_id, vector)
                           SELECT summary.chat_id, summary.user_id, 1, summary.session_id, given.vector
                           FROM unnest($1::bigint[], $2::bytea[], $3::text[]) WITH ORDINALITY
                                AS given (id, vector, text, position)
                           JOIN session_summaries AS summary
                             ON summary.session_id = given.id AND summary.summary = given.text
                           ORDER BY given.position
                           ON CONFLICT (chat_id, user_id, kind, source_id)
                           DO UPDATE SET vector = excluded.vector"#,
                        &ids,
                        &bytes,
                        &texts,
                    )
                    .execute(&mut *transaction)
                    .await?;
                }
                if !notes.is_empty() {
                    store_note_vectors(&mut transaction, &notes).await?;
                }
                if let Some(through) = messages_through {
                    sqlx::query!(
                        r#"UPDATE embedding_progress
                           SET messages_through = greatest(messages_through, (
                               SELECT max(id) FROM messages
                               WHERE id <= $1
                                 AND stored_at < (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                                                 - 60000))
                           WHERE id = 1"#,
                        through
                    )
                    .execute(&mut *transaction)
                    .await?;
                }
                transaction.commit().await
            }
        }
    }

    /// How many messages are still waiting for a vector.
    pub async fn messages_waiting_for_vectors(&self) -> Result<i64, sqlx::Error> {
        run!(
            self,
            reader.fetch_one,
            sqlite = sqlx::query_scalar!(
                r#"SELECT count(*) AS "count!: i64" FROM messages
                   WHERE id > (SELECT messages_through FROM embedding_progress)"#
            ),
            postgres = sqlx::query_scalar!(
                r#"SELECT count(*) AS "count!" FROM messages AS message
                   WHERE id > (SELECT messages_through FROM embedding_progress WHERE id = 1)
                     AND NOT EXISTS (
                         SELECT 1 FROM memory_vectors AS vector
                         WHERE vector.chat_id = message.chat_id AND vector.user_id = message.user_id
                           AND vector.kind = 0 AND vector.source_id = message.id)"#
            ),
        )
    }

    /// How many message vectors the conversation ever had added and removed.
    pub async fn message_vector_counts(
        &self,
        key: ConversationKey,
    ) -> Result<VectorCounts, sqlx::Error> {
        let counts = run!(
            self,
            reader.fetch_optional,
            sqlite = sqlx::query_as!(
                VectorCounts,
                r#"SELECT added, removed FROM message_vector_counts
                   WHERE chat_id = ?1 AND user_id = ?2"#,
                key.chat_id,
                key.user_id,
            ),
            postgres = sqlx::query_as!(
                VectorCounts,
                r#"SELECT added, removed FROM message_vector_counts
                   WHERE chat_id = $1 AND user_id = $2"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )?;
        Ok(counts.unwrap_or_default())
    }

    /// The conversation's message vectors with ids above `after_id`, by id.
    pub async fn message_vectors_after(
        &self,
        key: ConversationKey,
        after_id: i64,
    ) -> Result<Vec<(i64, Vec<u8>)>, sqlx::Error> {
        let rows = run!(
            self,
            reader.fetch_all,
            sqlite = sqlx::query_as!(
                StoredVector,
                r#"SELECT source_id, vector FROM memory_vectors
                   WHERE chat_id = ?1 AND user_id = ?2 AND kind = 0 AND source_id > ?3
                   ORDER BY source_id"#,
                key.chat_id,
                key.user_id,
                after_id,
            ),
            postgres = sqlx::query_as!(
                StoredVector,
                r#"SELECT source_id, vector FROM memory_vectors
                   WHERE chat_id = $1 AND user_id = $2 AND kind = 0 AND source_id > $3
                   ORDER BY source_id"#,
                key.chat_id.0,
                key.user_id.0,
                after_id,
            ),
        )?;
        Ok(rows
            .into_iter()
            .map(|row| (row.source_id, row.vector))
            .collect())
    }

    /// The conversation's messages among `ids`, in no particular order; never another
    /// conversation's.
    pub async fn messages_with_ids(
        &self,
        key: ConversationKey,
        ids: &[i64],
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let ids = serde_json::to_string(ids).unwrap_or_else(|_| "[]".to_owned());
                // `+` keeps SQLite from choosing the conversation's index (a scan of all its messages)
                // over the few ids' primary key.
                sqlx::query_as!(
                    StoredMessage,
                    r#"SELECT id AS "id!", chat_id, user_id, session_id, role AS "role: Role",
                              content, created_at AS created_at_ms, tokens_in, tokens_out,
                              telegram_message_id
                       FROM messages
                       WHERE id IN (SELECT value FROM json_each(?3)) AND +chat_id = ?1 AND +user_id = ?2"#,
                    key.chat_id,
                    key.user_id,
                    ids,
                )
                .fetch_all(&mut *db.reader().await?)
                .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                sqlx::query_as!(
                    StoredMessage,
                    r#"SELECT id, chat_id, user_id, session_id, role AS "role: Role", content,
                              created_at AS created_at_ms, tokens_in, tokens_out, telegram_message_id
                       FROM messages
                       WHERE id = ANY($3) AND chat_id = $1 AND user_id = $2"#,
                    key.chat_id.0,
                    key.user_id.0,
                    ids,
                )
                .fetch_all(&db.pool)
                .await
            }
        }
    }

    /// The conversation's `limit` messages older than message `before_id` nearest in meaning
    /// to `query` (a vector of the same model), nearest first, with their cosine similarity.
    pub async fn nearest_messages_stored(
        &self,
        key: ConversationKey,
        query: &[u8],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<(StoredMessage, f64)>, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let rows: Vec<NearMessageRow> = sqlx::query_as(
                    r#"WITH nearest AS MATERIALIZED (
                           SELECT source_id, int8_similarity(vector, ?3) AS similarity_found
                           FROM memory_vectors
                           WHERE chat_id = ?1 AND user_id = ?2 AND kind = 0 AND source_id < ?4
                             AND length(vector) = length(?3)
                           ORDER BY similarity_found DESC LIMIT ?5)
                       SELECT message.id, message.chat_id, message.user_id, message.session_id,
                              message.role, message.content, message.created_at AS created_at_ms,
                              message.tokens_in, message.tokens_out, message.telegram_message_id,
                              nearest.similarity_found AS similarity
                       FROM nearest JOIN messages AS message ON message.id = nearest.source_id
                       WHERE message.chat_id = ?1 AND message.user_id = ?2
                       ORDER BY nearest.similarity_found DESC"#,
                )
                .bind(key.chat_id)
                .bind(key.user_id)
                .bind(query)
                .bind(before_id)
                .bind(limit)
                .fetch_all(&mut *db.reader().await?)
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|row| (row.message, row.similarity))
                    .collect())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let vectors = sqlx::query!(
                    r#"SELECT source_id, vector FROM memory_vectors
                       WHERE chat_id = $1 AND user_id = $2 AND kind = 0 AND source_id < $3"#,
                    key.chat_id.0,
                    key.user_id.0,
                    before_id,
                )
                .fetch_all(&db.pool)
                .await?
                .into_iter()
                .map(|row| (row.source_id, row.vector))
                .collect();
                let ranked = nearest(query, vectors, limit);
                if ranked.is_empty() {
                    return Ok(Vec::new());
                }
                let ids: Vec<i64> = ranked.iter().map(|(id, _)| *id).collect();
                let messages = sqlx::query_as!(
                    StoredMessage,
                    r#"SELECT id, chat_id, user_id, session_id, role AS "role: Role", content,
                              created_at AS created_at_ms, tokens_in, tokens_out, telegram_message_id
                       FROM messages
                       WHERE id = ANY($3) AND chat_id = $1 AND user_id = $2"#,
                    key.chat_id.0,
                    key.user_id.0,
                    &ids,
                )
                .fetch_all(&db.pool)
                .await?;
                Ok(in_ranked_order(&ranked, messages, |message| message.id))
            }
        }
    }

    /// The conversation's `limit` session summaries nearest in meaning to `query`, nearest
    /// first, with their cosine similarity.
    pub async fn nearest_summaries(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(SummaryRecord, f64)>, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let rows: Vec<NearSummaryRow> = sqlx::query_as(
                    r#"WITH nearest AS MATERIALIZED (
                           SELECT source_id, int8_similarity(vector, ?3) AS similarity_found
                           FROM memory_vectors
                           WHERE chat_id = ?1 AND user_id = ?2 AND kind = 1
                             AND length(vector) = length(?3)
                           ORDER BY similarity_found DESC LIMIT ?4)
                       SELECT summary.session_id, summary.chat_id, summary.user_id, summary.summary,
                              summary.created_at AS created_at_ms,
                              session.started_at AS session_started_at_ms,
                              session.last_activity_at AS session_last_activity_at_ms,
                              nearest.similarity_found AS similarity
                       FROM nearest
                       JOIN session_summaries AS summary ON summary.session_id = nearest.source_id
                       JOIN sessions AS session ON session.id = summary.session_id
                       WHERE summary.chat_id = ?1 AND summary.user_id = ?2
                       ORDER BY nearest.similarity_found DESC"#,
                )
                .bind(key.chat_id)
                .bind(key.user_id)
                .bind(query)
                .bind(limit)
                .fetch_all(&mut *db.reader().await?)
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|row| (row.summary, row.similarity))
                    .collect())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let vectors = sqlx::query!(
                    r#"SELECT source_id, vector FROM memory_vectors
                       WHERE chat_id = $1 AND user_id = $2 AND kind = 1"#,
                    key.chat_id.0,
                    key.user_id.0,
                )
                .fetch_all(&db.pool)
                .await?
                .into_iter()
                .map(|row| (row.source_id, row.vector))
                .collect();
                let ranked = nearest(query, vectors, limit);
                if ranked.is_empty() {
                    return Ok(Vec::new());
                }
                let ids: Vec<i64> = ranked.iter().map(|(id, _)| *id).collect();
                let summaries = sqlx::query_as!(
                    SummaryRecord,
                    r#"SELECT summary.session_id, summary.chat_id, summary.user_id, summary.summary,
                              summary.created_at AS created_at_ms,
                              session.started_at AS session_started_at_ms,
                              session.last_activity_at AS session_last_activity_at_ms
                       FROM session_summaries AS summary
                       JOIN sessions AS session ON session.id = summary.session_id
                       WHERE summary.session_id = ANY($3)
                         AND summary.chat_id = $1 AND summary.user_id = $2"#,
                    key.chat_id.0,
                    key.user_id.0,
                    &ids,
                )
                .fetch_all(&db.pool)
                .await?;
                Ok(in_ranked_order(&ranked, summaries, |summary| {
                    summary.session_id
                }))
            }
        }
    }

    /// The conversation's `limit` notes nearest in meaning to `query`, nearest first, with
    /// their cosine similarity.
    pub async fn nearest_notes(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(NoteRecord, f64)>, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let ranked: Vec<(i64, f64)> = sqlx::query_as(
                    r#"SELECT note_id, similarity
                       FROM (SELECT note_id, int8_similarity(vector, ?3) AS similarity
                             FROM note_vectors
                             WHERE chat_id = ?1 AND user_id = ?2 AND length(vector) = length(?3)
                             ORDER BY similarity DESC, note_id LIMIT ?4)
                       ORDER BY similarity DESC, note_id"#,
                )
                .bind(key.chat_id)
                .bind(key.user_id)
                .bind(query)
                .bind(limit)
                .fetch_all(&mut *db.reader().await?)
                .await?;
                if ranked.is_empty() {
                    return Ok(Vec::new());
                }
                Ok(notes_in_ranked_order(&ranked, self.notes(key).await?))
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let vectors = sqlx::query!(
                    r#"SELECT note_id, vector FROM note_vectors WHERE chat_id = $1 AND user_id = $2"#,
                    key.chat_id.0,
                    key.user_id.0,
                )
                .fetch_all(&db.pool)
                .await?
                .into_iter()
                .map(|row| (row.note_id, row.vector))
                .collect();
                let ranked: Vec<(i64, f64)> = nearest(query, vectors, limit)
                    .into_iter()
                    .map(|(id, distance)| (id, similarity(distance)))
                    .collect();
                if ranked.is_empty() {
                    return Ok(Vec::new());
                }
                Ok(notes_in_ranked_order(&ranked, self.notes(key).await?))
            }
        }
    }

    /// How many vectors the conversation has, of messages, summaries and notes (for tests and
    /// `/stats`-like reports).
    pub async fn vector_count(&self, key: ConversationKey) -> Result<i64, sqlx::Error> {
        run!(
            self,
            reader.fetch_one,
            sqlite = sqlx::query_scalar!(
                r#"SELECT (SELECT count(*) FROM memory_vectors WHERE chat_id = ?1 AND user_id = ?2)
                        + (SELECT count(*) FROM note_vectors WHERE chat_id = ?1 AND user_id = ?2)
                          AS "count!: i64""#,
                key.chat_id,
                key.user_id,
            ),
            postgres = sqlx::query_scalar!(
                r#"SELECT (SELECT count(*) FROM memory_vectors WHERE chat_id = $1 AND user_id = $2)
                        + (SELECT count(*) FROM note_vectors WHERE chat_id = $1 AND user_id = $2)
                          AS "count!""#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }
}
