//! PostgreSQL: embedding vectors (of messages and summaries in `memory_vectors`, of notes in
//! `note_vectors`), the embedder's progress, and the search by meaning within one
//! conversation, with the same meaning as on SQLite (`storage/vectors.rs`): vectors of signed
//! bytes stored at one length (127), compared by Euclidean distance `d`, similarity
//! `1 - d² / (2 · 127²)`, nearest first.
//!
//! In SQL the distance would take a function call per byte (`get_byte`) of every vector. A
//! search over messages usually ranks the vectors held in memory (`storage/vector_cache.rs`);
//! otherwise a search reads the conversation's vectors through the
//! table's primary key `(chat_id, user_id, kind, …)`, which bounds it to that conversation,
//! compares them here in one tight loop, and then reads only the nearest rows, checking their
//! owner again.
//!
//! Several replicas may share the database. The embedder runs on one at a time, but should two
//! run, their writes cannot corrupt the progress: the mark only ever moves forward
//! (`greatest`), a vector written twice is replaced, and a model switch locks the progress row
//! while it deletes the old model's vectors.

use std::collections::{BTreeMap, HashMap};

use super::PgStore;
use crate::storage::vector_cache::{VectorCounts, similarity, squared_distance};
use crate::storage::vectors::notes_in_ranked_order;
use crate::storage::{
    ChatId, ConversationKey, MemoryVector, NoteRecord, Role, StoredMessage, SummaryRecord,
    TextToEmbed, UserId, VectorSource,
};

/// The ids of the `limit` vectors nearest to `query` (all of them for a negative `limit`),
/// nearest first (equal distances: smaller id first), with their squared distances. Vectors of
/// another length than the query's are not comparable and left out.
fn nearest(query: &[u8], vectors: Vec<(i64, Vec<u8>)>, limit: i64) -> Vec<(i64, i32)> {
    let mut distances: Vec<(i32, i64)> = vectors
        .into_iter()
        .filter(|(_, vector)| vector.len() == query.len())
        .map(|(id, vector)| (squared_distance(query, &vector), id))
        .collect();
    distances.sort_unstable();
    if let Ok(limit) = usize::try_from(limit) {
        distances.truncate(limit);
    }
    distances
        .into_iter()
        .map(|(distance, id)| (id, distance))
        .collect()
}

/// `rows` in the order of `ranked` (ids with their squared distances), with their similarity.
/// A ranked id without a row (deleted meanwhile, or not the conversation's) is left out.
fn in_ranked_order<T>(
    ranked: &[(i64, i32)],
    rows: Vec<T>,
    id_of: impl Fn(&T) -> i64,
) -> Vec<(T, f64)> {
    let mut by_id: HashMap<i64, T> = rows.into_iter().map(|row| (id_of(&row), row)).collect();
    ranked
        .iter()
        .filter_map(|(id, distance)| by_id.remove(id).map(|row| (row, similarity(*distance))))
        .collect()
}

/// The vectors to store, one per (source, id), in a fixed order: with two writers, rows locked
/// in the same order cannot deadlock, and one statement may not write a row twice.
fn distinct_in_order(vectors: &[MemoryVector], source: VectorSource) -> Vec<&MemoryVector> {
    // A later vector for the same row wins, as a later `INSERT OR REPLACE` does on SQLite.
    let chosen: BTreeMap<i64, &MemoryVector> = vectors
        .iter()
        .filter(|vector| vector.source == source)
        .map(|vector| (vector.source_id, vector))
        .collect();
    chosen.into_values().collect()
}

impl PgStore {
    /// Makes `model` the model the stored vectors come from. When they came from another model,
    /// all of them are deleted and every message waits for a vector again (vectors of two
    /// models cannot be compared). Returns whether that happened. The progress row stays locked
    /// until the switch commits, so a second replica switching too waits, then sees it done.
    pub async fn use_embedding_model(&self, model: &str) -> Result<bool, sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        let current =
            sqlx::query_scalar!("SELECT model FROM embedding_progress WHERE id = 1 FOR UPDATE")
                .fetch_one(&mut *transaction)
                .await?;
        if current.as_deref() == Some(model) {
            return Ok(false);
        }
        sqlx::query!("DELETE FROM memory_vectors WHERE true")
            .execute(&mut *transaction)
            .await?;
        sqlx::query!("DELETE FROM note_vectors WHERE true")
            .execute(&mut *transaction)
            .await?;
        sqlx::query!(
            "UPDATE embedding_progress SET model = $1, messages_through = 0 WHERE id = 1",
            model
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(current.is_some())
    }

