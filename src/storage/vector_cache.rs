//! The message vectors of recently searched conversations, held in memory, so that a search by
//! meaning ranks them in one pass over contiguous bytes instead of reading every stored row again.
//!
//! A search scans every message vector of its conversation: 10,000 rows read back from the
//! database cost several milliseconds a turn, the same bytes in memory well under one. What is
//! held must never differ from what is stored, whoever wrote it (this process, another replica,
//! `telemem import`, the purge), so each search first reads the conversation's pair of counters
//! (`message_vector_counts`, kept by triggers: vectors ever added, ever removed). The same pair:
//! what is held is current. More added, none removed: only the vectors with larger ids than the
//! held ones are read and appended (message ids only grow). Anything removed or replaced: the
//! conversation is read again whole. The cache is bounded in bytes; the conversations searched
//! least recently give way first, and one too large for the bound is searched in the database.

use std::collections::BinaryHeap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::ConversationKey;

/// How many message vectors of one conversation were ever added and ever removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VectorCounts {
    pub added: i64,
    pub removed: i64,
}

impl VectorCounts {
    /// How many vectors are stored now.
    fn stored(self) -> i64 {
        self.added - self.removed
    }
}

/// One conversation's message vectors as stored when its counters read `counts`, ordered by
/// message id.
#[derive(Debug)]
pub struct ConversationVectors {
    counts: VectorCounts,
    /// The message ids, ascending.
    ids: Vec<i64>,
    /// The vectors, `dimensions` signed bytes each, in the order of `ids`.
    vectors: Vec<u8>,
    dimensions: usize,
    /// Rows read, including those of another length, left out of `ids`.
    rows_read: usize,
    /// The largest message id read.
    last_id_read: i64,
}

impl ConversationVectors {
    /// The vectors of `rows` (message id and vector, by ascending id, as read when the counters
    /// read `counts`) that have `dimensions` bytes: others are not comparable with the queries
    /// (another model's), as the database's search leaves them out.
    pub fn new(counts: VectorCounts, dimensions: usize, rows: Vec<(i64, Vec<u8>)>) -> Self {
        let mut held = Self {
            counts,
            ids: Vec::with_capacity(rows.len()),
            vectors: Vec::with_capacity(rows.len() * dimensions),
            dimensions,
            rows_read: 0,
            last_id_read: 0,
        };
        held.append(rows);
        held
    }

    /// Appends `rows`, read by ascending id, all with larger ids than those held.
    fn append(&mut self, rows: Vec<(i64, Vec<u8>)>) {
        self.rows_read += rows.len();
        for (id, vector) in rows {
            self.last_id_read = self.last_id_read.max(id);
            if vector.len() == self.dimensions {
                self.ids.push(id);
                self.vectors.extend_from_slice(&vector);
            }
        }
    }

    /// Whether these are all the vectors the counters say are stored.
    pub fn complete(&self) -> bool {
        i64::try_from(self.rows_read).is_ok_and(|read| read == self.counts.stored())
    }

    /// The largest message id read (0 for none).
    pub fn last_id(&self) -> i64 {
        self.last_id_read
    }

    /// Memory held, in bytes.
    fn bytes(&self) -> usize {
        self.ids.len() * std::mem::size_of::<i64>() + self.vectors.len()
    }

    /// The ids of the `limit` messages older than `before_id` nearest to `query` (a vector of the
    /// same length), nearest first (equal distances: smaller id first), with their similarity
    /// `1 - d² / (2 · 127²)`, as the database's search computes it.
    pub fn nearest(&self, query: &[u8], before_id: i64, limit: usize) -> Vec<(i64, f64)> {
        if query.len() != self.dimensions || self.dimensions == 0 {
            return Vec::new();
        }
        let older = self.ids.partition_point(|id| *id < before_id);
        let mut nearest = Nearest::new(query, limit);
        for (vector, id) in self.vectors[..older * self.dimensions]
            .chunks_exact(self.dimensions)
            .zip(&self.ids)
        {
            nearest.offer(*id, vector);
        }
        nearest.ranked()
    }
}

/// The `limit` vectors nearest to a query among those offered one at a time, kept in a bounded
/// heap: the ranking of the vectors held here and of those read from the database alike. Vectors of another length than the query's are not
/// comparable and left out.
pub(super) struct Nearest<'q> {
    query: &'q [u8],
    limit: usize,
    /// The nearest so far as (squared distance, id): the farthest on top, to give way first.
    kept: BinaryHeap<(i32, i64)>,
}

impl<'q> Nearest<'q> {
    pub(super) fn new(query: &'q [u8], limit: usize) -> Self {
        Self {
            query,
            limit,
            kept: BinaryHeap::new(),
        }
    }

