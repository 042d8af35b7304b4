//! Recall: older messages of the same conversation that are relevant to the new message, found
//! with the FTS5 index (BM25), outside the raw history window, never another user's.
//!
//! The search expression is built here from the new message's words, never from raw user text:
//! every term is quoted (so FTS5 operators in the message cannot change the query), very common
//! words are dropped (they match everything and say nothing), longer words match by prefix so
//! that "parcels" finds "parcel" and "Pakets" finds "Paket", and the owner column restricts the
//! search to this (chat, user) inside the index itself.
//!
//! Messages with the same text as a more relevant one are left out: people repeat small talk
//! ("ok, thanks", the same question twice), and copies would fill the few slots without adding
//! anything.

use std::collections::{BTreeSet, HashSet};

use crate::storage::{ConversationKey, Store, StoredMessage, fts_owner_token};

/// At most this many search terms from one message: the longest words carry the most meaning.
const MAX_TERMS: usize = 12;

/// Words this short (in characters) are skipped, unless they contain a digit ("A4", "42").
const MIN_TERM_CHARS: usize = 3;

/// Words at least this long match by prefix: their last two characters are left open.
const PREFIX_FROM_CHARS: usize = 6;

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
                && !is_stop_word(word)
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
    let candidates = store
        .search_messages(
            key,
            &expression,
            before_id,
            limit.saturating_mul(CANDIDATES_PER_RESULT),
        )
        .await?;
    Ok(distinct_texts(candidates, limit))
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
        let message = |id: i64, content: &str| StoredMessage {
            id,
            chat_id: 1,
            user_id: 1,
            session_id: 1,
            role: crate::storage::Role::User,
            content: content.to_owned(),
            created_at_ms: id,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id: None,
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
