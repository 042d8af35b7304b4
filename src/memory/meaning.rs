//! Recall by meaning: the new message's vector, how vectors are stored, and which similarity
//! counts as related for the model in use.
//!
//! Models differ in their range of cosine similarity: unrelated sentences score 0.70–0.80 with
//! multilingual-e5-small and about 0.0–0.2 with all-MiniLM, so no fixed floor suits both. The
//! floor is calibrated for the model instead ([`similarity_floor`]): a few questions and the
//! texts that answer them, in several languages and across them, are embedded once, and the
//! floor is what the model gives a question and a text answering another one, on average.
//! `EMBEDDING_MIN_SIMILARITY`, when set, replaces the calibration. Above the floor, only the
//! order of similarities counts ([`crate::memory::relevance`]).
//!
//! Small talk is near everything: with multilingual-e5-small "Okay, I have to go. Bye!" scores
//! higher against "Where do I live now?" than "We moved! Our new address is …" does, so a
//! chat's greetings would crowd out what answers. The calibration therefore also embeds a few
//! lines of small talk in several languages, and a question's vector is moved away from their
//! mean before it is compared ([`away_from_small_talk`]): a text's score loses what it owes to
//! sounding like small talk, whatever its language. The floor is calibrated on the moved
//! questions, so it stays on the same scale. With a configured floor nothing is moved.
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

/// Questions and texts that answer them, in the languages people write most and across them:
/// what the model gives a question and another pair's answer is its similarity of unrelated
/// texts, from which the floor is calibrated.
const CALIBRATION_PAIRS: [(&str, &str); 8] = [
    (
        "Where is my parcel from the electronics shop?",
        "The package with the new headphones was shipped on Monday, tracking number 4711.",
    ),
    (
        "Wann ist mein Termin beim Hautarzt?",
        "Der Termin bei der Dermatologin ist am Freitag um zehn Uhr.",
    ),
    (
        "Как зовут мою собаку?",
        "Нашего пса зовут Бруно, ему три года.",
    ),
    (
        "¿En qué ciudad vivo ahora?",
        "Me mudé a Valencia el mes pasado.",
    ),
    (
        "What is my wife's birthday?",
        "Meine Frau hat am 12. März Geburtstag.",
    ),
    (
        "Какой язык я учу?",
        "I am learning Portuguese for my trip to Lisbon.",
    ),
    (
        "¿Qué alergia tengo?",
        "I am allergic to peanuts, even small traces.",
    ),
    (
        "Where do I work?",
        "Ich arbeite als Ingenieurin bei Siemens in München.",
    ),
];

/// Lines of small talk, as people write them to a chat bot in the languages it speaks: their
/// mean vector is the direction a question is moved away from.
const SMALL_TALK: [&str; 16] = [
    "Hi! Do you have a minute?",
    "Okay, I have to go. Bye!",
    "Good night, sweet dreams!",
    "Thanks, noted.",
    "Haha, that happens to everyone.",
    "Sounds great!",
    "Hallo! Wie geht's?",
    "Tschüss, bis morgen!",
    "Привет! Как дела?",
    "Пока! До скорого.",
    "¡Hola! ¿Qué tal?",
    "¡Buenas noches!",
    "Salut, ça va ?",
    "Bonne nuit !",
    "Ciao! Come va?",
    "Olá! Tudo bem?",
];

/// How far a question's vector is moved away from small talk's mean: its whole length, which
/// on the development conversations puts the statements that answer above the greetings.
const SMALL_TALK_WEIGHT: f32 = 1.0;

/// What the calibration found for the model in use.
#[derive(Clone, Debug)]
struct Calibration {
    /// Least similarity of a related text ([`similarity_floor`]), for moved questions.
    floor: f64,
    /// The mean vector of [`SMALL_TALK`], as passages.
    small_talk: Vec<f32>,
}

