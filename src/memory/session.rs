//! Sessions: a message after more than the idle timeout of silence in a (chat, user)
//! conversation starts a new session and closes the previous one.

use crate::storage::{ConversationKey, OpenSession, Store};

/// The session a new message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionChoice {
    pub session_id: i64,
    /// The session this message closed by arriving after the idle timeout, if any.
    pub closed_session_id: Option<i64>,
}

/// Keeps the conversation's `open` session (see [`Store::turn_start`]), or starts a new one when
/// there is none or when the open one has been idle for more than `idle_ms` at `now_ms`.
pub async fn session_for_message(
    store: &Store,
    key: ConversationKey,
    open: Option<OpenSession>,
    now_ms: i64,
    idle_ms: i64,
) -> Result<SessionChoice, sqlx::Error> {
    if let Some(open) = open
        && now_ms - open.last_activity_at_ms <= idle_ms
    {
        return Ok(SessionChoice {
            session_id: open.id,
            closed_session_id: None,
        });
    }
    let (session, closed_session_id) = store.start_session(key, now_ms).await?;
    Ok(SessionChoice {
        session_id: session.id,
        closed_session_id,
    })
}
