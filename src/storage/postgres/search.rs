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

use super::PgStore;
use crate::storage::{ConversationKey, Role, SearchTerm, StoredMessage};

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
fn query_terms(terms: &[SearchTerm]) -> (Vec<String>, Vec<String>, Vec<bool>) {
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

impl PgStore {
    /// Messages are searchable as soon as they are stored (their words are a generated column),
    /// so there is nothing pending: returns the newest message's id, or 0 without messages.
    pub async fn index_pending_messages(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(r#"SELECT coalesce(max(id), 0) AS "newest!" FROM messages"#)
            .fetch_one(&self.pool)
            .await
    }

    /// Messages of the conversation matching any of `terms`, older than message `before_id`, most
    /// relevant first, at most `limit` (a negative `limit`: all), as SQLite's BM25 orders them
    /// (k1 = 1.2, b = 0.75; equal scores oldest first). The statistics are the conversation's: its
    /// messages (all of them, as FTS5 counts its whole table), their average length, and per
    /// term the messages matching it. A message's length is its number of distinct words (one
    /// more, for the owner column FTS5 also counts), which spares reading every word's positions;
    /// a term's frequency in a message counts every occurrence, of every word a prefix matches.
    /// The final join re-checks chat and user on every row returned.
    pub async fn search_messages(
        &self,
        key: ConversationKey,
        terms: &[SearchTerm],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        let (operands, texts, prefixes) = query_terms(terms);
        if operands.is_empty() {
            return Ok(Vec::new());
        }
        sqlx::query_as!(
            StoredMessage,
            r#"WITH term AS MATERIALIZED (
                   SELECT number, to_tsquery('simple', operand) AS query, is_prefix,
                          tsvector_to_array(to_tsvector('simple', text)) AS words
                   FROM unnest($3::text[], $4::text[], $5::boolean[]) WITH ORDINALITY
                        AS given (operand, text, is_prefix, number)),
               conversation AS MATERIALIZED (
                   SELECT id, search_vector, length(search_vector) AS words
                   FROM messages WHERE chat_id = $1 AND user_id = $2),
               totals AS (
                   SELECT count(*)::float8 AS messages,
                          coalesce(avg(words), 0)::float8 AS average_words
                   FROM conversation),
               hit AS MATERIALIZED (
                   SELECT conversation.id, conversation.words, term.number,
                          greatest(1, (SELECT min(occurrences) FROM (
                              SELECT sum(cardinality(entry.positions)) AS occurrences
                              FROM unnest(term.words) AS wanted (word)
                              JOIN unnest(conversation.search_vector) AS entry
                                ON entry.lexeme = wanted.word
                                   OR (term.is_prefix AND starts_with(entry.lexeme, wanted.word))
                              GROUP BY wanted.word) AS per_word))::float8 AS occurrences
                   FROM conversation
                   JOIN term ON numnode(term.query) > 0
                            AND conversation.search_vector @@ term.query),
               rarity AS (
                   SELECT number,
                          greatest(1e-6, ln((totals.messages - count(*) + 0.5) / (count(*) + 0.5)))
                              AS idf
                   FROM hit CROSS JOIN totals GROUP BY number, totals.messages),
               score AS (
                   SELECT hit.id,
                          sum(rarity.idf * hit.occurrences * 2.2
                              / (hit.occurrences + 1.2 * (0.25 + 0.75 * (hit.words + 1)
                                                                / (totals.average_words + 1))))
                              AS score
                   FROM hit JOIN rarity USING (number) CROSS JOIN totals
                   WHERE hit.id < $6
                   GROUP BY hit.id),
               best AS MATERIALIZED (
                   SELECT id, score FROM score
                   ORDER BY score DESC, id
                   LIMIT CASE WHEN $7::bigint >= 0 THEN $7 END)
               SELECT message.id AS "id!", message.chat_id AS "chat_id!",
                      message.user_id AS "user_id!", message.session_id AS "session_id!",
                      message.role AS "role!: Role", message.content AS "content!",
                      message.created_at AS "created_at_ms!", message.tokens_in AS "tokens_in!",
                      message.tokens_out AS "tokens_out!", message.telegram_message_id
               FROM best JOIN messages AS message ON message.id = best.id
               WHERE message.chat_id = $1 AND message.user_id = $2 AND message.id < $6
               ORDER BY best.score DESC, message.id"#,
            key.chat_id.0,
            key.user_id.0,
            &operands,
            &texts,
            &prefixes,
            before_id,
            limit,
        )
        .fetch_all(&self.pool)
        .await
    }
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
