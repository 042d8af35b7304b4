//! Recall by words: the conversation's messages matching the search terms, most relevant first.
//! SQLite searches its full-text index ([`search_index`](super::search_index)); PostgreSQL
//! matches each of the conversation's messages against the terms and ranks them as SQLite's
//! BM25 does ([`postgres::search`](super::postgres)).

use super::Result;
#[cfg(feature = "sqlite")]
use super::is_storage_full;
#[cfg(feature = "postgres")]
use super::postgres::search::query_terms;
#[cfg(feature = "sqlite")]
use super::search_index::{index_pending, match_expression};
use super::{Backend, ConversationKey, Role, SearchTerm, Store, StoredMessage};

impl Store {
    /// Indexes every message not yet in the full-text index now, instead of at the background
    /// task's next batch. Returns the id through which messages are indexed.
    pub async fn index_pending_messages(&self) -> Result<i64> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                // In a task of its own: a caller that gives up half-way (its future dropped) must not
                // leave the writer inside a batch's transaction.
                let connections = std::sync::Arc::clone(&db.connections);
                tokio::spawn(async move { index_pending(&connections).await })
                    .await
                    .unwrap_or(Err(sqlx::Error::WorkerCrashed))
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Messages are searchable as soon as they are stored (their words are a
                // generated column), so there is nothing pending: returns the newest message's id,
                // or 0 without messages.
                sqlx::query_scalar!(r#"SELECT coalesce(max(id), 0) AS "newest!" FROM messages"#)
                    .fetch_one(&db.pool)
                    .await
            }
        }
    }

    /// Messages of the conversation matching any of `terms`, older than message `before_id`, most
    /// relevant (BM25, with the conversation's own word counts) first. Every word of the FTS5
    /// expression ([`match_expression`]) starts with this conversation's owner token, and the
    /// query re-checks chat and user so that a wrong expression can never return another user's
    /// messages. The matches are ranked inside the index and only the best `limit` are read from
    /// `messages` (a conversation can have hundreds of matches, each row a page read of its own);
    /// `CROSS JOIN` keeps that order (full-text match first, then the row by id): without planner
    /// statistics SQLite could otherwise run the match once per message of the conversation. The
    /// rowid bound inside the full-text query lets FTS5 skip the newer rows (the raw window).
    ///
    /// If a message older than `before_id` may not be indexed yet, everything pending is indexed
    /// first, unless the index is being rebuilt ([`SEARCH_CATCHES_UP_AT_MOST`]). Should that fail,
    /// the search still runs and may miss only those few messages.
    pub async fn search_messages(
        &self,
        key: ConversationKey,
        terms: &[SearchTerm],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let Some(match_expression) = match_expression(key, terms) else {
                    return Ok(Vec::new());
                };
                if db.search_must_catch_up(before_id).await?
                    && let Err(error) = self.index_pending_messages().await
                {
                    // A full database is already reported where it stops storing messages.
                    if is_storage_full(&error) {
                        tracing::debug!(error = %error, "could not index new messages before a search");
                    } else {
                        tracing::warn!(error = %error, "could not index new messages before a search");
                    }
                }
                sqlx::query_as!(
                    StoredMessage,
                    r#"SELECT message.id AS "id!", message.chat_id, message.user_id, message.session_id,
                              message.role AS "role: Role", message.content,
                              message.created_at AS created_at_ms, message.tokens_in, message.tokens_out,
                              message.telegram_message_id
                       FROM (SELECT rowid AS id, bm25(messages_fts) AS relevance
                             FROM messages_fts
                             WHERE messages_fts MATCH ?1 AND rowid < ?4
                             ORDER BY relevance
                             LIMIT +?5) AS found
                       CROSS JOIN messages AS message ON message.id = found.id
                       WHERE message.chat_id = ?2 AND message.user_id = ?3
                       ORDER BY found.relevance"#,
                    match_expression,
                    key.chat_id,
                    key.user_id,
                    before_id,
                    limit,
                )
                .fetch_all(&mut *db.reader().await?)
                .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Messages of the conversation matching any of `terms`, older than
                // message `before_id`, most relevant first, at most `limit` (a negative `limit`:
                // all), as SQLite's BM25 orders them (k1 = 1.2, b = 0.75; equal scores oldest
                // first). The statistics are the conversation's: its messages (all of them, as FTS5
                // counts its whole table), their average length, and per term the messages matching
                // it. A message's length is its number of distinct words (one more, for the owner
                // column FTS5 also counts), which spares reading every word's positions; a term's
                // frequency in a message counts every occurrence, of every word a prefix matches.
                // The final join re-checks chat and user on every row returned.
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
                .fetch_all(&db.pool)
                .await
            }
        }
    }
}
