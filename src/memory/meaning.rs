//! Recall by meaning: the new message's vector, how vectors are stored, and how the ranking by
//! meaning is fused with the ranking by words.
//!
//! A turn asks the embedding server for one vector and waits at most `EMBEDDING_TIMEOUT_MS`.
//! When the server is slow or failing, the turn recalls by words alone and the failure is
//! logged and counted; the turns of the next [`PAUSE_AFTER_FAILURE`] then do not ask at all, so
//! a server that is down costs one timeout, not one per message. The background embedder keeps
//! trying on its own schedule.
//!
//! Vectors are stored at unit length scaled to signed bytes (-127..=127): cosine similarity is
//! then a dot product of small integers, and a vector of 384 dimensions takes 384 bytes.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::llm::embeddings::{EmbeddingClient, EmbeddingConfig};
use crate::metrics;

/// After a failed or late vector, turns recall by words alone for this long.
pub const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(30);

/// The constant of reciprocal rank fusion: an item's score is the sum of `1 / (K + rank)` over
/// the rankings it appears in. 60 is the value of the method's authors; it keeps one ranking's
/// top item from outweighing an item both rankings place well.
const FUSION_K: f64 = 60.0;

/// The embedding model as a turn uses it: the client, how long to wait, and when to stop asking
/// for a while.
#[derive(Debug)]
pub struct MeaningRecall {
    client: EmbeddingClient,
    timeout: Duration,
    min_similarity: f64,
    paused_until: Mutex<Option<Instant>>,
}

impl MeaningRecall {
    pub fn new(client: EmbeddingClient, config: &EmbeddingConfig) -> Self {
        Self {
            client,
            timeout: config.timeout(),
            min_similarity: config.min_similarity,
            paused_until: Mutex::new(None),
        }
    }

    /// Least cosine similarity for an item found by meaning alone.
    pub fn min_similarity(&self) -> f64 {
        self.min_similarity
    }

    /// The stored form of `text`'s vector, or `None` when the server failed or was late (or
    /// failed within the last [`PAUSE_AFTER_FAILURE`]).
    pub async fn query_vector(&self, text: &str) -> Option<Vec<u8>> {
        if self.is_paused() {
            metrics::recall_by_meaning("paused");
            return None;
        }
        match self.client.embed_queries(&[text], self.timeout).await {
            Ok(mut vectors) => {
                metrics::recall_by_meaning("used");
                vectors.pop().map(|vector| quantize(&vector))
            }
            Err(error) => {
                tracing::warn!(
                    error = %error,
                    "no vector for the new message; this turn recalls by words alone"
                );
                metrics::embedding_failed("turn", error.kind());
                metrics::recall_by_meaning("failed");
                *self.lock_pause() = Some(Instant::now() + PAUSE_AFTER_FAILURE);
                None
            }
        }
    }

    fn is_paused(&self) -> bool {
        let mut paused_until = self.lock_pause();
        match *paused_until {
            Some(until) if Instant::now() < until => true,
            Some(_) => {
                *paused_until = None;
                false
            }
            None => false,
        }
    }

    fn lock_pause(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.paused_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The stored form of a vector: scaled to unit length, then each value to a signed byte. A
/// vector of zeros stays zeros (it matches nothing).
pub fn quantize(vector: &[f32]) -> Vec<u8> {
    let length = vector
        .iter()
        .map(|value| f64::from(*value).powi(2))
        .sum::<f64>()
        .sqrt();
    vector
        .iter()
        .map(|value| {
            let unit = if length > 0.0 {
                f64::from(*value) / length
            } else {
                0.0
            };
            // In -127..=127 by construction: |unit| <= 1.
            let byte = (unit * 127.0).round() as i8;
            byte as u8
        })
        .collect()
}

/// Reciprocal rank fusion of rankings of ids (best first): every id of any ranking, best fused
/// score first; on equal scores the larger (newer) id first.
pub fn fuse(rankings: &[&[i64]]) -> Vec<i64> {
    let mut scores: Vec<(i64, f64)> = Vec::new();
    for ranking in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            let score = 1.0 / (FUSION_K + rank as f64 + 1.0);
            match scores.iter_mut().find(|(seen, _)| seen == id) {
                Some((_, total)) => *total += score,
                None => scores.push((*id, score)),
            }
        }
    }
    scores.sort_by(|(a_id, a), (b_id, b)| b.total_cmp(a).then(b_id.cmp(a_id)));
    scores.into_iter().map(|(id, _)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[u8], b: &[u8]) -> f64 {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x as i8) * f64::from(*y as i8))
            .sum();
        let norm = |v: &[u8]| {
            v.iter()
                .map(|x| f64::from(*x as i8).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        dot / (norm(a) * norm(b))
    }

    #[test]
    fn quantized_vectors_keep_their_cosine_similarity() {
        let a: Vec<f32> = (0..384)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) / 3.0)
            .collect();
        let b: Vec<f32> = (0..384)
            .map(|i| ((i * 5 % 11) as f32 - 5.0) / 2.0)
            .collect();
        let exact = {
            let dot: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(x * y)).sum();
            let norm = |v: &[f32]| v.iter().map(|x| f64::from(x * x)).sum::<f64>().sqrt();
            dot / (norm(&a) * norm(&b))
        };
        let stored = cosine(&quantize(&a), &quantize(&b));
        assert!((exact - stored).abs() < 0.01, "{exact} against {stored}");
        assert!((cosine(&quantize(&a), &quantize(&a)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn quantized_values_stay_in_range_and_zero_stays_zero() {
        let stored = quantize(&[1000.0, -1000.0, 0.0]);
        assert_eq!(
            stored.iter().map(|b| *b as i8).collect::<Vec<_>>(),
            [90, -90, 0]
        );
        assert_eq!(quantize(&[0.0, 0.0]), [0, 0]);
        assert_eq!(quantize(&[-5.0]).first().map(|b| *b as i8), Some(-127));
    }

    #[test]
    fn fusion_prefers_items_both_rankings_place_well() {
        // 3 is second by words and first by meaning; 1 is first by words only.
        let fused = fuse(&[&[1, 3, 4], &[3, 5]]);
        assert_eq!(fused, [3, 1, 5, 4]);
    }

    #[test]
    fn fusion_of_one_ranking_keeps_its_order() {
        assert_eq!(fuse(&[&[9, 2, 7]]), [9, 2, 7]);
        assert_eq!(fuse(&[]), Vec::<i64>::new());
    }
}
