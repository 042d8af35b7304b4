//! PostgreSQL: daily usage and stored bytes per person.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn tokens_and_limit(
        &self,
        _user_id: UserId,
        _day_start_ms: i64,
    ) -> Result<TokensAndLimit, sqlx::Error> {
        Err(super::not_yet("tokens_and_limit"))
    }

    pub async fn usage_by_person(
        &self,
        _since_ms: i64,
        _today_ms: i64,
        _only: Option<UserId>,
    ) -> Result<Vec<PersonUsage>, sqlx::Error> {
        Err(super::not_yet("usage_by_person"))
    }

    pub async fn stored_bytes(&self, _user_id: UserId) -> Result<StoredBytes, sqlx::Error> {
        Err(super::not_yet("stored_bytes"))
    }

    pub async fn record_stored_bytes_notice(
        &self,
        _user_id: UserId,
        _now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("record_stored_bytes_notice"))
    }

    pub async fn forget_stored_bytes_notice(&self, _user_id: UserId) -> Result<(), sqlx::Error> {
        Err(super::not_yet("forget_stored_bytes_notice"))
    }
}
