//! PostgreSQL: deleting old data, a conversation, or a person's oldest sessions.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn clear_conversation(
        &self,
        _key: ConversationKey,
    ) -> Result<PurgeCounts, sqlx::Error> {
        Err(super::not_yet("clear_conversation"))
    }

    pub async fn purge_older_than(
        &self,
        _cutoff_ms: i64,
        _batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        Err(super::not_yet("purge_older_than"))
    }

    pub async fn purge_oldest_sessions_of(
        &self,
        _user_id: UserId,
        _max_bytes: i64,
        _batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        Err(super::not_yet("purge_oldest_sessions_of"))
    }

    pub async fn count_purgeable(&self, _cutoff_ms: i64) -> Result<PurgeCounts, sqlx::Error> {
        Err(super::not_yet("count_purgeable"))
    }
}
