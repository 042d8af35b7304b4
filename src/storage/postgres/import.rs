//! PostgreSQL: storing a history brought in by `telemem import`, as `storage/import.rs` describes
//! for both backends. Each session's messages go in as arrays (`UNNEST`), a chunk per statement,
//! all in one transaction.

use super::PgStore;
use super::messages::storable;
use crate::storage::import::IMPORT_CHUNK;
use crate::storage::{ConversationKey, ImportCounts, ImportMessage, ImportSession, SessionSpan};

impl PgStore {
    /// Every session of the conversation, oldest first.
    pub async fn session_spans(
        &self,
        key: ConversationKey,
    ) -> Result<Vec<SessionSpan>, sqlx::Error> {
        sqlx::query_as!(
            SessionSpan,
            r#"SELECT id, started_at AS started_at_ms, last_activity_at AS last_activity_at_ms,
                      closed_at IS NOT NULL AS "closed!"
               FROM sessions
               WHERE chat_id = $1 AND user_id = $2
               ORDER BY started_at, id"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// The import keys of the conversation's imported messages.
    pub async fn import_keys(&self, key: ConversationKey) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT import_key AS "import_key!" FROM messages
               WHERE chat_id = $1 AND user_id = $2 AND import_key IS NOT NULL"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Stores `sessions` in one transaction: nothing of it is stored unless all of it is.
    pub async fn import_sessions(
        &self,
        key: ConversationKey,
        sessions: &[ImportSession],
    ) -> Result<ImportCounts, sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        let mut counts = ImportCounts::default();
        for session in sessions {
            let (Some(first), Some(last)) = (session.messages.first(), session.messages.last())
            else {
                continue;
            };
            let (first_ms, last_ms) = (first.created_at_ms, last.created_at_ms);
            let session_id = match session.existing_id {
                Some(id) => id,
                None => {
                    sqlx::query_scalar!(
                        r#"INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at,
                                             closed_at)
                       VALUES ($1, $2, $3, $4, $4)
                       RETURNING id"#,
                        key.chat_id.0,
                        key.user_id.0,
                        first_ms,
                        last_ms,
                    )
                    .fetch_one(&mut *transaction)
                    .await?
                }
            };
            let stored =
                insert_messages(&mut transaction, key, session_id, &session.messages).await?;
            match (session.existing_id, stored) {
                (None, 0) => {
                    sqlx::query!("DELETE FROM sessions WHERE id = $1", session_id)
                        .execute(&mut *transaction)
                        .await?;
                }
                (None, _) => counts.sessions_created += 1,
                (Some(_), 0) => {}
                (Some(_), _) => {
                    widen_session(&mut transaction, session_id, first_ms, last_ms).await?;
                    counts.sessions_extended += 1;
                }
            }
            counts.messages += stored;
        }
        transaction.commit().await?;
        Ok(counts)
    }
}

/// Stores `messages` in the session `session_id`, skipping those already stored; returns how
/// many were stored.
async fn insert_messages(
    transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    key: ConversationKey,
    session_id: i64,
    messages: &[ImportMessage],
) -> Result<u64, sqlx::Error> {
    let mut stored = 0;
    for chunk in messages.chunks(IMPORT_CHUNK) {
        let roles: Vec<&str> = chunk
            .iter()
            .map(|message| match message.role {
                crate::storage::Role::System => "system",
                crate::storage::Role::User => "user",
                crate::storage::Role::Assistant => "assistant",
            })
            .collect();
        let contents: Vec<String> = chunk
            .iter()
            .map(|message| storable(&message.content).into_owned())
            .collect();
        let times: Vec<i64> = chunk.iter().map(|message| message.created_at_ms).collect();
        let import_keys: Vec<&str> = chunk.iter().map(|message| &*message.import_key).collect();
        // The only conflict possible is the import key (the message is stored already).
        stored += sqlx::query!(
            r#"INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at, import_key)
               SELECT $1, $2, $3, role, content, created_at, import_key
               FROM UNNEST($4::text[], $5::text[], $6::bigint[], $7::text[])
                    AS imported (role, content, created_at, import_key)
               ON CONFLICT DO NOTHING"#,
            key.chat_id.0,
            key.user_id.0,
            session_id,
            &roles as &[&str],
            &contents,
            &times,
            &import_keys as &[&str],
        )
        .execute(&mut **transaction)
        .await?
        .rows_affected();
    }
    Ok(stored)
}

/// Makes the existing session `session_id` span its imported messages too and, when it is
/// closed, summarized again: its old summary goes (its triggers take its vector and byte count).
async fn widen_session(
    transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    session_id: i64,
    first_ms: i64,
    last_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "UPDATE sessions
         SET started_at = least(started_at, $2),
             last_activity_at = greatest(last_activity_at, $3),
             closed_at = CASE WHEN closed_at IS NULL THEN NULL ELSE greatest(closed_at, $3) END,
             summarized = false, summary_attempts = 0, summary_retry_at = NULL
         WHERE id = $1",
        session_id,
        first_ms,
        last_ms,
    )
    .execute(&mut **transaction)
    .await?;
    sqlx::query!(
        "DELETE FROM session_summaries WHERE session_id = $1",
        session_id
    )
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
