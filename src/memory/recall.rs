//! Recall: older messages and session summaries of the same conversation that are relevant to
//! the new message, outside the raw history window, never another user's. Messages are found by
//! their words (BM25 over the conversation's own messages) and, when an embedding model is
//! configured, by meaning too ([`crate::memory::meaning`]); the two rankings are fused. Summaries older than the ones
//! every prompt carries are found by meaning only.
//!
//! The search terms ([`SearchTerm`]) are built here from the new message's words, never from raw
//! user text: very common words are dropped (they match everything and say nothing), longer
//! words match by prefix so that "parcels" finds "parcel" and "Pakets" finds "Paket", very long
//! words (German compounds) also by their first half, so that "Hautarzttermin" finds "Hautarzt".
//! The store quotes them for its own search engine and keeps the search inside this (chat,
//! user), at a cost that grows with this conversation alone.
//!
//! Messages with the same text as a more relevant one are left out: people repeat small talk
//! ("ok, thanks", the same question twice), and copies would fill the few slots without adding
//! anything.
//!
//! Recall by meaning never fails or holds up a turn: without a vector in time, or when the
//! search by meaning fails, the turn recalls by words alone.

use std::collections::{BTreeSet, HashSet};

use crate::memory::meaning::{MeaningRecall, fuse};
use crate::storage::{ConversationKey, SearchTerm, Store, StoredMessage, SummaryRecord};

/// At most this many search terms from one message: the longest words carry the most meaning.
const MAX_TERMS: usize = 12;

/// Words this short (in characters) are skipped, unless they contain a digit ("A4", "42").
const MIN_TERM_CHARS: usize = 3;

/// Words at least this long match by prefix: their last two characters are left open.
const PREFIX_FROM_CHARS: usize = 6;

/// Words at least this long (in characters) also match by their first half, at least
/// [`COMPOUND_HEAD_MIN_CHARS`] characters: in German, Dutch or Swedish the first part of a
/// compound is often a word of its own ("Hautarzt" in "Hautarzttermin").
const COMPOUND_FROM_CHARS: usize = 12;
const COMPOUND_HEAD_MIN_CHARS: usize = 6;

/// At most this many older session summaries are recalled by meaning.
const MAX_RECALLED_SUMMARIES: usize = 2;

/// Candidates read per message returned, so that after dropping repeated texts `limit`
/// distinct messages usually remain.
const CANDIDATES_PER_RESULT: i64 = 3;

/// Function words of the languages our users write most, which would match almost every message:
/// one file per language, one word per line. Adverbs such as "again", "wieder" or "опять" belong
/// there too: in "the sink is leaking again" they would otherwise recall every earlier message
/// that said "again".
const STOP_WORD_LISTS: [&str; 5] = [
    include_str!("stop_words/en.txt"),
    include_str!("stop_words/de.txt"),
    include_str!("stop_words/es.txt"),
    include_str!("stop_words/fr.txt"),
    include_str!("stop_words/ru.txt"),
];

fn is_stop_word(word: &str) -> bool {
    static STOP_WORDS: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
        std::sync::LazyLock::new(|| {
            STOP_WORD_LISTS
                .iter()
                .flat_map(|list| list.lines())
                .map(str::trim)
                .filter(|word| !word.is_empty())
                .collect()
        });
    STOP_WORDS.contains(word)
}

/// What to look for among `text`'s conversation's older messages: each meaningful word of
/// `text`, long ones as prefixes, very long ones also by their first half. Empty when the text
/// has no searchable word.
pub fn recall_terms(text: &str) -> Vec<SearchTerm> {
    search_terms(text)
        .iter()
        .flat_map(|term| word_alternatives(term))
        .collect()
}

/// The distinct, lowercased, meaningful words of `text`, longest first, at most [`MAX_TERMS`].
pub fn search_terms(text: &str) -> Vec<String> {
    let words: BTreeSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|word| {
            let has_digit = word.chars().any(|c| c.is_ascii_digit());
            (word.chars().count() >= MIN_TERM_CHARS || (has_digit && word.chars().count() >= 2))
                && !is_stop_word(word)
        })
        .collect();
    let mut terms: Vec<String> = words.into_iter().collect();
    terms.sort_by_key(|term| std::cmp::Reverse(term.chars().count()));
    terms.truncate(MAX_TERMS);
    terms
}

