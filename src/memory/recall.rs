//! Recall: older messages of the same conversation that are relevant to the new message, found
//! with the FTS5 index (BM25), outside the raw history window, never another user's.
//!
//! The search expression is built here from the new message's words, never from raw user text:
//! every term is quoted (so FTS5 operators in the message cannot change the query), very common
//! words are dropped (they match everything and say nothing), longer words match by prefix so
//! that "parcels" finds "parcel" and "Pakets" finds "Paket", and the owner column restricts the
//! search to this (chat, user) inside the index itself.

use std::collections::BTreeSet;

use crate::storage::{ConversationKey, Store, StoredMessage, fts_owner_token};

/// At most this many search terms from one message: the longest words carry the most meaning.
const MAX_TERMS: usize = 12;

/// Words this short (in characters) are skipped, unless they contain a digit ("A4", "42").
const MIN_TERM_CHARS: usize = 3;

/// Words at least this long match by prefix: their last two characters are left open.
const PREFIX_FROM_CHARS: usize = 6;

/// Function words of the languages our users write most, which would match almost every message.
const STOP_WORDS: &[&str] = &[
    // English
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "your",
    "all",
    "any",
    "can",
    "had",
    "her",
    "was",
    "one",
    "our",
    "out",
    "has",
    "him",
    "his",
    "how",
    "its",
    "who",
    "did",
    "yes",
    "get",
    "got",
    "this",
    "that",
    "with",
    "have",
    "from",
    "they",
    "will",
    "would",
    "there",
    "their",
    "what",
    "when",
    "where",
    "which",
    "about",
    "been",
    "were",
    "into",
    "then",
    "than",
    "them",
    "some",
    "could",
    "should",
    "just",
    "also",
    "like",
    "does",
    "please",
    "thanks",
    "hello",
    // German
    "der",
    "die",
    "das",
    "und",
    "ist",
    "nicht",
    "ein",
    "eine",
    "einen",
    "mit",
    "sich",
    "des",
    "auf",
    "für",
    "von",
    "dem",
    "den",
    "was",
    "wie",
    "wer",
    "wo",
    "ich",
    "du",
    "sie",
    "wir",
    "ihr",
    "mein",
    "meine",
    "dein",
    "noch",
    "auch",
    "aber",
    "oder",
    "bitte",
    "danke",
    "war",
    "hat",
    "haben",
    "sind",
    "wird",
    "kann",
    "soll",
    // Spanish
    "que",
    "los",
    "las",
    "del",
    "una",
    "uno",
    "por",
    "con",
    "para",
    "como",
    "pero",
    "más",
    "mas",
    "este",
    "esta",
    "eso",
    "mi",
    "tu",
    "su",
    "sus",
    "qué",
    "cómo",
    "dónde",
    "cuándo",
    "hola",
    "gracias",
    "fue",
    "era",
    "está",
    "son",
    // French
    "les",
    "des",
    "une",
    "est",
    "pas",
    "pour",
    "dans",
    "qui",
    "sur",
    "avec",
    "mon",
    "ton",
    "son",
    "mes",
    "vous",
    "nous",
    "elle",
    "quoi",
    "merci",
    "bonjour",
    // Russian
    "что",
    "это",
    "как",
    "так",
    "для",
    "его",
    "она",
    "они",
    "мой",
    "моя",
    "мне",
    "меня",
    "где",
    "когда",
    "был",
    "была",
    "есть",
    "или",
    "уже",
    "ещё",
    "еще",
    "привет",
    "спасибо",
];

/// The FTS5 expression for recalling `key`'s messages relevant to `text`, or `None` when the
/// text has no searchable word.
pub fn match_expression(key: ConversationKey, text: &str) -> Option<String> {
    let terms = search_terms(text);
    if terms.is_empty() {
        return None;
    }
    let alternatives: Vec<String> = terms.iter().map(|term| fts_term(term)).collect();
    Some(format!(
        "owner : \"{}\" AND content : ({})",
        fts_owner_token(key),
        alternatives.join(" OR ")
    ))
}

/// The distinct, lowercased, meaningful words of `text`, longest first, at most [`MAX_TERMS`].
pub fn search_terms(text: &str) -> Vec<String> {
    let words: BTreeSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|word| {
            let has_digit = word.chars().any(|c| c.is_ascii_digit());
            (word.chars().count() >= MIN_TERM_CHARS || (has_digit && word.chars().count() >= 2))
                && !STOP_WORDS.contains(&word.as_str())
        })
        .collect();
    let mut terms: Vec<String> = words.into_iter().collect();
    terms.sort_by_key(|term| std::cmp::Reverse(term.chars().count()));
    terms.truncate(MAX_TERMS);
    terms
}

/// One quoted FTS5 term; long words as a prefix query.
fn fts_term(term: &str) -> String {
    let length = term.chars().count();
    let is_number = term.chars().all(|c| c.is_ascii_digit());
    if length >= PREFIX_FROM_CHARS && !is_number {
        let prefix: String = term.chars().take(length - 2).collect();
        format!("\"{}\"*", prefix.replace('"', "\"\""))
    } else {
        format!("\"{}\"", term.replace('"', "\"\""))
    }
}

/// Up to `limit` of `key`'s messages older than message `before_id` that are relevant to `text`,
/// most relevant first.
pub async fn recall(
    store: &Store,
    key: ConversationKey,
    text: &str,
    before_id: i64,
    limit: i64,
) -> Result<Vec<StoredMessage>, sqlx::Error> {
    if limit <= 0 {
        return Ok(Vec::new());
    }
    let Some(expression) = match_expression(key, text) else {
        return Ok(Vec::new());
    };
    store
        .search_messages(key, &expression, before_id, limit)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_skip_common_and_short_words_and_keep_numbers() {
        let terms = search_terms("What was with the Chemitek parcel? Order 4711, box A4.");
        assert_eq!(terms, ["chemitek", "parcel", "order", "4711", "box", "a4"]);
    }

    #[test]
    fn quotes_and_operators_in_the_message_stay_plain_terms() {
        let key = ConversationKey::new(5, 7);
        let expression = match_expression(key, "NEAR(\"x y\") OR owner:o1c1 *").unwrap();
        assert!(
            expression.starts_with("owner : \"o7c5\" AND content : ("),
            "{expression}"
        );
        assert!(
            expression.contains("\"near\"") && expression.contains("\"o1c1\""),
            "{expression}"
        );
    }

    #[test]
    fn a_group_chat_owner_token_has_no_minus_sign() {
        let expression = match_expression(ConversationKey::new(-100500, 7), "parcel").unwrap();
        assert!(expression.contains("\"o7cn100500\""), "{expression}");
        assert!(expression.contains("\"parc\"*"), "{expression}");
    }

    #[test]
    fn text_without_searchable_words_gives_no_query() {
        assert_eq!(
            match_expression(ConversationKey::new(1, 1), "ok? 👍 the and"),
            None
        );
    }
}