    /// Up to `limit` messages waiting for a vector, oldest first.
    pub async fn messages_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = sqlx::query!(
            r#"SELECT id, chat_id, user_id, content FROM messages AS message
               WHERE id > (SELECT messages_through FROM embedding_progress WHERE id = 1)
                 AND NOT EXISTS (
                     SELECT 1 FROM memory_vectors AS vector
                     WHERE vector.chat_id = message.chat_id AND vector.user_id = message.user_id
                       AND vector.kind = 0 AND vector.source_id = message.id)
               ORDER BY id
               LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|row| TextToEmbed {
                key: ConversationKey::new(ChatId(row.chat_id), UserId(row.user_id)),
                source: VectorSource::Message,
                source_id: row.id,
                text: row.content,
            })
            .collect())
    }

    /// Up to `limit` session summaries without a vector.
    pub async fn summaries_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = sqlx::query!(
            r#"SELECT summary.session_id, summary.chat_id, summary.user_id, summary.summary
               FROM session_summaries AS summary
               WHERE NOT EXISTS (
                   SELECT 1 FROM memory_vectors AS vector
                   WHERE vector.chat_id = summary.chat_id AND vector.user_id = summary.user_id
                     AND vector.kind = 1 AND vector.source_id = summary.session_id)
               ORDER BY summary.session_id
               LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|row| TextToEmbed {
                key: ConversationKey::new(ChatId(row.chat_id), UserId(row.user_id)),
                source: VectorSource::Summary,
                source_id: row.session_id,
                text: row.summary,
            })
            .collect())
    }

    /// Up to `limit` notes without a vector.
    pub async fn notes_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        let rows = sqlx::query!(
            r#"SELECT note.id, note.chat_id, note.user_id, note.note
               FROM user_notes AS note
               WHERE NOT EXISTS (
                   SELECT 1 FROM note_vectors AS vector
                   WHERE vector.chat_id = note.chat_id AND vector.user_id = note.user_id
                     AND vector.note_id = note.id)
               ORDER BY note.id
               LIMIT CASE WHEN $1::bigint >= 0 THEN $1 END"#,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|row| TextToEmbed {
                key: ConversationKey::new(ChatId(row.chat_id), UserId(row.user_id)),
                source: VectorSource::Note,
                source_id: row.id,
                text: row.note,
            })
            .collect())
    }

    /// Stores `vectors` for the rows that still exist (a row deleted since it was read gets
    /// none; a summary or note rewritten since gets none for its old text) and, in the same
    /// transaction, marks the messages up to `messages_through` as done, including those that
    /// could not be embedded. The mark never moves back, whoever stored vectors last, and passes
    /// only messages stored a minute ago or more: ids are handed out before commit, so a message
    /// with a lower id may still commit after a higher one; until the mark passes them, messages
    /// with a vector are told apart by the vector itself.
    pub async fn store_vectors(
        &self,
        vectors: &[MemoryVector],
        messages_through: Option<i64>,
    ) -> Result<(), sqlx::Error> {
        let messages = distinct_in_order(vectors, VectorSource::Message);
        let summaries = distinct_in_order(vectors, VectorSource::Summary);
        let notes = distinct_in_order(vectors, VectorSource::Note);
        let mut transaction = self.pool.begin().await?;
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
            let texts: Vec<String> = summaries.iter().map(|vector| vector.text.clone()).collect();
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

    /// How many messages are still waiting for a vector.
    pub async fn messages_waiting_for_vectors(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT count(*) AS "count!" FROM messages AS message
               WHERE id > (SELECT messages_through FROM embedding_progress WHERE id = 1)
                 AND NOT EXISTS (
                     SELECT 1 FROM memory_vectors AS vector
                     WHERE vector.chat_id = message.chat_id AND vector.user_id = message.user_id
                       AND vector.kind = 0 AND vector.source_id = message.id)"#
        )
        .fetch_one(&self.pool)
        .await
    }

    /// How many message vectors the conversation ever had added and removed.
    pub async fn message_vector_counts(
        &self,
        key: ConversationKey,
    ) -> Result<VectorCounts, sqlx::Error> {
        let counts = sqlx::query!(
            r#"SELECT added, removed FROM message_vector_counts
               WHERE chat_id = $1 AND user_id = $2"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(
            counts.map_or_else(VectorCounts::default, |row| VectorCounts {
                added: row.added,
                removed: row.removed,
            }),
        )
    }

    /// The conversation's message vectors with ids above `after_id`, by id.
    pub async fn message_vectors_after(
        &self,
        key: ConversationKey,
        after_id: i64,
    ) -> Result<Vec<(i64, Vec<u8>)>, sqlx::Error> {
        let rows = sqlx::query!(
            r#"SELECT source_id, vector FROM memory_vectors
               WHERE chat_id = $1 AND user_id = $2 AND kind = 0 AND source_id > $3
               ORDER BY source_id"#,
            key.chat_id.0,
            key.user_id.0,
            after_id,
        )
        .fetch_all(&self.pool)
        .await?;
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
        .fetch_all(&self.pool)
        .await
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
        let vectors = sqlx::query!(
            r#"SELECT source_id, vector FROM memory_vectors
               WHERE chat_id = $1 AND user_id = $2 AND kind = 0 AND source_id < $3"#,
            key.chat_id.0,
            key.user_id.0,
            before_id,
        )
        .fetch_all(&self.pool)
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
        .fetch_all(&self.pool)
        .await?;
        Ok(in_ranked_order(&ranked, messages, |message| message.id))
    }

    /// The conversation's `limit` session summaries nearest in meaning to `query`, nearest
    /// first, with their cosine similarity.
    pub async fn nearest_summaries(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(SummaryRecord, f64)>, sqlx::Error> {
        let vectors = sqlx::query!(
            r#"SELECT source_id, vector FROM memory_vectors
               WHERE chat_id = $1 AND user_id = $2 AND kind = 1"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
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
        .fetch_all(&self.pool)
        .await?;
        Ok(in_ranked_order(&ranked, summaries, |summary| {
            summary.session_id
        }))
    }

    /// The conversation's `limit` notes nearest in meaning to `query`, nearest first, with
    /// their cosine similarity.
    pub async fn nearest_notes(
        &self,
        key: ConversationKey,
        query: &[u8],
        limit: i64,
    ) -> Result<Vec<(NoteRecord, f64)>, sqlx::Error> {
        let vectors = sqlx::query!(
            r#"SELECT note_id, vector FROM note_vectors WHERE chat_id = $1 AND user_id = $2"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
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

    /// How many vectors the conversation has, of messages, summaries and notes (for tests and
    /// `/stats`-like reports).
    pub async fn vector_count(&self, key: ConversationKey) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT (SELECT count(*) FROM memory_vectors WHERE chat_id = $1 AND user_id = $2)
                    + (SELECT count(*) FROM note_vectors WHERE chat_id = $1 AND user_id = $2)
                      AS "count!""#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_one(&self.pool)
        .await
    }
}

/// Stores the vectors of the notes that still exist with the text they were computed from.
async fn store_note_vectors(
    transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    notes: &[&MemoryVector],
) -> Result<(), sqlx::Error> {
    let ids: Vec<i64> = notes.iter().map(|vector| vector.source_id).collect();
    let bytes: Vec<Vec<u8>> = notes.iter().map(|vector| vector.vector.clone()).collect();
    let texts: Vec<String> = notes.iter().map(|vector| vector.text.clone()).collect();
    sqlx::query!(
        r#"INSERT INTO note_vectors (chat_id, user_id, note_id, vector)
           SELECT note.chat_id, note.user_id, note.id, given.vector
           FROM unnest($1::bigint[], $2::bytea[], $3::text[]) WITH ORDINALITY
                AS given (id, vector, text, position)
           JOIN user_notes AS note ON note.id = given.id AND note.note = given.text
           ORDER BY given.position
           ON CONFLICT (chat_id, user_id, note_id) DO UPDATE SET vector = excluded.vector"#,
        &ids,
        &bytes,
        &texts,
    )
    .execute(&mut **transaction)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(values: &[i8]) -> Vec<u8> {
        values.iter().map(|&value| value as u8).collect()
    }

    #[test]
    fn distances_read_the_bytes_as_signed() {
        assert_eq!(
            squared_distance(&bytes(&[127, -127]), &bytes(&[-127, 127])),
            2 * 254 * 254
        );
        assert_eq!(squared_distance(&bytes(&[-1]), &bytes(&[1])), 4);
    }

    #[test]
    fn opposite_unit_vectors_have_similarity_minus_one_and_equal_ones_one() {
        let mut up = vec![0_i8; 127];
        up[0] = 127;
        let down: Vec<i8> = up.iter().map(|value| -value).collect();
        assert_eq!(similarity(squared_distance(&bytes(&up), &bytes(&up))), 1.0);
        assert_eq!(
            similarity(squared_distance(&bytes(&up), &bytes(&down))),
            -1.0
        );
    }

    #[test]
    fn nearest_come_first_ties_by_id_and_other_lengths_are_left_out() {
        let query = bytes(&[10, 10]);
        let vectors = vec![
            (7, bytes(&[0, 0])),
            (3, bytes(&[10, 9])),
            (5, bytes(&[10, 11])),
            (9, bytes(&[10, 10, 10])),
        ];
        assert_eq!(nearest(&query, vectors.clone(), 2), [(3, 1), (5, 1)]);
        assert_eq!(nearest(&query, vectors.clone(), -1).len(), 3);
        assert!(nearest(&query, vectors, 0).is_empty());
    }

    #[test]
    fn a_later_vector_for_the_same_row_wins_and_rows_come_in_id_order() {
        let vector = |source_id, text: &str| MemoryVector {
            source: VectorSource::Message,
            source_id,
            text: text.into(),
            vector: vec![1],
        };
        let given = [vector(9, "first"), vector(2, "other"), vector(9, "second")];
        let chosen: Vec<(i64, &str)> = distinct_in_order(&given, VectorSource::Message)
            .iter()
            .map(|vector| (vector.source_id, vector.text.as_str()))
            .collect();
        assert_eq!(chosen, [(2, "other"), (9, "second")]);
    }
}