/// How one word is looked for: as it is; long words as a prefix with their last two characters
/// left open; very long words also by their first half.
fn word_alternatives(term: &str) -> Vec<SearchTerm> {
    let length = term.chars().count();
    let is_number = term.chars().all(|c| c.is_ascii_digit());
    let prefix = |chars: usize| SearchTerm::Prefix(term.chars().take(chars).collect());
    if is_number || length < PREFIX_FROM_CHARS {
        vec![SearchTerm::Word(term.to_owned())]
    } else if length >= COMPOUND_FROM_CHARS {
        let head = (length / 2).max(COMPOUND_HEAD_MIN_CHARS);
        vec![prefix(length - 2), prefix(head)]
    } else {
        vec![prefix(length - 2)]
    }
}

/// What recall is asked for one turn.
#[derive(Clone, Copy, Debug)]
pub struct RecallQuery<'a> {
    pub key: ConversationKey,
    /// The new message as written, for the local full-text search.
    pub text: &'a str,
    /// The new message with secrets masked, for the embedding server.
    pub masked_text: &'a str,
    /// Only messages older than this one (the oldest of the raw history) are recalled.
    pub before_id: i64,
    /// At most this many messages are recalled.
    pub limit: i64,
    /// Sessions whose summaries the prompt carries anyway.
    pub summaries_shown: &'a [i64],
}

/// What recall found, most relevant first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recalled {
    pub messages: Vec<StoredMessage>,
    pub summaries: Vec<SummaryRecord>,
}

/// Up to `query.limit` of the conversation's older messages relevant to the new message, and a
/// few older summaries relevant to it when `meaning` is given, most relevant first.
pub async fn recall(
    store: &Store,
    meaning: Option<&MeaningRecall>,
    query: &RecallQuery<'_>,
) -> Result<Recalled, sqlx::Error> {
    if query.limit <= 0 {
        return Ok(Recalled::default());
    }
    let candidates = query.limit.saturating_mul(CANDIDATES_PER_RESULT);
    let by_words = recall_by_words(store, query, candidates);
    let Some(meaning) = meaning else {
        let messages = distinct_texts(by_words.await?, query.limit);
        return Ok(Recalled {
            messages,
            summaries: Vec::new(),
        });
    };
    let (by_words, by_meaning) = tokio::join!(
        by_words,
        recall_by_meaning(store, meaning, query, candidates)
    );
    let by_words = by_words?;
    let (meaning_messages, summaries) = by_meaning;
    let rankings = [ids(&by_words), ids(&meaning_messages)];
    let mut found: std::collections::HashMap<i64, StoredMessage> = by_words
        .into_iter()
        .chain(meaning_messages)
        .map(|message| (message.id, message))
        .collect();
    let fused = fuse(&[&rankings[0], &rankings[1]])
        .into_iter()
        .filter_map(|id| found.remove(&id))
        .collect();
    Ok(Recalled {
        messages: distinct_texts(fused, query.limit),
        summaries,
    })
}

fn ids(messages: &[StoredMessage]) -> Vec<i64> {
    messages.iter().map(|message| message.id).collect()
}

/// Up to `candidates` messages matching the new message's words, most relevant first.
async fn recall_by_words(
    store: &Store,
    query: &RecallQuery<'_>,
    candidates: i64,
) -> Result<Vec<StoredMessage>, sqlx::Error> {
    let terms = recall_terms(query.text);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    store
        .search_messages(query.key, &terms, query.before_id, candidates)
        .await
}

