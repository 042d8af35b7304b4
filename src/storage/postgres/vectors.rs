//! PostgreSQL: storing embedding vectors in batches (of messages and summaries in
//! `memory_vectors`, of notes in `note_vectors`), one statement per kind with the vectors as
//! arrays.
//!
//! Several replicas may share the database. The embedder runs on one at a time, but should two
//! run, their writes cannot corrupt the progress: the mark only ever moves forward
//! (`greatest`), a vector written twice is replaced, and a model switch locks the progress row
//! while it deletes the old model's vectors.

use std::collections::BTreeMap;

use crate::storage::Result;
use crate::storage::{MemoryVector, VectorSource};

/// The vectors to store, one per (source, id), in a fixed order: with two writers, rows locked
/// in the same order cannot deadlock, and one statement may not write a row twice.
pub(in crate::storage) fn distinct_in_order(
    vectors: &[MemoryVector],
    source: VectorSource,
) -> Vec<&MemoryVector> {
    // A later vector for the same row wins, as a later `INSERT OR REPLACE` does on SQLite.
    let chosen: BTreeMap<i64, &MemoryVector> = vectors
        .iter()
        .filter(|vector| vector.source == source)
        .map(|vector| (vector.source_id, vector))
        .collect();
    chosen.into_values().collect()
}

/// Stores the vectors of the notes that still exist with the text they were computed from.
pub(in crate::storage) async fn store_note_vectors(
    transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    notes: &[&MemoryVector],
) -> Result<()> {
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
