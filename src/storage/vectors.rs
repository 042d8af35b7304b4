//! Embedding vectors of messages and session summaries (`memory_vectors`) and of notes
//! (`note_vectors`), the embedder's progress, and the search by meaning within one conversation.
//!
//! Vectors are signed bytes (see the `memory_vectors` migration); computing them is the memory
//! layer's job, this module only stores, deletes and compares them. Vectors are stored at the
//! same length (127), so the Euclidean distance `d` ranks them as cosine similarity does, and the
//! similarity is `1 - d² / (2 · 127²)`. A search over a conversation's messages usually ranks the
//! vectors held in memory (`vector_cache.rs`) and reads here only the counters that say whether
//! they are current, the vectors added since, and the nearest rows. The search over summaries,
//! notes, and messages of a conversation too large to hold reads the conversation's vectors of
//! that kind through the table's key, which bounds it to that conversation, ranks them the same
//! way, and then reads only the nearest rows. In SQL the distance would take a function call per
//! vector in SQLite and one per byte in PostgreSQL.
//!
//! Every search is bounded to one (chat, user) by the table's key and checks the owner again on
//! the row it returns, like the full-text search.

use super::Result;
#[cfg(feature = "sqlite")]
use super::backend::json_ids;
#[cfg(feature = "postgres")]
use super::postgres::vectors::{distinct_in_order, store_note_vectors};
use super::vector_cache::{Nearest, VectorCounts};
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

impl VectorSource {
    /// The source as `memory_vectors.kind` stores it. Notes are not among those rows: their
    /// vectors have a table of their own.
    fn kind(self) -> i16 {
        match self {
            Self::Message => 0,
            Self::Summary => 1,
            Self::Note => 2,
        }
    }
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

/// A vector with the id of what it belongs to, as read.
struct StoredVector {
    source_id: i64,
    vector: Vec<u8>,
}

impl StoredVector {
    fn into_pair(self) -> (i64, Vec<u8>) {
        (self.source_id, self.vector)
    }
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

/// Vectors read per statement by the search over stored vectors: what it holds at once, however
/// large the conversation.
const VECTORS_PER_READ: i64 = 4_096;

/// The rows `read` returns for the ids of `ranked` (nearest first, with their similarity), in
/// that order with their similarity; nothing is read when nothing was ranked. A ranked id without
/// a row (deleted meanwhile, or not the conversation's) is left out.
async fn read_ranked<T, Read, Rows>(
    ranked: &[(i64, f64)],
    read: Read,
    id_of: impl Fn(&T) -> i64,
) -> Result<Vec<(T, f64)>>
where
    Read: FnOnce(Vec<i64>) -> Rows,
    Rows: std::future::Future<Output = Result<Vec<T>>>,
{
    if ranked.is_empty() {
        return Ok(Vec::new());
    }
    let rows = read(ranked.iter().map(|(id, _)| *id).collect()).await?;
    let mut by_id: std::collections::HashMap<i64, T> =
        rows.into_iter().map(|row| (id_of(&row), row)).collect();
    Ok(ranked
        .iter()
        .filter_map(|(id, similarity)| by_id.remove(id).map(|row| (row, *similarity)))
        .collect())
}

/// Reads [`StoredText`]s, by `$query` (worded for both backends: it selects `source_id`,
/// `chat_id`, `user_id` and `text`) and at most `$limit` of them (all for a negative one).
macro_rules! stored_texts {
    ($store:ident, $limit:expr, [$($query:tt)+]) => {
        run!(
            $store.reader.fetch_all,
            sqlite = sqlx::query_as!(StoredText, $($query)+ + " LIMIT +?1", $limit),
            postgres = sqlx::query_as!(
                StoredText,
                $($query)+ + " LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END",
                $limit,
            ),
        )
    };
}

impl Store {
    /// Makes `model` the model the stored vectors come from. When they came from another model,
    /// all of them are deleted and every message waits for a vector again (vectors of two
    /// models cannot be compared). Returns whether that happened. On PostgreSQL the progress row
    /// stays locked until the switch commits, so a second replica switching too waits, then sees
    /// it done.
    pub async fn use_embedding_model(&self, model: &str) -> Result<bool> {
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
            query!(sql = "DELETE FROM memory_vectors"),
        )?;
        run_in!(
            transaction.execute,
            query!(sql = "DELETE FROM note_vectors"),
        )?;
        run_in!(
            transaction.execute,
            query!(
                sql = "UPDATE embedding_progress SET model = $1, messages_through = 0 WHERE id = 1",
                model,
            ),
        )?;
        transaction.commit().await?;
        Ok(current.is_some())
    }

