//! The full-text index over messages (`messages_fts`, FTS5) and recall's search in it.
//!
//! Every indexed word carries its conversation ("o7c5xparcel": see the
//! `conversation_scoped_search_words` migration), so a search reads only the searching
//! conversation's entries and ranks them by its own word counts: its cost grows with that
//! conversation, not with everyone's messages.
//!
//! Messages are indexed in batches by a background task, not by a trigger inside each message's
//! insert: one message per transaction would make FTS5 write a new segment and rewrite its
//! structure record at every commit, then merge those tiny segments over and over, all of it on
//! the writer that the chat turns wait for. A batch writes one segment for many messages. Every
//! [`INDEX_INTERVAL`], the task indexes the messages stored since the last batch, in one
//! transaction per [`INDEX_BATCH`] messages, and moves the mark
//! `search_index_progress.indexed_through` in the same transaction (see the
//! `search_index_in_batches` migration), so a crash leaves nothing half-indexed.
//!
//! Searches are exact all the same. Recall only looks for messages older than the conversation's
//! raw window, which in practice were indexed long ago; a search that could miss a message not
//! yet indexed (one older than its bound, stored since the last batch) first indexes everything
//! pending. Message ids only grow and every write is serialized, so "indexed through id N" means
//! every message up to N can be found, whichever process stored it. The one exception is a
//! rebuild of the whole index (after a migration changed its form): a search does not wait for
//! millions of messages; it finds what the background batches have indexed so far.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::backoff::LastingFailure;

use super::Result;
use super::messages::fts_owner_token;
use super::{
    Connections, ConversationKey, SearchTerm, SqliteStore, after_interval, is_storage_full,
    roll_back_failed_command, unless_closed,
};

/// How often the background task indexes the messages stored since its last batch. Recall never
/// looks at messages this young, so the index may lag behind by this much.
pub(super) const INDEX_INTERVAL: Duration = Duration::from_millis(200);

/// At most this many messages are indexed in one transaction: bounds how long the batch holds
/// the writer, while leaving room for what a busy interval brings.
const INDEX_BATCH: i64 = 1_000;

/// A search indexes the pending messages itself only when at most this many ids lie between the
/// index's mark and the search's bound; more means the background task is rebuilding the index.
const SEARCH_CATCHES_UP_AT_MOST: i64 = 10 * INDEX_BATCH;

/// After a failed attempt, the background task waits this many intervals before the next one.
const INTERVALS_AFTER_A_FAILURE: u32 = 25;

/// Indexes pending messages every [`INDEX_INTERVAL`] until the store is closed or dropped.
pub(super) async fn index_in_background(store: Weak<Connections>, stop: CancellationToken) {
    // A lasting failure (a full disk, say) is logged once, not at every interval, and retried only
    // after a few intervals.
    let mut failure = LastingFailure::new("indexing new messages for search");
    let mut intervals_to_skip = 0;
    while let Some(connections) = after_interval(&store, &stop, INDEX_INTERVAL).await {
        if !connections.index_pending.load(Ordering::Acquire) {
            continue;
        }
        if intervals_to_skip > 0 {
            intervals_to_skip -= 1;
            continue;
        }
        match index_pending(&connections).await {
            Ok(_) => failure.worked(),
            Err(sqlx::Error::PoolClosed) => break,
            // Tried again a few seconds later; a search indexes what it needs itself.
            Err(error) => {
                failure.failed(&error);
                intervals_to_skip = INTERVALS_AFTER_A_FAILURE;
            }
        }
    }
}

/// Indexes every message not yet indexed, a batch per transaction, taking the writer in turn
/// for each; returns the id through which messages are indexed.
pub(super) async fn index_pending(connections: &Connections) -> Result<i64> {
    // Messages stored from here on set the flag again; those stored before are in the batches.
    connections.index_pending.store(false, Ordering::Release);
    let mut batch = INDEX_BATCH;
    loop {
        let progress = {
            let mut writer = unless_closed(connections.lock_writer().await)?;
            index_batch(&mut writer, batch).await
        };
        let progress = match progress {
            Ok(progress) => progress,
            // A database at its size cap may still have room for the index of fewer messages.
            Err(error) if is_storage_full(&error) && batch > 1 => {
                batch /= 2;
                continue;
            }
            Err(error) => {
                connections.index_pending.store(true, Ordering::Release);
                return Err(error);
            }
        };
        connections
            .indexed_through
            .fetch_max(progress.indexed_through, Ordering::AcqRel);
        if progress
            .newest
            .is_none_or(|newest| newest <= progress.indexed_through)
        {
            return Ok(progress.indexed_through);
        }
    }
}

/// Where the index stands after a batch.
struct Progress {
    /// Every message up to this id is indexed.
    indexed_through: i64,
    /// The newest message's id, if there is any message.
    newest: Option<i64>,
}

