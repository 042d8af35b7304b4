//! PostgreSQL: counts for `/stats`, `/metrics` and the health check.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn conversation_stats(
        &self,
        _key: ConversationKey,
        _window_since_ms: i64,
        _today_since_ms: i64,
    ) -> Result<UserStats, sqlx::Error> {
        Err(super::not_yet("conversation_stats"))
    }

    pub async fn user_stats(
        &self,
        _user_id: UserId,
        _window_since_ms: i64,
        _today_since_ms: i64,
    ) -> Result<UserStats, sqlx::Error> {
        Err(super::not_yet("user_stats"))
    }

    pub async fn database_totals(&self) -> Result<DatabaseTotals, sqlx::Error> {
        Err(super::not_yet("database_totals"))
    }

    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        sqlx::query!("SELECT true AS alive")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn database_bytes(&self) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("database_bytes"))
    }
}
