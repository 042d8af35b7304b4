//! PostgreSQL: recall by words: the conversation's messages matching the search terms, ranked
//! as SQLite's full-text search ranks them (BM25), with the statistics of this conversation.
//!
//! Every message carries its words (`messages.search_vector`, the `simple` configuration), so
//! there is nothing to index after a write. There is deliberately no index over those words
//! across conversations: a search reads the conversation's own messages through the
//! `(chat_id, user_id, id)` index and matches each one, so it costs in proportion to the
//! conversation and never reads anyone else's rows. The same pass gives BM25 what it needs: how
//! many of the conversation's messages there are, how long they are on average, and how many
//! match each term.
//!
//! Terms never reach the query as text to parse: each one is quoted for `to_tsquery` here
//! ([`tsquery_operand`]), so quotes, backslashes or operators in a term stay characters of a
//! word. A term PostgreSQL splits into several words (`it's`) matches them as a phrase, as FTS5
//! matches a quoted term.

use crate::storage::SearchTerm;

/// The term as one quoted `to_tsquery` operand: `'word'`, or `'prefix':*`. Inside the quotes a
/// quote is doubled and a backslash escaped, so no character of the term acts as an operator.
/// NUL, which PostgreSQL text cannot hold, is left out.
fn tsquery_operand(term: &SearchTerm) -> String {
    let (text, suffix) = match term {
        SearchTerm::Word(word) => (word, ""),
        SearchTerm::Prefix(prefix) => (prefix, ":*"),
    };
    let mut operand = String::with_capacity(text.len() + 4);
    operand.push('\'');
    for character in text.chars() {
        match character {
            '\'' => operand.push_str("''"),
            '\\' => operand.push_str("\\\\"),
            '\0' => {}
            other => operand.push(other),
        }
    }
    operand.push('\'');
    operand.push_str(suffix);
    operand
}

/// Whether PostgreSQL could find a word in `text`: its parser makes words of letters and digits
/// only, and a term without any would be an empty query (which matches nothing, with a notice).
fn has_word_characters(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// The terms worth asking for, as the query's three parallel arrays: the quoted operands, the
/// terms' texts (for counting their occurrences) and which of them are prefixes.
pub(in crate::storage) fn query_terms(
    terms: &[SearchTerm],
) -> (Vec<String>, Vec<String>, Vec<bool>) {
    let mut operands = Vec::with_capacity(terms.len());
    let mut texts = Vec::with_capacity(terms.len());
    let mut prefixes = Vec::with_capacity(terms.len());
    for term in terms {
        let (text, is_prefix) = match term {
            SearchTerm::Word(word) => (word, false),
            SearchTerm::Prefix(prefix) => (prefix, true),
        };
        if !has_word_characters(text) {
            continue;
        }
        operands.push(tsquery_operand(term));
        texts.push(text.replace('\0', ""));
        prefixes.push(is_prefix);
    }
    (operands, texts, prefixes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_backslashes_stay_inside_the_quoted_operand() {
        assert_eq!(
            tsquery_operand(&SearchTerm::Word(r"it's\".into())),
            r"'it''s\\'"
        );
        assert_eq!(
            tsquery_operand(&SearchTerm::Prefix("a&b|!(c):*".into())),
            "'a&b|!(c):*':*"
        );
    }

    #[test]
    fn nul_characters_are_left_out_of_a_term() {
        assert_eq!(tsquery_operand(&SearchTerm::Word("a\0b".into())), "'ab'");
        let (_, texts, _) = query_terms(&[SearchTerm::Word("a\0b".into())]);
        assert_eq!(texts, ["ab"]);
    }

    #[test]
    fn terms_without_letters_or_digits_are_not_asked_for() {
        let terms = [
            SearchTerm::Word("''".into()),
            SearchTerm::Prefix(String::new()),
            SearchTerm::Word("straße".into()),
            SearchTerm::Prefix("моск".into()),
        ];
        let (operands, texts, prefixes) = query_terms(&terms);
        assert_eq!(operands, ["'straße'", "'моск':*"]);
        assert_eq!(texts, ["straße", "моск"]);
        assert_eq!(prefixes, [false, true]);
    }
}
