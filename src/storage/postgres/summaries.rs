//! PostgreSQL: session summaries.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn add_summary(
        &self,
        _session_id: i64,
        _key: ConversationKey,
        _summary: &str,
        _now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("add_summary"))
    }

    pub async fn recent_summaries(
        &self,
        _key: ConversationKey,
        _since_ms: i64,
        _limit: i64,
    ) -> Result<Vec<SummaryRecord>, sqlx::Error> {
        Err(super::not_yet("recent_summaries"))
    }
}
