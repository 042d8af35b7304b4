//! PostgreSQL: sessions: opening, closing, the turn's start, and the summarizer's queue.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn open_session(
        &self,
        _key: ConversationKey,
    ) -> Result<Option<SessionRecord>, sqlx::Error> {
        Err(super::not_yet("open_session"))
    }

    pub async fn turn_start(
        &self,
        _key: ConversationKey,
        _limits: TurnStartLimits,
    ) -> Result<TurnStart, sqlx::Error> {
        Err(super::not_yet("turn_start"))
    }

    pub async fn start_session(
        &self,
        _key: ConversationKey,
        _now_ms: i64,
    ) -> Result<(SessionRecord, Option<i64>), sqlx::Error> {
        Err(super::not_yet("start_session"))
    }

    pub async fn close_session(
        &self,
        _key: ConversationKey,
        _now_ms: i64,
    ) -> Result<Option<i64>, sqlx::Error> {
        Err(super::not_yet("close_session"))
    }

    pub async fn close_idle_sessions(&self, _idle_before_ms: i64) -> Result<u64, sqlx::Error> {
        Err(super::not_yet("close_idle_sessions"))
    }

    pub async fn sessions_awaiting_summary(
        &self,
        _now_ms: i64,
        _limit: i64,
    ) -> Result<Vec<SessionRecord>, sqlx::Error> {
        Err(super::not_yet("sessions_awaiting_summary"))
    }

    pub async fn mark_session_summarized(&self, _session_id: i64) -> Result<(), sqlx::Error> {
        Err(super::not_yet("mark_session_summarized"))
    }

    pub async fn begin_summary_attempt(
        &self,
        _session_id: i64,
        _retry_at_ms: i64,
    ) -> Result<i64, sqlx::Error> {
        Err(super::not_yet("begin_summary_attempt"))
    }

    pub async fn schedule_summary_retry(
        &self,
        _session_id: i64,
        _retry_at_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("schedule_summary_retry"))
    }
}