    /// Up to `limit` messages waiting for a vector, oldest first.
    pub async fn messages_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>> {
        let rows = run!(
            self.reader.fetch_all,
            query_as!(
                StoredText,
                sqlite = r#"SELECT id AS "source_id!", chat_id, user_id, content AS text FROM messages
                            WHERE id > (SELECT messages_through FROM embedding_progress)
                            ORDER BY id LIMIT +?1"#,
                postgres = r#"SELECT id AS source_id, chat_id, user_id, content AS text FROM messages AS message
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

    /// Up to `limit` session summaries or notes (`source`) without a vector; messages are
    /// [`Store::messages_to_embed`].
    pub async fn texts_without_vectors(
        &self,
        source: VectorSource,
        limit: i64,
    ) -> Result<Vec<TextToEmbed>> {
        let rows = match source {
            VectorSource::Message => return self.messages_to_embed(limit).await,
            VectorSource::Summary => stored_texts!(
                self,
                limit,
                [
                    r#"SELECT summary.session_id AS "source_id!", summary.chat_id AS "chat_id!",
                              summary.user_id AS "user_id!", summary.summary AS "text!"
                       FROM session_summaries AS summary
                       WHERE NOT EXISTS (
                           SELECT 1 FROM memory_vectors AS vector
                           WHERE vector.chat_id = summary.chat_id
                             AND vector.user_id = summary.user_id
                             AND vector.kind = 1 AND vector.source_id = summary.session_id)
                       ORDER BY summary.session_id"#
                ]
            )?,
            VectorSource::Note => stored_texts!(
                self,
                limit,
                [
                    r#"SELECT note.id AS "source_id!", note.chat_id AS "chat_id!",
                              note.user_id AS "user_id!", note.note AS "text!"
                       FROM user_notes AS note
                       WHERE NOT EXISTS (
                           SELECT 1 FROM note_vectors AS vector
                           WHERE vector.chat_id = note.chat_id AND vector.user_id = note.user_id
                             AND vector.note_id = note.id)
                       ORDER BY note.id"#
                ]
            )?,
        };
        Ok(rows
            .into_iter()
            .map(|row| row.into_text_to_embed(source))
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
    ) -> Result<()> {
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
    pub async fn messages_waiting_for_vectors(&self) -> Result<i64> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sqlite = r#"SELECT count(*) AS "count!: i64" FROM messages
                            WHERE id > (SELECT messages_through FROM embedding_progress)"#,
                postgres = r#"SELECT count(*) AS "count!" FROM messages AS message
                              WHERE id > (SELECT messages_through FROM embedding_progress WHERE id = 1)
                                AND NOT EXISTS (
                                    SELECT 1 FROM memory_vectors AS vector
                                    WHERE vector.chat_id = message.chat_id AND vector.user_id = message.user_id
                                      AND vector.kind = 0 AND vector.source_id = message.id)"#,
            ),
        )
    }

    /// How many message vectors the conversation ever had added and removed.
    pub async fn message_vector_counts(&self, key: ConversationKey) -> Result<VectorCounts> {
        let counts = run!(
            self.reader.fetch_optional,
            query_as!(
                VectorCounts,
                sql = r#"SELECT added, removed FROM message_vector_counts
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
    ) -> Result<Vec<(i64, Vec<u8>)>> {
        let rows = run!(
            self.reader.fetch_all,
            query_as!(
                StoredVector,
                sql = r#"SELECT source_id, vector FROM memory_vectors
                         WHERE chat_id = $1 AND user_id = $2 AND kind = 0 AND source_id > $3
                         ORDER BY source_id"#,
                key.chat_id.0,
                key.user_id.0,
                after_id,
            ),
        )?;
        Ok(rows.into_iter().map(StoredVector::into_pair).collect())
    }

    /// The conversation's messages among `ids`, in no particular order; never another
    /// conversation's.
    pub async fn messages_with_ids(
        &self,
        key: ConversationKey,
        ids: &[i64],
    ) -> Result<Vec<StoredMessage>> {
        run!(
            self.reader.fetch_all,
            // `+` keeps SQLite from choosing the conversation's index (a scan of all its
            // messages) over the few ids' primary key.
            sqlite = select!(
                StoredMessage,
                r#"FROM messages
                   WHERE id IN (SELECT value FROM json_each(?3)) AND +chat_id = ?1 AND +user_id = ?2"#,
                key.chat_id,
                key.user_id,
                json_ids(ids),
            ),
            postgres = select!(
                StoredMessage,
                r#"FROM messages
                   WHERE id = ANY($3) AND chat_id = $1 AND user_id = $2"#,
                key.chat_id.0,
                key.user_id.0,
                ids,
            ),
        )
    }

    /// The messages of `ranked` (ids of the conversation's messages, nearest first, with their
    /// similarity) in that order; a message deleted since it was ranked is left out.
    pub(super) async fn messages_ranked(
        &self,
        key: ConversationKey,
        ranked: &[(i64, f64)],
    ) -> Result<Vec<(StoredMessage, f64)>> {
        read_ranked(
            ranked,
            |ids| async move { self.messages_with_ids(key, &ids).await },
            |message| message.id,
        )
        .await
    }

    /// The conversation's `limit` session summaries nearest in meaning to `query`, nearest
    /// first, with their cosine similarity.
    pub async fn nearest_summaries(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(SummaryRecord, f64)>> {
        let ranked = self
            .nearest_stored(key, VectorSource::Summary, query, i64::MAX, limit)
            .await?;
        read_ranked(
            &ranked,
            |ids| async move { self.summaries_with_ids(key, &ids).await },
            |summary| summary.session_id,
        )
        .await
    }

    /// The conversation's `limit` notes nearest in meaning to `query`, nearest first, with
    /// their cosine similarity. Notes are read through the notes' own query, so a note found by
    /// meaning is the same record `/memory` shows.
    pub async fn nearest_notes(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(NoteRecord, f64)>> {
        let ranked = self
            .nearest_stored(key, VectorSource::Note, query, i64::MAX, limit)
            .await?;
        read_ranked(&ranked, |_| self.notes(key), |note| note.id).await
    }

    /// The ids of the conversation's `limit` messages, summaries or notes (`source`; messages
    /// older than `before_id`) whose vectors are nearest to `query`, nearest first, with their
    /// similarity. The stored vectors are read in pages by id, so a conversation's vectors are
    /// never all held at once.
    pub(super) async fn nearest_stored(
        &self,
        key: ConversationKey,
        source: VectorSource,
        query: &[u8],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<(i64, f64)>> {
        let mut nearest = Nearest::new(query, usize::try_from(limit).unwrap_or(usize::MAX));
        let mut after_id = i64::MIN;
        loop {
            let page = self
                .stored_vectors(key, source, after_id, before_id)
                .await?;
            let complete = i64::try_from(page.len()).unwrap_or(i64::MAX) < VECTORS_PER_READ;
            for row in &page {
                nearest.offer(row.source_id, &row.vector);
            }
            match page.last() {
                Some(last) if !complete => after_id = last.source_id,
                _ => return Ok(nearest.ranked()),
            }
        }
    }

    /// Up to [`VECTORS_PER_READ`] of the conversation's vectors of `source` with ids above
    /// `after_id` and below `before_id`, by id.
    async fn stored_vectors(
        &self,
        key: ConversationKey,
        source: VectorSource,
        after_id: i64,
        before_id: i64,
    ) -> Result<Vec<StoredVector>> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        if source == VectorSource::Note {
            return run!(
                self.reader.fetch_all,
                query_as!(
                    StoredVector,
                    sql = r#"SELECT note_id AS "source_id!", vector FROM note_vectors
                             WHERE chat_id = $1 AND user_id = $2
                               AND note_id > $3 AND note_id < $4
                             ORDER BY note_id LIMIT $5"#,
                    chat_id,
                    user_id,
                    after_id,
                    before_id,
                    VECTORS_PER_READ,
                ),
            );
        }
        let kind = source.kind();
        run!(
            self.reader.fetch_all,
            query_as!(
                StoredVector,
                sql = r#"SELECT source_id, vector FROM memory_vectors
                         WHERE chat_id = $1 AND user_id = $2 AND kind = $3
                           AND source_id > $4 AND source_id < $5
                         ORDER BY source_id LIMIT $6"#,
                chat_id,
                user_id,
                kind,
                after_id,
                before_id,
                VECTORS_PER_READ,
            ),
        )
    }

    /// How many vectors the conversation has, of messages, summaries and notes (for tests and
    /// `/stats`-like reports).
    pub async fn vector_count(&self, key: ConversationKey) -> Result<i64> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sql = r#"SELECT (SELECT count(*) FROM memory_vectors WHERE chat_id = $1 AND user_id = $2)
                              + (SELECT count(*) FROM note_vectors WHERE chat_id = $1 AND user_id = $2)
                                AS "count!: i64""#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }
}
