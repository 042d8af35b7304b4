//! The search terms of a message ([`SearchTerm`]), built from its words, never from raw user
//! text: very common words are dropped (they match everything and say nothing), words of four
//! letters or more match as prefixes so that "watch" finds "watched", longer words with their
//! ending left open so that "parcels" finds "parcel" and "Pakets" finds "Paket", very long words
//! (German compounds) also by their first half, so that "Hautarzttermin" finds "Hautarzt".
//! Recall (`recall.rs`) searches with them; the evaluations read the same words.

use std::collections::BTreeSet;

use crate::storage::SearchTerm;

/// At most this many search terms from one message: the longest words carry the most meaning.
const MAX_TERMS: usize = 12;

/// Words this short (in characters) are skipped, unless they contain a digit ("A4", "42").
const MIN_TERM_CHARS: usize = 3;

/// Words at least this long match as a prefix, whole ("watch" finds "watched", "park" finds
/// "parks"); shorter ones only as themselves.
const WHOLE_PREFIX_FROM_CHARS: usize = 4;

/// Words at least this long match by prefix with their last two characters left open
/// ("parcels" finds "parcel").
const PREFIX_FROM_CHARS: usize = 6;

/// Words at least this long (in characters) also match by their first half, at least
/// [`COMPOUND_HEAD_MIN_CHARS`] characters: in German, Dutch or Swedish the first part of a
/// compound is often a word of its own ("Hautarzt" in "Hautarzttermin").
const COMPOUND_FROM_CHARS: usize = 12;
const COMPOUND_HEAD_MIN_CHARS: usize = 6;

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

/// How one word is looked for: short words as they are; from four characters as a prefix; long
/// words as a prefix with their last two characters left open; very long words also by their
/// first half.
fn word_alternatives(term: &str) -> Vec<SearchTerm> {
    let length = term.chars().count();
    let is_number = term.chars().all(|c| c.is_ascii_digit());
    let prefix = |chars: usize| SearchTerm::Prefix(term.chars().take(chars).collect());
    if is_number || length < WHOLE_PREFIX_FROM_CHARS {
        vec![SearchTerm::Word(term.to_owned())]
    } else if length < PREFIX_FROM_CHARS {
        vec![SearchTerm::Prefix(term.to_owned())]
    } else if length >= COMPOUND_FROM_CHARS {
        let head = (length / 2).max(COMPOUND_HEAD_MIN_CHARS);
        vec![prefix(length - 2), prefix(head)]
    } else {
        vec![prefix(length - 2)]
    }
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
