//! PostgreSQL: embedding vectors and the search by meaning.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn use_embedding_model(&self, _model: &str) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("use_embedding_model"))
    }

    pub async fn messages_to_embed(&self, _limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        Err(super::not_yet("messages_to_embed"))
    }

    pub async fn summaries_to_embed(&self, _limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error> {
        Err(super::not_yet("summaries_to_embed"))
    }

    pub async fn store_vectors(
        &self,
        _vectors: &[MemoryVector],
        _messages_through: Option<i64>,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("store_vectors"))
    }

    pub async fn messages_waiting_for_vectors(&self) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("messages_waiting_for_vectors"))
    }

    pub async fn nearest_messages(
        &self,
        _key: ConversationKey,
        _query: &[u8],
        _before_id: i64,
        _limit: i64,
    ) -> Result<Vec<(StoredMessage, f64)>, sqlx::Error> {
        Err(super::not_yet("nearest_messages"))
    }

    pub async fn nearest_summaries(
        &self,
        _key: ConversationKey,
        _query: &[u8],
        _limit: i64,
    ) -> Result<Vec<(SummaryRecord, f64)>, sqlx::Error> {
        Err(super::not_yet("nearest_summaries"))
    }

    pub async fn vector_count(&self, _key: ConversationKey) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("vector_count"))
    }
}
