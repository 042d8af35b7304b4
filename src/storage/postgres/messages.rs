//! PostgreSQL: storing messages and reading a conversation's history.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn add_message(&self, _message: &NewMessage<'_>) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("add_message"))
    }

    pub async fn add_reply(
        &self,
        _reply: &NewMessage<'_>,
        _update_id: Option<i64>,
    ) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("add_reply"))
    }

    pub async fn add_user_message_once(
        &self,
        _message: &NewMessage<'_>,
    ) -> Result<(i64, bool), sqlx::Error> {
        Err(super::not_yet("add_user_message_once"))
    }

    pub async fn set_telegram_message_id(
        &self,
        _message_id: i64,
        _telegram_message_id: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_telegram_message_id"))
    }

    pub async fn history(
        &self,
        _key: ConversationKey,
        _since_ms: i64,
        _limit: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        Err(super::not_yet("history"))
    }

    pub async fn all_messages(
        &self,
        _key: ConversationKey,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        Err(super::not_yet("all_messages"))
    }

    pub async fn user_message_text(
        &self,
        _key: ConversationKey,
        _telegram_message_id: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        Err(super::not_yet("user_message_text"))
    }

    pub async fn session_messages(
        &self,
        _session_id: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        Err(super::not_yet("session_messages"))
    }
}
