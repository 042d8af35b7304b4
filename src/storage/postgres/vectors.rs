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

use crate::storage::vector_cache::{similarity, squared_distance};
use crate::storage::{MemoryVector, VectorSource};

/// The ids of the `limit` vectors nearest to `query` (all of them for a negative `limit`),
/// nearest first (equal distances: smaller id first), with their squared distances. Vectors of
/// another length than the query's are not comparable and left out.
pub(in crate::storage) fn nearest(
    query: &[u8],
    vectors: Vec<(i64, Vec<u8>)>,
    limit: i64,
) -> Vec<(i64, i32)> {
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
pub(in crate::storage) fn in_ranked_order<T>(
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
