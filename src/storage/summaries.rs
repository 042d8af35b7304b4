//! Session summaries: one per closed session, written by the summarizer; and what a question
//! about a period reads: the summaries of that period's sessions, and the person's messages in
//! it that no summary covers yet.

use super::Result;
use super::Store;
use super::backend::Writing;
#[cfg(feature = "sqlite")]
use super::backend::json_ids;
use super::{ChatId, ConversationKey, Role, StoredMessage, UserId};

/// A summary as stored, with the times of the session it covers so that the prompt can say when
/// that conversation happened.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, sqlx::FromRow)]
pub struct SummaryRecord {
    pub session_id: i64,
    pub chat_id: ChatId,
    pub user_id: UserId,
    pub summary: String,
    pub created_at_ms: i64,
    pub session_started_at_ms: i64,
    pub session_last_activity_at_ms: i64,
}

impl Store {
    /// Stores (or replaces) the summary of a session.
    pub async fn add_summary(
        &self,
        session_id: i64,
        key: ConversationKey,
        summary: &str,
        now_ms: i64,
    ) -> Result<()> {
        let summary = self.storable(summary);
        run!(
            self.writer.execute,
            query!(
                sql = r#"INSERT INTO session_summaries (session_id, chat_id, user_id, summary, created_at)
                         VALUES ($1, $2, $3, $4, $5)
                         ON CONFLICT (session_id) DO UPDATE
                             SET summary = excluded.summary, created_at = excluded.created_at"#,
                session_id,
                key.chat_id.0,
                key.user_id.0,
                &*summary,
                now_ms,
            ),
        )?;
        Ok(())
    }

