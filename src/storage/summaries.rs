//! Session summaries: one per closed session, written by the summarizer.

#[cfg(feature = "sqlite")]
use super::SqliteStore;
#[cfg_attr(not(feature = "sqlite"), allow(unused_imports))]
use super::{ChatId, ConversationKey, UserId};

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

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// Stores (or replaces) the summary of a session.
    pub async fn add_summary(
        &self,
        session_id: i64,
        key: ConversationKey,
        summary: &str,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            r#"INSERT INTO session_summaries (session_id, chat_id, user_id, summary, created_at)
               VALUES (?1, ?2, ?3, ?4, ?5)
               ON CONFLICT (session_id) DO UPDATE
                   SET summary = excluded.summary, created_at = excluded.created_at"#,
            session_id,
            key.chat_id,
            key.user_id,
            summary,
            now_ms,
        )
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// The conversation's last `limit` summaries written at or after `since_ms`, oldest first.
    pub async fn recent_summaries(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<SummaryRecord>, sqlx::Error> {
        let mut summaries = sqlx::query_as!(
            SummaryRecord,
            r#"SELECT summary.session_id AS "session_id!", summary.chat_id, summary.user_id,
                      summary.summary, summary.created_at AS created_at_ms,
                      session.started_at AS session_started_at_ms,
                      session.last_activity_at AS session_last_activity_at_ms
               FROM session_summaries AS summary
               JOIN sessions AS session ON session.id = summary.session_id
               WHERE summary.chat_id = ?1 AND summary.user_id = ?2 AND summary.created_at >= ?3
               ORDER BY summary.created_at DESC, summary.session_id DESC
               LIMIT +?4"#,
            key.chat_id,
            key.user_id,
            since_ms,
            limit,
        )
        .fetch_all(&mut *self.reader().await?)
        .await?;
        summaries.reverse();
        Ok(summaries)
    }
}
