//! PostgreSQL: per-user settings.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn user_settings(
        &self,
        _user_id: UserId,
    ) -> Result<Option<UserSettings>, sqlx::Error> {
        Err(super::not_yet("user_settings"))
    }

    pub async fn set_persona(
        &self,
        _user_id: UserId,
        _persona: Option<&str>,
        _now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_persona"))
    }

    pub async fn set_model(
        &self,
        _user_id: UserId,
        _model: Option<&str>,
        _now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_model"))
    }

    pub async fn set_language_code(
        &self,
        _user_id: UserId,
        _language_code: Option<&str>,
        _now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_language_code"))
    }

    pub async fn clear_user_settings(&self, _user_id: UserId) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("clear_user_settings"))
    }
}
