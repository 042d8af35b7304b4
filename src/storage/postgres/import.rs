//! PostgreSQL: storing a history brought in by `telemem import`, as `storage/import.rs` describes
//! for both backends. Each session's messages go in as arrays (`UNNEST`), a chunk per statement,
//! all in one transaction.
//!
//! Imported rows skip the per-row trigger `messages_after_insert` (see the `imported_messages`
//! migration: updating the same row once per message in one transaction slows down
//! quadratically). [`Bookkeeping`] does its work once for the whole import instead: the person's
//! activity, their messages per day and their stored bytes. The session's last activity is
//! written with the session.

use std::collections::BTreeMap;

use super::messages::storable;
use crate::storage::Result;
use crate::storage::{ConversationKey, ImportMessage};

/// What the imported rows add to the person's bookkeeping.
#[derive(Default)]
pub(in crate::storage) struct Bookkeeping {
    /// The person's messages per UTC day (by the day's first ms).
    pub(in crate::storage) messages_by_day: BTreeMap<i64, i64>,
    pub(in crate::storage) bytes: i64,
    /// The first and last time of the person's own messages.
    pub(in crate::storage) active: Option<(i64, i64)>,
}

/// One UTC day's imported rows, as the insert returns them.
pub(in crate::storage) struct ImportedDay {
    day_start_at: i64,
    rows: i64,
    user_messages: i64,
    bytes: i64,
    first_user_at: Option<i64>,
    last_user_at: Option<i64>,
}

impl Bookkeeping {
    /// Adds the imported `days`; how many rows they stored.
    pub(in crate::storage) fn add_days(&mut self, days: Vec<ImportedDay>) -> u64 {
        days.into_iter().map(|day| self.add(day)).sum()
    }

    /// Adds one imported day; how many rows it stored.
    fn add(&mut self, day: ImportedDay) -> u64 {
        *self.messages_by_day.entry(day.day_start_at).or_default() += day.user_messages;
        self.bytes += day.bytes;
        if let (Some(first), Some(last)) = (day.first_user_at, day.last_user_at) {
            self.active = Some(match self.active {
                Some((earliest, latest)) => (earliest.min(first), latest.max(last)),
                None => (first, last),
            });
        }
        u64::try_from(day.rows).unwrap_or(0)
    }

    /// What `messages_after_insert()` does per row, once: the person's activity (from their own
    /// messages), messages per day (the imported ones cost no tokens), stored bytes.
    pub(in crate::storage) async fn write(
        &self,
        transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
        key: ConversationKey,
    ) -> Result<()> {
        if let Some((first, last)) = self.active {
            sqlx::query!(
                "INSERT INTO user_settings (user_id, created_at, last_active_at)
                 VALUES ($1, $2, $3)
                 ON CONFLICT (user_id) DO UPDATE
                     SET last_active_at = greatest(user_settings.last_active_at,
                                                   excluded.last_active_at)",
                key.user_id.0,
                first,
                last,
            )
            .execute(&mut **transaction)
            .await?;
        }
        let days: Vec<i64> = self.messages_by_day.keys().copied().collect();
        let messages: Vec<i64> = self.messages_by_day.values().copied().collect();
        sqlx::query!(
            "INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
             SELECT $1, day_start_at, messages, 0
             FROM UNNEST($2::bigint[], $3::bigint[]) AS imported (day_start_at, messages)
             ON CONFLICT (user_id, day_start_at) DO UPDATE
                 SET messages = daily_usage.messages + excluded.messages",
            key.user_id.0,
            &days,
            &messages,
        )
        .execute(&mut **transaction)
        .await?;
        if self.bytes > 0 {
            sqlx::query!(
                "INSERT INTO stored_bytes (user_id, bytes) VALUES ($1, $2)
                 ON CONFLICT (user_id) DO UPDATE SET bytes = stored_bytes.bytes + excluded.bytes",
                key.user_id.0,
                self.bytes,
            )
            .execute(&mut **transaction)
            .await?;
        }
        Ok(())
    }
}

/// Stores one chunk of imported messages as arrays (`UNNEST`); what the stored rows add to the
/// bookkeeping, by UTC day.
pub(in crate::storage) async fn insert_imported_chunk(
    transaction: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    key: ConversationKey,
    session_id: i64,
    chunk: &[ImportMessage],
) -> Result<Vec<ImportedDay>> {
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
    sqlx::query_as!(
        ImportedDay,
        r#"WITH inserted AS (
               INSERT INTO messages
                   (chat_id, user_id, session_id, role, content, created_at, import_key)
               SELECT $1, $2, $3, role, content, created_at, import_key
               FROM UNNEST($4::text[], $5::text[], $6::bigint[], $7::text[])
                    AS imported (role, content, created_at, import_key)
               ON CONFLICT DO NOTHING
               RETURNING role, created_at, octet_length(content) AS bytes)
           SELECT created_at - created_at % 86400000 AS "day_start_at!",
                  count(*) FILTER (WHERE role = 'user') AS "user_messages!",
                  sum(bytes)::bigint AS "bytes!",
                  min(created_at) FILTER (WHERE role = 'user') AS first_user_at,
                  max(created_at) FILTER (WHERE role = 'user') AS last_user_at,
                  count(*) AS "rows!"
           FROM inserted
           GROUP BY 1"#,
        key.chat_id.0,
        key.user_id.0,
        session_id,
        &roles as &[&str],
        &contents,
        &times,
        &import_keys as &[&str],
    )
    .fetch_all(&mut **transaction)
    .await
}