/// Indexes the next `batch` messages after the mark and moves the mark past them, in one
/// transaction sent as one command. With nothing to index, the mark moves to the last id ever
/// given to a message (`sqlite_sequence`): any message up to it is indexed or deleted, and
/// messages deleted before they were indexed no longer hold the mark back.
async fn index_batch(connection: &mut sqlx::SqliteConnection, batch: i64) -> Result<Progress> {
    let progress = sqlx::query_as!(
        Progress,
        r#"BEGIN IMMEDIATE;
           INSERT INTO messages_fts (rowid, words)
               SELECT id, words FROM message_search_words
               WHERE id > (SELECT indexed_through FROM search_index_progress)
               ORDER BY id LIMIT +?;
           UPDATE search_index_progress
           SET indexed_through = max(indexed_through, coalesce(
               (SELECT max(id) FROM (SELECT id FROM messages
                                     WHERE id > search_index_progress.indexed_through
                                     ORDER BY id LIMIT +?)),
               (SELECT seq FROM sqlite_sequence WHERE name = 'messages'),
               indexed_through))
           RETURNING indexed_through AS "indexed_through!",
                     (SELECT max(id) FROM messages) AS "newest?: i64";
           COMMIT"#,
        batch,
        batch,
    )
    // All rows, not just the first: the statements after the one returning rows (the commit)
    // run only as the rows are read to the end.
    .fetch_all(&mut *connection)
    .await
    .and_then(|rows| rows.into_iter().next().ok_or(sqlx::Error::RowNotFound));
    if progress.is_err() {
        roll_back_failed_command(connection).await;
    }
    progress
}

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// Whether a search for messages older than `before_id` should first index what is pending:
    /// when one of them may not be indexed yet and the backlog is short. This process's mark
    /// is read first; the stored one, with the newest message's id, only when that is far
    /// behind (say just after a start, before the first batch, or for a search without bound).
    pub(super) async fn search_must_catch_up(&self, before_id: i64) -> Result<bool> {
        let needed_through = before_id.saturating_sub(1);
        let known = self.connections.indexed_through.load(Ordering::Acquire);
        if known >= needed_through {
            return Ok(false);
        }
        if needed_through - known <= SEARCH_CATCHES_UP_AT_MOST {
            return Ok(true);
        }
        let stored = sqlx::query!(
            r#"SELECT indexed_through AS "indexed_through!",
                      (SELECT max(id) FROM messages) AS "newest?: i64"
               FROM search_index_progress"#
        )
        .fetch_one(&mut *self.reader().await?)
        .await?;
        let needed_through = needed_through.min(stored.newest.unwrap_or(0));
        Ok(stored.indexed_through < needed_through
            && needed_through - stored.indexed_through <= SEARCH_CATCHES_UP_AT_MOST)
    }
}

/// The FTS5 expression for `terms` among `key`'s messages: each term as the conversation's
/// words (owner token and word), quoted, prefixes with `*`, all alternatives of one another.
/// `None` without a term to look for.
pub(super) fn match_expression(key: ConversationKey, terms: &[SearchTerm]) -> Option<String> {
    let owner = fts_owner_token(key);
    // Each word of a term carries the owner, as each indexed word does; a term of several words
    // (`it's`) is a phrase of them. Separators are never quoted text, so nothing in a term acts as
    // an FTS5 operator, and a term without a word looks for nothing.
    let phrase = |text: &str| {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(|word| format!("{owner}{word}"))
            .collect();
        (!words.is_empty()).then(|| format!("\"{}\"", words.join(" ")))
    };
    let alternatives: Vec<String> = terms
        .iter()
        .filter_map(|term| match term {
            SearchTerm::Word(word) => phrase(word),
            SearchTerm::Prefix(prefix) => phrase(prefix).map(|quoted| quoted + "*"),
        })
        .collect();
    (!alternatives.is_empty()).then(|| alternatives.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    #[test]
    fn every_word_starts_with_the_owner_and_separators_never_reach_the_expression() {
        let key = ConversationKey::new(ChatId(5), UserId(7));
        let terms = [
            SearchTerm::Word("near(\"x".into()),
            SearchTerm::Word("o1c1xsecret".into()),
            SearchTerm::Prefix("parc".into()),
        ];
        let expression = match_expression(key, &terms);
        assert_eq!(
            expression.as_deref(),
            Some(r#""o7c5xnear o7c5xx" OR "o7c5xo1c1xsecret" OR "o7c5xparc"*"#)
        );
        assert_eq!(
            match_expression(key, &[SearchTerm::Prefix("'".into())]),
            None,
            "a term without a word would match every word as a bare owner prefix"
        );
    }

    #[test]
    fn a_group_chat_owner_token_has_no_minus_sign() {
        let key = ConversationKey::new(ChatId(-100500), UserId(7));
        let expression = match_expression(key, &[SearchTerm::Prefix("parc".into())]);
        assert_eq!(expression.as_deref(), Some(r#""o7cn100500xparc"*"#));
    }

    #[test]
    fn empty_terms_look_for_nothing() {
        let key = ConversationKey::new(ChatId(5), UserId(7));
        let terms = [
            SearchTerm::Word(String::new()),
            SearchTerm::Prefix(String::new()),
        ];
        assert_eq!(match_expression(key, &terms), None);
        assert_eq!(match_expression(key, &[]), None);
    }
}
