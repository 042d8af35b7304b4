//! PostgreSQL: telegram updates taken in, for exactly-once answers across crashes and replicas.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn mark_update_processed(
        &self,
        _update_id: i64,
        _now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("mark_update_processed"))
    }

    pub async fn set_update_state(
        &self,
        _update_id: i64,
        _state: UpdateState,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("set_update_state"))
    }

    pub async fn unfinished_updates(
        &self,
        _since_ms: i64,
        _before_ms: i64,
    ) -> Result<Vec<UnfinishedUpdate>, sqlx::Error> {
        Err(super::not_yet("unfinished_updates"))
    }

    pub async fn record_answer_messages(
        &self,
        _update_id: i64,
        _message_ids: &[i64],
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("record_answer_messages"))
    }

    pub async fn record_updates(
        &self,
        _updates: &[UpdateRecord],
        _now_ms: i64,
    ) -> Result<Vec<bool>, sqlx::Error> {
        Err(super::not_yet("record_updates"))
    }
}