/// The embedding model as a turn uses it: the client, how long to wait, and when to stop asking
/// for a while.
#[derive(Debug)]
pub struct MeaningRecall {
    client: EmbeddingClient,
    timeout: Duration,
    /// `EMBEDDING_MIN_SIMILARITY`, which replaces the calibration.
    configured_floor: Option<f64>,
    calibration: Mutex<Option<Calibration>>,
    /// Held while a calibration runs: turns that come meanwhile do not start another.
    calibrating: tokio::sync::Mutex<()>,
    paused_until: Mutex<Option<Instant>>,
}

impl MeaningRecall {
    pub fn new(client: EmbeddingClient, config: &EmbeddingConfig) -> Self {
        Self {
            client,
            timeout: config.timeout(),
            configured_floor: config.min_similarity,
            calibration: Mutex::new(None),
            calibrating: tokio::sync::Mutex::new(()),
            paused_until: Mutex::new(None),
        }
    }

    /// Least cosine similarity for an item to be found by meaning: the configured one, else
    /// the calibrated one; before a calibration succeeded, none (the ranking alone decides).
    pub fn similarity_floor(&self) -> f64 {
        self.configured_floor
            .or_else(|| lock(&self.calibration).as_ref().map(|found| found.floor))
            .unwrap_or(-1.0)
    }

