//! PostgreSQL: access rules, stranger alerts and own token limits.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn access_rules(&self) -> Result<Vec<AccessRuleRecord>, sqlx::Error> {
        Err(super::not_yet("access_rules"))
    }

    pub async fn set_access_rule(&self, _record: &AccessRuleRecord) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_access_rule"))
    }

    pub async fn delete_access_rule(&self, _user_id: UserId) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("delete_access_rule"))
    }

    pub async fn record_stranger_alert(
        &self,
        _user_id: UserId,
        _now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("record_stranger_alert"))
    }

    pub async fn token_limit(
        &self,
        _user_id: UserId,
    ) -> Result<Option<TokenLimitRecord>, sqlx::Error> {
        Err(super::not_yet("token_limit"))
    }

    pub async fn any_own_token_limit(&self) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("any_own_token_limit"))
    }

    pub async fn set_token_limit(&self, _record: &TokenLimitRecord) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_token_limit"))
    }

    pub async fn delete_token_limit(&self, _user_id: UserId) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("delete_token_limit"))
    }
}
