//! PostgreSQL: the last exchange of a conversation and replacing its replies (`/retry`).

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn last_exchange(
        &self,
        _key: ConversationKey,
    ) -> Result<Option<LastExchange>, sqlx::Error> {
        Err(super::not_yet("last_exchange"))
    }

    pub async fn history_through(
        &self,
        _key: ConversationKey,
        _since_ms: i64,
        _limit: i64,
        _through_id: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        Err(super::not_yet("history_through"))
    }

    pub async fn replace_replies(
        &self,
        _replaced: &[i64],
        _reply: &NewMessage<'_>,
        _update_id: Option<i64>,
    ) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("replace_replies"))
    }
}