    /// The conversation's last `limit` summaries written at or after `since_ms`, oldest first.
    pub async fn recent_summaries(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<SummaryRecord>> {
        let mut summaries = run!(
            self.reader.fetch_all,
            select!(
                SummaryRecord,
                sqlite = r#"FROM session_summaries AS summary
                            JOIN sessions AS session ON session.id = summary.session_id
                            WHERE summary.chat_id = ?1 AND summary.user_id = ?2 AND summary.created_at >= ?3
                            ORDER BY summary.created_at DESC, summary.session_id DESC
                            LIMIT +?4"#,
                postgres = r#"FROM session_summaries AS summary
                              JOIN sessions AS session ON session.id = summary.session_id
                              WHERE summary.chat_id = $1 AND summary.user_id = $2 AND summary.created_at >= $3
                              ORDER BY summary.created_at DESC, summary.session_id DESC
                              LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END"#,
                key.chat_id.0,
                key.user_id.0,
                since_ms,
                limit,
            ),
        )?;
        summaries.reverse();
        Ok(summaries)
    }

    /// Deletes the summary of the conversation's session `session_id`; `false` if the
    /// conversation has no summary of that session. The session stays marked as summarized, so
    /// the summarizer does not write it again.
    pub async fn delete_summary(&self, key: ConversationKey, session_id: i64) -> Result<bool> {
        let deleted = run!(
            self.writer.execute,
            query!(
                sql = "DELETE FROM session_summaries
                       WHERE session_id = $1 AND chat_id = $2 AND user_id = $3",
                session_id,
                key.chat_id.0,
                key.user_id.0,
            ),
        )?;
        Ok(deleted == 1)
    }

    /// The summaries of the conversation's sessions that overlap `from_ms..to_ms` (a session
    /// from its first message to its last), oldest first: the `limit` latest of them when more
    /// do. What "what did we talk about last week?" reads.
    pub async fn summaries_between(
        &self,
        key: ConversationKey,
        from_ms: i64,
        to_ms: i64,
        limit: i64,
    ) -> Result<Vec<SummaryRecord>> {
        let mut summaries = run!(
            self.reader.fetch_all,
            // The conversation's sessions are walked by (chat_id, user_id, started_at) backwards
            // from the period's end; those that ended before it began are passed over.
            select!(
                SummaryRecord,
                sqlite = r#"FROM sessions AS session
                            JOIN session_summaries AS summary ON summary.session_id = session.id
                            WHERE session.chat_id = ?1 AND session.user_id = ?2
                              AND session.started_at < ?4 AND session.last_activity_at >= ?3
                            ORDER BY session.started_at DESC, session.id DESC
                            LIMIT +?5"#,
                postgres = r#"FROM sessions AS session
                              JOIN session_summaries AS summary ON summary.session_id = session.id
                              WHERE session.chat_id = $1 AND session.user_id = $2
                                AND session.started_at < $4 AND session.last_activity_at >= $3
                              ORDER BY session.started_at DESC, session.id DESC
                              LIMIT CASE WHEN $5::bigint >= 0 THEN $5 END"#,
                key.chat_id.0,
                key.user_id.0,
                from_ms,
                to_ms,
                limit,
            ),
        )?;
        summaries.reverse();
        Ok(summaries)
    }

    /// The person's own messages (not the replies) written in `from_ms..to_ms` in sessions that
    /// have no summary yet (the open one, or one still waiting for the summarizer), oldest
    /// first: the `limit` latest of them when more do. With [`Self::summaries_between`], all of
    /// a period.
    pub async fn messages_between(
        &self,
        key: ConversationKey,
        from_ms: i64,
        to_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>> {
        run!(
            self.reader.fetch_all,
            select!(
                StoredMessage,
                sqlite = r#"FROM (SELECT * FROM messages
                                  WHERE chat_id = ?1 AND user_id = ?2 AND created_at >= ?3
                                    AND created_at < ?4 AND role = 'user'
                                    AND NOT EXISTS (SELECT 1 FROM session_summaries AS summary
                                                    WHERE summary.session_id = messages.session_id)
                                  ORDER BY created_at DESC, id DESC
                                  LIMIT +?5)
                            ORDER BY created_at ASC, id ASC"#,
                postgres = r#"FROM (SELECT * FROM messages
                                    WHERE chat_id = $1 AND user_id = $2 AND created_at >= $3
                                      AND created_at < $4 AND role = 'user'
                                      AND NOT EXISTS (SELECT 1 FROM session_summaries AS summary
                                                      WHERE summary.session_id = messages.session_id)
                                    ORDER BY created_at DESC, id DESC
                                    LIMIT CASE WHEN $5::bigint >= 0 THEN $5 END) AS latest
                              ORDER BY created_at ASC, id ASC"#,
                key.chat_id.0,
                key.user_id.0,
                from_ms,
                to_ms,
                limit,
            ),
        )
    }

    /// The conversation's summaries of the sessions `session_ids`, in no particular order.
    pub(super) async fn summaries_with_ids(
        &self,
        key: ConversationKey,
        session_ids: &[i64],
    ) -> Result<Vec<SummaryRecord>> {
        run!(
            self.reader.fetch_all,
            sqlite = select!(
                SummaryRecord,
                r#"FROM session_summaries AS summary
                   JOIN sessions AS session ON session.id = summary.session_id
                   WHERE summary.session_id IN (SELECT value FROM json_each(?3))
                     AND summary.chat_id = ?1 AND summary.user_id = ?2"#,
                key.chat_id,
                key.user_id,
                json_ids(session_ids),
            ),
            postgres = select!(
                SummaryRecord,
                r#"FROM session_summaries AS summary
                   JOIN sessions AS session ON session.id = summary.session_id
                   WHERE summary.session_id = ANY($3)
                     AND summary.chat_id = $1 AND summary.user_id = $2"#,
                key.chat_id.0,
                key.user_id.0,
                session_ids,
            ),
        )
    }
}

impl Writing<'_> {
    /// Deletes the summary of the session `session_id` in this transaction (its triggers take
    /// its vector and byte count); how many (0 or 1).
    pub(super) async fn delete_summary(&mut self, session_id: i64) -> Result<u64> {
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(
                sql = "DELETE FROM session_summaries WHERE session_id = $1",
                session_id,
            ),
        )
    }
}
