//! PostgreSQL: recall by words: the conversation's messages matching the search terms.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn index_pending_messages(&self) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("index_pending_messages"))
    }

    pub async fn search_messages(
        &self,
        _key: ConversationKey,
        _terms: &[SearchTerm],
        _before_id: i64,
        _limit: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        Err(super::not_yet("search_messages"))
    }
}