    /// Calibrates the floor for the model, unless configured, done or running, beside the first
    /// turn's own request and within its wait; a failure leaves it for the next turn to try again.
    pub async fn calibrate(&self) {
        if self.configured_floor.is_some() || lock(&self.calibration).is_some() {
            return;
        }
        let Ok(_calibrating) = self.calibrating.try_lock() else {
            return;
        };
        let questions: Vec<&str> = CALIBRATION_PAIRS.iter().map(|(q, _)| *q).collect();
        let answers: Vec<&str> = CALIBRATION_PAIRS.iter().map(|(_, a)| *a).collect();
        let (questions, answers, small_talk) = tokio::join!(
            self.client.embed_queries(&questions, self.timeout),
            self.client.embed_passages(&answers, self.timeout),
            self.client.embed_passages(&SMALL_TALK, self.timeout),
        );
        match (questions, answers, small_talk) {
            (Ok(questions), Ok(answers), Ok(small_talk)) => {
                let small_talk = mean(&small_talk);
                let moved: Vec<Vec<f32>> = questions
                    .iter()
                    .map(|question| away_from_small_talk(question, &small_talk))
                    .collect();
                let floor = similarity_floor(&moved, &answers);
                tracing::info!(
                    floor,
                    "calibrated the similarity floor of the embedding model"
                );
                *lock(&self.calibration) = Some(Calibration { floor, small_talk });
            }
            (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => {
                tracing::warn!(error = %error, "could not calibrate the embedding model yet");
            }
        }
    }

    /// The stored form of `text`'s vector, or `None` when the server failed or was late (or
    /// failed within the last [`PAUSE_AFTER_FAILURE`]). `path` names who asks, for the metrics:
    /// `turn` or `search`.
    pub async fn query_vector(&self, text: &str, path: &'static str) -> Option<Vec<u8>> {
        if self.is_paused() {
            metrics::recall_by_meaning("paused");
            return None;
        }
        let texts = [text];
        metrics::embedding_query(path);
        let (vector, ()) = tokio::join!(
            self.client.embed_queries(&texts, self.timeout),
            self.calibrate()
        );
        match vector {
            Ok(mut vectors) => {
                metrics::recall_by_meaning("used");
                let calibration = lock(&self.calibration).clone();
                vectors.pop().map(|vector| match calibration {
                    Some(found) if self.configured_floor.is_none() => {
                        quantize(&away_from_small_talk(&vector, &found.small_talk))
                    }
                    _ => quantize(&vector),
                })
            }
            Err(error) => {
                tracing::warn!(
                    error = %error,
                    "no vector for the new message; this turn recalls by words alone"
                );
                metrics::embedding_failed(path, error.kind());
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
        lock(&self.paused_until)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The cosine similarity of two vectors; 0 for a zero vector.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let norms = norm(a) * norm(b);
    if norms > 0.0 { dot / norms } else { 0.0 }
}

/// `question`'s vector moved away from `small_talk`'s direction by [`SMALL_TALK_WEIGHT`]:
/// compared with a stored text, it scores what the question shares with that text beyond what
/// any small talk would.
pub fn away_from_small_talk(question: &[f32], small_talk: &[f32]) -> Vec<f32> {
    if question.len() != small_talk.len() {
        return question.to_vec();
    }
    question
        .iter()
        .zip(small_talk)
        .map(|(value, away)| value - SMALL_TALK_WEIGHT * away)
        .collect()
}

/// The mean of `vectors` (all of one length); empty for none.
fn mean(vectors: &[Vec<f32>]) -> Vec<f32> {
    let Some(first) = vectors.first() else {
        return Vec::new();
    };
    let mut sum = vec![0.0_f32; first.len()];
    for vector in vectors {
        for (total, value) in sum.iter_mut().zip(vector) {
            *total += value;
        }
    }
    let count = vectors.len() as f32;
    sum.iter().map(|total| total / count).collect()
}

/// The floor for a model that gave `questions` and `answers` (pair by pair): the mean
/// similarity of a question and another pair's answer. About half of the unrelated texts still
/// pass it, and rank below what answers; a higher floor would cut paraphrases in another
/// language, which score barely above unrelated texts with some models (multilingual-e5-small).
pub fn similarity_floor(questions: &[Vec<f32>], answers: &[Vec<f32>]) -> f64 {
    let unrelated: Vec<f64> = questions
        .iter()
        .enumerate()
        .flat_map(|(i, question)| {
            answers
                .iter()
                .enumerate()
                .filter(move |(j, _)| *j != i)
                .map(move |(_, answer)| cosine(question, answer))
        })
        .collect();
    unrelated.iter().sum::<f64>() / unrelated.len().max(1) as f64
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

    /// Texts whose similarity is `unrelated` between any two of different pairs and 1 within a
    /// pair: each pair has an axis of its own, and all share one more.
    fn pairs_with(unrelated: f64) -> Vec<Vec<f32>> {
        let shared = unrelated.sqrt() as f32;
        let own = (1.0 - unrelated).sqrt() as f32;
        (0..4)
            .map(|pair| {
                let mut vector = vec![0.0; 5];
                vector[pair] = own;
                vector[4] = shared;
                vector
            })
            .collect()
    }

    #[test]
    fn the_floor_follows_the_models_range_of_unrelated_texts() {
        for unrelated in [0.75, 0.05] {
            let texts = pairs_with(unrelated);
            let floor = similarity_floor(&texts, &texts);
            assert!(
                floor >= unrelated - 1e-6 && floor < unrelated + 0.1,
                "{unrelated}: {floor}"
            );
        }
    }

    #[test]
    fn a_question_moved_away_from_small_talk_ranks_what_answers_above_a_greeting() {
        let small_talk = [0.9_f32, 0.1, 0.0];
        let question = [0.8_f32, 0.6, 0.0];
        let greeting = [1.0_f32, 0.0, 0.0];
        let statement = [0.1_f32, 0.99, 0.0];
        assert!(super::cosine(&question, &greeting) > super::cosine(&question, &statement));
        let moved = away_from_small_talk(&question, &small_talk);
        assert!(super::cosine(&moved, &statement) > super::cosine(&moved, &greeting));
        // A vector of another length (another model's) is left as it is.
        assert_eq!(away_from_small_talk(&question, &[1.0]), question);
        assert_eq!(mean(&[vec![1.0, 3.0], vec![3.0, 5.0]]), [2.0, 4.0]);
    }

    #[test]
    fn the_true_pairs_do_not_raise_the_floor() {
        let questions = pairs_with(0.3);
        let mut answers = pairs_with(0.3);
        answers[0] = questions[0].clone();
        assert!((similarity_floor(&questions, &answers) - 0.3).abs() < 1e-6);
    }
}