/// Up to `candidates` messages and [`MAX_RECALLED_SUMMARIES`] summaries (other than those
/// shown anyway) at least as similar as the model's threshold, nearest first; nothing when the
/// new message got no vector or the search failed.
async fn recall_by_meaning(
    store: &Store,
    meaning: &MeaningRecall,
    query: &RecallQuery<'_>,
    candidates: i64,
) -> (Vec<StoredMessage>, Vec<SummaryRecord>) {
    let Some(vector) = meaning.query_vector(query.masked_text).await else {
        return (Vec::new(), Vec::new());
    };
    let similar_enough = |similarity: f64| similarity >= meaning.min_similarity();
    let messages = store.nearest_messages(query.key, &vector, query.before_id, candidates);
    let summary_candidates = (MAX_RECALLED_SUMMARIES + query.summaries_shown.len()) as i64;
    let summaries = store.nearest_summaries(query.key, &vector, summary_candidates);
    let (messages, summaries) = tokio::join!(messages, summaries);
    let (messages, summaries) = match (messages, summaries) {
        (Ok(messages), Ok(summaries)) => (messages, summaries),
        (Err(error), _) | (_, Err(error)) => {
            tracing::warn!(error = %error, "the search by meaning failed; recalling by words alone");
            crate::metrics::error("recall_by_meaning");
            return (Vec::new(), Vec::new());
        }
    };
    let messages = messages
        .into_iter()
        .filter(|(_, similarity)| similar_enough(*similarity))
        .map(|(message, _)| message)
        .collect();
    let summaries = summaries
        .into_iter()
        .filter(|(summary, similarity)| {
            similar_enough(*similarity) && !query.summaries_shown.contains(&summary.session_id)
        })
        .map(|(summary, _)| summary)
        .take(MAX_RECALLED_SUMMARIES)
        .collect();
    (messages, summaries)
}

/// The first `limit` messages whose text (trimmed, ignoring case) no earlier one had.
fn distinct_texts(messages: Vec<StoredMessage>, limit: i64) -> Vec<StoredMessage> {
    let mut seen = HashSet::new();
    messages
        .into_iter()
        .filter(|message| seen.insert(message.content.trim().to_lowercase()))
        .take(usize::try_from(limit).unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    #[test]
    fn terms_skip_common_and_short_words_and_keep_numbers() {
        let terms = search_terms("What was with the Chemitek parcel? Order 4711, box A4.");
        assert_eq!(terms, ["chemitek", "parcel", "order", "4711", "box", "a4"]);
    }

    #[test]
    fn adverbs_that_appear_anywhere_are_not_terms() {
        assert_eq!(
            search_terms("The sink is leaking again, how do I reach the plumber?"),
            ["leaking", "plumber", "reach", "sink"]
        );
        assert_eq!(
            search_terms("Das Waschbecken tropft wieder, wie erreiche ich den Klempner?"),
            ["waschbecken", "erreiche", "klempner", "tropft"]
        );
        assert_eq!(
            search_terms("Раковина опять течёт, как связаться с сантехником?"),
            ["сантехником", "связаться", "раковина", "течёт"]
        );
    }

    #[test]
    fn repeated_texts_keep_only_their_most_relevant_copy() {
        let key = ConversationKey::new(ChatId(1), UserId(1));
        let message = |id: i64, content: &str| {
            StoredMessage::new(id, key, 1, crate::storage::Role::User, content, id)
        };
        let candidates = vec![
            message(7, "Name for a kitten?"),
            message(3, "name for a kitten? "),
            message(5, "My dermatologist is Dr. Katihan."),
            message(9, "Name for a kitten?"),
            message(2, "Who was my dermatologist?"),
        ];

        let kept: Vec<i64> = distinct_texts(candidates, 2)
            .iter()
            .map(|message| message.id)
            .collect();

        assert_eq!(kept, [7, 5]);
    }

    #[test]
    fn long_words_match_by_prefix_and_compounds_also_by_their_first_half() {
        use SearchTerm::{Prefix, Word};
        assert_eq!(
            recall_terms("parcel box 4711 Hautarzttermin"),
            [
                Prefix("hautarztterm".into()),
                Prefix("hautarz".into()),
                Prefix("parc".into()),
                Word("4711".into()),
                Word("box".into()),
            ]
        );
    }

    #[test]
    fn text_without_searchable_words_gives_no_terms() {
        assert_eq!(recall_terms("ok? 👍 the and"), []);
    }
}
