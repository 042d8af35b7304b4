//! PostgreSQL: incognito conversations and their token counts.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn is_incognito(&self, _key: ConversationKey) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("is_incognito"))
    }

    pub async fn set_incognito(
        &self,
        _key: ConversationKey,
        _on: bool,
        _now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("set_incognito"))
    }

    pub async fn add_incognito_tokens(
        &self,
        _user_id: UserId,
        _day_start_ms: i64,
        _tokens_in: i64,
        _tokens_out: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("add_incognito_tokens"))
    }

    pub async fn incognito_tokens(
        &self,
        _user_id: UserId,
        _since_day_start_ms: i64,
    ) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("incognito_tokens"))
    }
}