    pub(super) fn offer(&mut self, id: i64, vector: &[u8]) {
        if vector.len() != self.query.len() || self.limit == 0 {
            return;
        }
        let candidate = (squared_distance(self.query, vector), id);
        if self.kept.len() < self.limit {
            self.kept.push(candidate);
        } else if let Some(mut farthest) = self.kept.peek_mut()
            && candidate < *farthest
        {
            // Most vectors are farther than every one kept: they cost one comparison.
            *farthest = candidate;
        }
    }

    /// The ids kept, nearest first (equal distances: smaller id first), with their similarity.
    pub(super) fn ranked(self) -> Vec<(i64, f64)> {
        self.kept
            .into_sorted_vec()
            .into_iter()
            .map(|(distance, id)| (id, similarity(distance)))
            .collect()
    }
}

/// The squared Euclidean distance of two vectors of signed bytes (stored as bytes) of the same
/// length. A search computes it for every vector of a conversation: with AVX2, where the
/// processor has it, eight times as many bytes go through at once as with the SSE2 every
/// x86-64 has, which the build must assume.
pub(super) fn squared_distance(left: &[u8], right: &[u8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just now.
        return unsafe { squared_distance_avx2(left, right) };
    }
    squared_distance_portable(left, right)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn squared_distance_avx2(left: &[u8], right: &[u8]) -> i32 {
    squared_distance_portable(left, right)
}

#[inline(always)]
fn squared_distance_portable(left: &[u8], right: &[u8]) -> i32 {
    // A difference of two signed bytes fits in i16 and its square in i32, the shape compilers
    // turn into multiply-and-add instructions; 2^31 / 255^2 terms would be needed to overflow.
    left.iter()
        .zip(right)
        .map(|(a, b)| {
            let difference = i16::from(*a as i8) - i16::from(*b as i8);
            i32::from(difference) * i32::from(difference)
        })
        .sum()
}

/// The similarity of two vectors stored at length 127 from their squared distance: their cosine.
pub(super) fn similarity(squared_distance: i32) -> f64 {
    1.0 - f64::from(squared_distance) / 32_258.0
}

/// What a search should do with the conversation's vectors, given its counters.
#[derive(Debug)]
pub enum Held {
    /// The held vectors are current.
    Current(Arc<ConversationVectors>),
    /// Only vectors were added since: read those with ids above the held ones' and append.
    Behind(Arc<ConversationVectors>),
    /// Nothing usable is held: read the conversation whole.
    Missing,
}

/// The bounded cache of conversations' message vectors.
#[derive(Debug)]
pub struct VectorCache {
    capacity_bytes: usize,
    state: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    conversations: HashMap<ConversationKey, Entry>,
    bytes: usize,
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    vectors: Arc<ConversationVectors>,
    last_used: u64,
}

impl VectorCache {
    /// A cache holding at most `capacity_bytes` of vectors and their ids (0: none).
    pub fn new(capacity_bytes: usize) -> Self {
        Self {
            capacity_bytes,
            state: Mutex::new(CacheState::default()),
        }
    }

    /// Whether the `count` vectors of `dimensions` bytes each would fit at all.
    pub fn would_hold(&self, count: i64, dimensions: usize) -> bool {
        usize::try_from(count).is_ok_and(|count| {
            count.saturating_mul(dimensions + std::mem::size_of::<i64>()) <= self.capacity_bytes
        })
    }

    /// What is held of `key`'s vectors of `dimensions` bytes, judged by its counters `counts`
    /// read just now.
    pub fn look_up(&self, key: ConversationKey, counts: VectorCounts, dimensions: usize) -> Held {
        let mut state = self.lock();
        state.clock += 1;
        let clock = state.clock;
        let Some(entry) = state.conversations.get_mut(&key) else {
            return Held::Missing;
        };
        entry.last_used = clock;
        let held = &entry.vectors;
        if held.dimensions != dimensions {
            Held::Missing
        } else if held.counts == counts {
            Held::Current(Arc::clone(held))
        } else if held.counts.removed == counts.removed && held.counts.added < counts.added {
            Held::Behind(Arc::clone(held))
        } else {
            Held::Missing
        }
    }

    /// `behind` with `rows` (the vectors with larger ids, read after the counters read `counts`)
    /// appended. `None` when that is not all that is stored (a vector with a smaller id arrived
    /// late, or more arrived while reading): then read the conversation whole.
    pub fn caught_up(
        behind: &ConversationVectors,
        counts: VectorCounts,
        rows: Vec<(i64, Vec<u8>)>,
    ) -> Option<ConversationVectors> {
        let mut vectors = ConversationVectors {
            counts,
            ids: Vec::with_capacity(behind.ids.len() + rows.len()),
            vectors: Vec::with_capacity(behind.vectors.len() + rows.len() * behind.dimensions),
            dimensions: behind.dimensions,
            rows_read: behind.rows_read,
            last_id_read: behind.last_id_read,
        };
        vectors.ids.extend_from_slice(&behind.ids);
        vectors.vectors.extend_from_slice(&behind.vectors);
        vectors.append(rows);
        vectors.complete().then_some(vectors)
    }

    /// Holds `vectors` for `key` when complete and within the bound, giving way to the least
    /// recently searched conversations; the shared handle either way.
    pub fn hold(
        &self,
        key: ConversationKey,
        vectors: ConversationVectors,
    ) -> Arc<ConversationVectors> {
        let vectors = Arc::new(vectors);
        let bytes = vectors.bytes();
        if !vectors.complete() || bytes > self.capacity_bytes {
            return vectors;
        }
        let mut state = self.lock();
        state.clock += 1;
        let clock = state.clock;
        if let Some(replaced) = state.conversations.remove(&key) {
            state.bytes -= replaced.vectors.bytes();
        }
        while state.bytes + bytes > self.capacity_bytes {
            let Some(oldest) = state
                .conversations
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(key, _)| *key)
            else {
                break;
            };
            if let Some(evicted) = state.conversations.remove(&oldest) {
                state.bytes -= evicted.vectors.bytes();
            }
        }
        state.bytes += bytes;
        state.conversations.insert(
            key,
            Entry {
                vectors: Arc::clone(&vectors),
                last_used: clock,
            },
        );
        vectors
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn bytes_held(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheState> {
        // A panic elsewhere while holding the lock leaves plain data behind, still consistent
        // enough to use: the byte count is only ever adjusted together with the map.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    fn key(user: i64) -> ConversationKey {
        ConversationKey::new(ChatId(user), UserId(user))
    }

    fn counts(added: i64, removed: i64) -> VectorCounts {
        VectorCounts { added, removed }
    }

    fn vector(values: [i8; 3]) -> Vec<u8> {
        values.iter().map(|value| *value as u8).collect()
    }

    /// A conversation's vectors of three dimensions, as read after every one of them was added.
    fn held(vectors: Vec<(i64, Vec<u8>)>) -> ConversationVectors {
        let added = vectors.len() as i64;
        ConversationVectors::new(counts(added, 0), 3, vectors)
    }

    #[test]
    fn the_distance_is_exact_at_every_length_and_at_the_extremes() {
        // Every pair of byte values, and lengths that leave remainders after any lane width.
        let bytes: Vec<u8> = (0..=255u8).collect();
        for length in [0, 1, 7, 31, 33, 127, 256, 384, 1536] {
            let left: Vec<u8> = bytes.iter().cycle().take(length).copied().collect();
            let right: Vec<u8> = bytes.iter().rev().cycle().take(length).copied().collect();
            let expected: i32 = left
                .iter()
                .zip(&right)
                .map(|(a, b)| (i32::from(*a as i8) - i32::from(*b as i8)).pow(2))
                .sum();
            assert_eq!(squared_distance(&left, &right), expected, "length {length}");
        }
        let lowest = vec![(-128i8) as u8; 384];
        let highest = vec![127u8; 384];
        assert_eq!(squared_distance(&lowest, &highest), 384 * 255 * 255);
    }

    #[test]
    fn opposite_unit_vectors_have_similarity_minus_one_and_equal_ones_one() {
        let mut up = vec![0_u8; 127];
        up[0] = 127;
        let down: Vec<u8> = up
            .iter()
            .map(|value| (*value as i8).wrapping_neg() as u8)
            .collect();
        assert_eq!(similarity(squared_distance(&up, &up)), 1.0);
        assert_eq!(similarity(squared_distance(&up, &down)), -1.0);
    }

    #[test]
    fn vectors_of_another_length_than_the_query_are_left_out() {
        let held = held(vec![
            (1, vector([10, 9, 0])),
            (2, vec![10, 10]),
            (3, vector([0, 0, 0])),
        ]);
        let found: Vec<i64> = held
            .nearest(&vector([10, 10, 0]), i64::MAX, 10)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(found, [1, 3]);
    }

    #[test]
    fn nearest_ranks_older_vectors_by_distance_and_ties_by_id() {
        let held = held(vec![
            (1, vector([127, 0, 0])),
            (2, vector([0, 127, 0])),
            (3, vector([127, 0, 0])),
            (9, vector([127, 0, 0])),
        ]);
        let found = held.nearest(&vector([127, 0, 0]), 9, 10);
        assert_eq!(
            found.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            [1, 3, 2]
        );
        assert!((found[0].1 - 1.0).abs() < 1e-9);
        assert!(
            found[2].1.abs() < 1e-3,
            "orthogonal vectors: {}",
            found[2].1
        );
        assert_eq!(held.nearest(&vector([127, 0, 0]), 9, 1).len(), 1);
        assert!(held.nearest(&[1, 2], 9, 10).is_empty(), "another length");
    }

    #[test]
    fn counters_decide_current_behind_or_missing() {
        let cache = VectorCache::new(1 << 20);
        assert!(matches!(
            cache.look_up(key(1), counts(1, 0), 3),
            Held::Missing
        ));
        cache.hold(key(1), held(vec![(5, vector([1, 2, 3]))]));
        assert!(matches!(
            cache.look_up(key(1), counts(1, 0), 3),
            Held::Current(_)
        ));
        assert!(matches!(
            cache.look_up(key(2), counts(1, 0), 3),
            Held::Missing
        ));
        let Held::Behind(behind) = cache.look_up(key(1), counts(2, 0), 3) else {
            panic!("one vector added: behind");
        };
        let caught_up = VectorCache::caught_up(&behind, counts(2, 0), vec![(7, vector([3, 2, 1]))])
            .expect("complete");
        assert_eq!(caught_up.last_id(), 7);
        assert!(
            VectorCache::caught_up(&behind, counts(3, 0), vec![(7, vector([3, 2, 1]))]).is_none(),
            "a vector with a smaller id arrived late: read whole"
        );
        assert!(matches!(
            cache.look_up(key(1), counts(2, 1), 3),
            Held::Missing
        ));
    }

    #[test]
    fn least_recently_searched_conversations_give_way() {
        let per_conversation = 2 * (3 + 8);
        let cache = VectorCache::new(2 * per_conversation);
        let two = |id| vec![(id, vector([1, 1, 1])), (id + 1, vector([2, 2, 2]))];
        cache.hold(key(1), held(two(1)));
        cache.hold(key(2), held(two(1)));
        assert!(matches!(
            cache.look_up(key(1), counts(2, 0), 3),
            Held::Current(_)
        ));
        cache.hold(key(3), held(two(1)));
        assert!(matches!(
            cache.look_up(key(2), counts(2, 0), 3),
            Held::Missing
        ));
        assert!(matches!(
            cache.look_up(key(1), counts(2, 0), 3),
            Held::Current(_)
        ));
        assert!(matches!(
            cache.look_up(key(3), counts(2, 0), 3),
            Held::Current(_)
        ));
        assert_eq!(cache.bytes_held(), 2 * per_conversation);

        let tiny = VectorCache::new(per_conversation - 1);
        tiny.hold(key(1), held(two(1)));
        assert!(matches!(
            tiny.look_up(key(1), counts(2, 0), 3),
            Held::Missing
        ));
        assert_eq!(tiny.bytes_held(), 0);
        assert!(!tiny.would_hold(2, 3) && tiny.would_hold(1, 3));
    }

    #[test]
    fn incomplete_reads_are_used_once_but_not_held() {
        let cache = VectorCache::new(1 << 20);
        let read = ConversationVectors::new(counts(3, 0), 3, vec![(1, vector([1, 1, 1]))]);
        let used = cache.hold(key(1), read);
        assert_eq!(used.nearest(&vector([1, 1, 1]), i64::MAX, 5).len(), 1);
        assert!(matches!(
            cache.look_up(key(1), counts(3, 0), 3),
            Held::Missing
        ));
    }

    fn pair(values: [i8; 2]) -> Vec<u8> {
        values.iter().map(|value| *value as u8).collect()
    }

    fn offered(limit: usize, vectors: &[(i64, Vec<u8>)]) -> Vec<i64> {
        let query = pair([10, 10]);
        let mut nearest = Nearest::new(&query, limit);
        for (id, vector) in vectors {
            nearest.offer(*id, vector);
        }
        nearest.ranked().into_iter().map(|(id, _)| id).collect()
    }

    #[test]
    fn the_nearest_come_first_ties_by_id_and_other_lengths_are_left_out() {
        let vectors = [
            (7, pair([0, 0])),
            (5, pair([10, 11])),
            (3, pair([10, 9])),
            (9, vec![10, 10, 10]),
            (4, pair([10, 10])),
        ];
        assert_eq!(offered(3, &vectors), [4, 3, 5]);
        assert_eq!(offered(usize::MAX, &vectors), [4, 3, 5, 7]);
        assert!(offered(0, &vectors).is_empty());
    }
}
