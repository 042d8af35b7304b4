//! Sessions: one stretch of a (chat, user) conversation. Opening, finding the open one, touching
//! and closing, and a turn's start: what it reads and the user's message stored in its session
//! ([`Store::open_turn`]). How long a session may sit idle is the caller's setting (`memory`).

use super::Backend;
use super::Result;
use super::Store;
use super::backend::Writing;
use super::{
    ChatId, ConversationKey, NewMessage, NoteRecord, Role, StoredMessage, SummaryRecord, UserId,
};

/// A session as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: i64,
    pub chat_id: ChatId,
    pub user_id: UserId,
    pub started_at_ms: i64,
    pub last_activity_at_ms: i64,
    pub closed_at_ms: Option<i64>,
    /// How many attempts at summarizing this session have started. Each is counted before it
    /// runs, so one that never finished (the process died) counts too.
    pub summary_attempts: i64,
}

/// The open session of a conversation, as much as a new message needs to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenSession {
    pub id: i64,
    pub last_activity_at_ms: i64,
}

impl OpenSession {
    /// The open session a turn-start row names, if any.
    fn of(id: Option<i64>, last_activity_at_ms: Option<i64>) -> Option<Self> {
        id.zip(last_activity_at_ms)
            .map(|(id, last_activity_at_ms)| Self {
                id,
                last_activity_at_ms,
            })
    }
}

/// See [`Store::turn_start`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnStart {
    pub persona: Option<String>,
    /// The model the person chose (`None`: never chose one), whether or not it is still offered.
    pub model: Option<String>,
    /// The person's time zone (an IANA name), if they set one.
    pub time_zone: Option<String>,
    /// Whether the conversation is in incognito: then nothing of the turn is stored, and none of
    /// the memory below may go into its prompt.
    pub incognito: bool,
    pub open_session: Option<OpenSession>,
    /// Every note of the conversation, oldest first.
    pub notes: Vec<NoteRecord>,
    /// The conversation's last summaries written since the given time, oldest first.
    pub summaries: Vec<SummaryRecord>,
    /// The conversation's history as [`Store::history`] reads it, oldest first.
    pub history: Vec<StoredMessage>,
    /// Whether the conversation has a message older than the history window.
    pub has_messages_before_window: bool,
    /// The latest summaries of all time ([`TurnOpening::older_summaries`] of them), oldest
    /// first, when the backend read them with the rest (PostgreSQL, where a statement is a
    /// network round trip); `None`: recall reads them itself.
    pub older_summaries: Option<Vec<SummaryRecord>>,
}

/// What [`Store::open_turn`] reads and stores.
#[derive(Clone, Copy, Debug)]
pub struct TurnOpening<'a> {
    pub limits: TurnStartLimits,
    /// A session continues while its last activity is at most this long before the message.
    pub session_idle_ms: i64,
    /// How many of the conversation's latest summaries of all time recall ranks beside.
    pub older_summaries: i64,
    /// The user's message, as stored.
    pub content: &'a str,
    pub created_at_ms: i64,
    pub telegram_message_id: Option<i64>,
}

/// A turn's start ([`Store::open_turn`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenedTurn {
    pub start: TurnStart,
    /// The stored user's message; `None` in incognito, where nothing is stored.
    pub stored: Option<StoredTurnMessage>,
}

/// Where [`Store::open_turn`] stored the user's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredTurnMessage {
    pub session_id: i64,
    pub message_id: i64,
    /// `false`: the same Telegram message was stored before (it is answered again after a
    /// crash), and `message_id` is that copy.
    pub is_new: bool,
}

/// How much of a conversation [`Store::turn_start`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnStartLimits {
    pub summaries_since_ms: i64,
    pub summary_count: i64,
    pub history_since_ms: i64,
    pub history_max_messages: i64,
}

/// How often [`Store::start_session`] closes a session another replica opened meanwhile and
/// tries again before giving up (PostgreSQL; on SQLite the first attempt opens it).
const START_SESSION_ATTEMPTS: usize = 8;

/// The row of `sql/turn_start.sql` (SQLite): the lists as JSON arrays.
#[cfg(feature = "sqlite")]
struct TurnStartRow {
    persona: Option<String>,
    model: Option<String>,
    time_zone: Option<String>,
    incognito: bool,
    session_id: Option<i64>,
    last_activity_at_ms: Option<i64>,
    notes: String,
    summaries: String,
    history: String,
    has_messages_before_window: bool,
}

/// The row of `postgres/open_turn.sql`: the lists as JSON arrays.
#[cfg(feature = "postgres")]
struct OpenTurnRow {
    persona: Option<String>,
    model: Option<String>,
    time_zone: Option<String>,
    incognito: bool,
    open_session_id: Option<i64>,
    open_session_last_activity_at_ms: Option<i64>,
    session_id: Option<i64>,
    message_id: Option<i64>,
    notes: String,
    summaries: String,
    older_summaries: String,
    history: String,
    has_messages_before_window: bool,
}

/// The [`TurnStart`] of a turn-start row of either backend, with the open session and the older
/// summaries as that row gives them. Each list is in the order the caller wants (oldest first),
/// as `Store::notes`, `Store::recent_summaries` and `Store::history` return it.
macro_rules! turn_start_of_row {
    ($row:ident, $open_session:expr, $older_summaries:expr $(,)?) => {
        TurnStart {
            open_session: $open_session,
            older_summaries: $older_summaries,
            notes: from_json(&$row.notes)?,
            summaries: from_json(&$row.summaries)?,
            history: from_json(&$row.history)?,
            persona: $row.persona,
            model: $row.model,
            time_zone: $row.time_zone,
            incognito: $row.incognito,
            has_messages_before_window: $row.has_messages_before_window,
        }
    };
}

/// A list of a turn-start row, read from its JSON array.
fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|error| sqlx::Error::Decode(Box::new(error)))
}

impl Store {
    /// The chats in which `user_id` has a session or a note, by chat id: where they have a
    /// memory the bot keeps.
    pub async fn chats_of_person(&self, user_id: UserId) -> Result<Vec<ChatId>> {
        let chat_ids: Vec<i64> = run!(
            self.reader.fetch_all,
            query_scalar!(
                sql = r#"SELECT chat_id AS "chat_id!" FROM sessions WHERE user_id = $1
                         UNION
                         SELECT chat_id FROM user_notes WHERE user_id = $1
                         ORDER BY 1"#,
                user_id.0,
            ),
        )?;
        Ok(chat_ids.into_iter().map(ChatId).collect())
    }

    /// The conversation's open session, if any.
    pub async fn open_session(&self, key: ConversationKey) -> Result<Option<SessionRecord>> {
        run!(
            self.reader.fetch_optional,
            select!(
                SessionRecord,
                sql = r#"FROM sessions
                         WHERE chat_id = $1 AND user_id = $2 AND closed_at IS NULL"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// What a chat turn reads before it stores the user's message, in one statement (each
    /// statement is a round trip to a database thread): the user's persona and model, whether
    /// the conversation is in incognito, its open session, its notes, its recent summaries, its
    /// history, and whether it has messages before the history window. The lists come as JSON
    /// arrays so that they fit in one row.
    pub async fn turn_start(
        &self,
        key: ConversationKey,
        limits: TurnStartLimits,
    ) -> Result<TurnStart> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => turn_start_in_sqlite(db, key, limits).await,
            // The opening's statement, told to open and store nothing: one text of these reads.
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let reading = TurnOpening {
                    limits,
                    session_idle_ms: 0,
                    older_summaries: 0,
                    content: "",
                    created_at_ms: 0,
                    telegram_message_id: None,
                };
                let (opened, _) = open_turn_in_one_statement(db, key, &reading, false).await?;
                Ok(TurnStart {
                    older_summaries: None,
                    ..opened.start
                })
            }
        }
    }

    /// A chat turn's start: what [`Store::turn_start`] reads, and (unless the conversation is in
    /// incognito) the user's message stored once in its session: the open one while it was last
    /// active within `session_idle_ms`, else a new one. On PostgreSQL this is one statement (one
    /// round trip instead of three to five), which also reads the latest summaries recall ranks;
    /// it falls back to one statement at a time when another replica opened a session meanwhile
    /// or the Telegram message is stored already.
    pub async fn open_turn(
        &self,
        key: ConversationKey,
        opening: TurnOpening<'_>,
    ) -> Result<OpenedTurn> {
        let (start, session_id) = match &self.backend {
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let (opened, session_id) =
                    open_turn_in_one_statement(db, key, &opening, true).await?;
                if opened.stored.is_some() {
                    return Ok(opened);
                }
                (opened.start, session_id)
            }
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => (self.turn_start(key, opening.limits).await?, None),
        };
        if start.incognito {
            return Ok(OpenedTurn {
                start,
                stored: None,
            });
        }
        self.store_turn_message(key, &opening, start, session_id)
            .await
    }

    /// The user's message of `opening` stored in `session_id`, or in the session the idle rule
    /// picks from `start`.
    async fn store_turn_message(
        &self,
        key: ConversationKey,
        opening: &TurnOpening<'_>,
        start: TurnStart,
        session_id: Option<i64>,
    ) -> Result<OpenedTurn> {
        let now_ms = opening.created_at_ms;
        let session_id = match (session_id, start.open_session) {
            (Some(session_id), _) => session_id,
            (None, Some(open)) if now_ms - open.last_activity_at_ms <= opening.session_idle_ms => {
                open.id
            }
            // Boxed: a new session is the rare case, and its several statements would otherwise
            // enlarge every turn's state.
            (None, _) => Box::pin(self.start_session(key, now_ms)).await?.0.id,
        };
        let (message_id, is_new) = self
            .add_user_message_once(&NewMessage {
                key,
                session_id,
                role: Role::User,
                content: opening.content,
                created_at_ms: now_ms,
                tokens_in: 0,
                tokens_out: 0,
                telegram_message_id: opening.telegram_message_id,
            })
            .await?;
        Ok(OpenedTurn {
            start,
            stored: Some(StoredTurnMessage {
                session_id,
                message_id,
                is_new,
            }),
        })
    }

    /// Starts a new session at `now_ms`, closing the conversation's open one (if any) first.
    /// Returns the new session and the id of the one it closed (the last one, should another
    /// replica have opened one meanwhile).
    pub async fn start_session(
        &self,
        key: ConversationKey,
        now_ms: i64,
    ) -> Result<(SessionRecord, Option<i64>)> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        begin!(self, transaction);
        let mut closed = None;
        // On SQLite the first attempt always opens the session: no one else writes meanwhile.
        for _ in 0..START_SESSION_ATTEMPTS {
            // A session ends when it was last active, not when we noticed it was idle. On
            // PostgreSQL each statement sees what other replicas committed before it began, so a
            // session one of them opened after the previous attempt is closed here.
            let closed_now = run_in!(
                transaction.fetch_optional,
                query_scalar!(
                    sql = r#"UPDATE sessions SET closed_at = last_activity_at
                             WHERE chat_id = $1 AND user_id = $2 AND closed_at IS NULL
                             RETURNING id AS "id!""#,
                    chat_id,
                    user_id,
                ),
            )?;
            closed = closed_now.or(closed);
            // PostgreSQL waits for a replica inserting an open session of this conversation, and
            // does nothing if it committed: then the next attempt closes that one.
            let session = run_in!(
                transaction.fetch_optional,
                query_as!(
                    SessionRecord,
                    sqlite = r#"INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at)
                                VALUES (?1, ?2, ?3, ?3)
                                RETURNING id AS "id!", chat_id, user_id, started_at AS started_at_ms,
                                          last_activity_at AS last_activity_at_ms, closed_at AS closed_at_ms,
                                          summary_attempts"#,
                    postgres = r#"INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at)
                                  VALUES ($1, $2, $3, $3)
                                  ON CONFLICT (chat_id, user_id) WHERE closed_at IS NULL DO NOTHING
                                  RETURNING id, chat_id, user_id, started_at AS started_at_ms,
                                            last_activity_at AS last_activity_at_ms, closed_at AS closed_at_ms,
                                            summary_attempts"#,
                    chat_id,
                    user_id,
                    now_ms,
                ),
            )?;
            if let Some(session) = session {
                transaction.commit().await?;
                return Ok((session, closed));
            }
        }
        Err(sqlx::Error::Protocol(
            "other replicas kept opening sessions of this conversation".into(),
        ))
    }

    /// Closes the conversation's open session at `now_ms` (or at its last activity, if later).
    /// Returns the closed session's id, or
    /// `None` when no session was open.
    pub async fn close_session(&self, key: ConversationKey, now_ms: i64) -> Result<Option<i64>> {
        run!(
            self.writer.fetch_optional,
            query_scalar!(
                sqlite = r#"UPDATE sessions SET closed_at = max(last_activity_at, ?3)
                            WHERE chat_id = ?1 AND user_id = ?2 AND closed_at IS NULL
                            RETURNING id AS "id!""#,
                postgres = r#"UPDATE sessions SET closed_at = greatest(last_activity_at, $3)
                              WHERE chat_id = $1 AND user_id = $2 AND closed_at IS NULL
                              RETURNING id"#,
                key.chat_id.0,
                key.user_id.0,
                now_ms,
            ),
        )
    }

    /// Closes every open session whose last activity is before `idle_before_ms`, at its last
    /// activity. Returns how many were closed.
    pub async fn close_idle_sessions(&self, idle_before_ms: i64) -> Result<u64> {
        let result = run!(
            self.writer.execute,
            query!(
                sql = "UPDATE sessions SET closed_at = last_activity_at
                       WHERE closed_at IS NULL AND last_activity_at < $1",
                idle_before_ms,
            ),
        )?;
        Ok(result)
    }

    /// Closed sessions without a summary whose retry time (if any) has come, oldest first.
    pub async fn sessions_awaiting_summary(
        &self,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<SessionRecord>> {
        run!(
            self.reader.fetch_all,
            select!(
                SessionRecord,
                sqlite = r#"FROM sessions
                            WHERE closed_at IS NOT NULL AND summarized = 0
                              AND (summary_retry_at IS NULL OR summary_retry_at <= ?1)
                            ORDER BY closed_at
                            LIMIT +?2"#,
                postgres = r#"FROM sessions
                              WHERE closed_at IS NOT NULL AND NOT summarized
                                AND (summary_retry_at IS NULL OR summary_retry_at <= $1)
                              ORDER BY closed_at
                              LIMIT CASE WHEN $2::bigint >= 0 THEN $2 END"#,
                now_ms,
                limit,
            ),
        )
    }

    /// Marks a session as needing no summary (it had no messages).
    pub async fn mark_session_summarized(&self, session_id: i64) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql =
                    "UPDATE sessions SET summarized = true, summary_retry_at = NULL WHERE id = $1",
                session_id,
            ),
        )?;
        Ok(())
    }

    /// Counts a summary attempt that is about to start and sets when to try again should it not
    /// succeed; returns the attempts so far, this one included.
    pub async fn begin_summary_attempt(&self, session_id: i64, retry_at_ms: i64) -> Result<i64> {
        run!(
            self.writer.fetch_one,
            query_scalar!(
                sql = r#"UPDATE sessions
                         SET summary_attempts = summary_attempts + 1, summary_retry_at = $2
                         WHERE id = $1
                         RETURNING summary_attempts AS "summary_attempts!""#,
                session_id,
                retry_at_ms,
            ),
        )
    }

    /// Moves a session's next summary attempt to `retry_at_ms`.
    pub async fn schedule_summary_retry(&self, session_id: i64, retry_at_ms: i64) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql = "UPDATE sessions SET summary_retry_at = $2 WHERE id = $1 AND NOT summarized",
                session_id,
                retry_at_ms,
            ),
        )?;
        Ok(())
    }
}

/// SQLite: `sql/turn_start.sql`.
#[cfg(feature = "sqlite")]
async fn turn_start_in_sqlite(
    db: &super::sqlite::SqliteStore,
    key: ConversationKey,
    limits: TurnStartLimits,
) -> Result<TurnStart> {
    let row = sqlx::query_file_as!(
        TurnStartRow,
        "src/storage/sql/turn_start.sql",
        key.chat_id,
        key.user_id,
        limits.summaries_since_ms,
        limits.summary_count,
        limits.history_since_ms,
        limits.history_max_messages,
    )
    .fetch_one(&mut *db.reader().await?)
    .await?;
    Ok(turn_start_of_row!(
        row,
        OpenSession::of(row.session_id, row.last_activity_at_ms),
        None,
    ))
}

/// PostgreSQL: `postgres/open_turn.sql`. The opened turn, whose message is `None` when the
/// statement did not store it, and the session it chose, if any. Unless `stores`, it only reads.
#[cfg(feature = "postgres")]
async fn open_turn_in_one_statement(
    db: &super::postgres::PgStore,
    key: ConversationKey,
    opening: &TurnOpening<'_>,
    stores: bool,
) -> Result<(OpenedTurn, Option<i64>)> {
    let limits = opening.limits;
    let row = sqlx::query_file_as!(
        OpenTurnRow,
        "src/storage/postgres/open_turn.sql",
        key.chat_id.0,
        key.user_id.0,
        limits.summaries_since_ms,
        limits.summary_count,
        limits.history_since_ms,
        limits.history_max_messages,
        opening.created_at_ms,
        opening.session_idle_ms,
        &*super::postgres::messages::storable(opening.content),
        opening.telegram_message_id,
        opening.older_summaries,
        stores,
    )
    .fetch_one(&db.pool)
    .await?;
    let start = turn_start_of_row!(
        row,
        OpenSession::of(row.open_session_id, row.open_session_last_activity_at_ms),
        Some(from_json(&row.older_summaries)?),
    );
    let stored = row
        .session_id
        .zip(row.message_id)
        .map(|(session_id, message_id)| StoredTurnMessage {
            session_id,
            message_id,
            is_new: true,
        });
    Ok((OpenedTurn { start, stored }, row.session_id))
}

impl Writing<'_> {
    /// Deletes the session `session_id` in this transaction (and, by cascade, its messages);
    /// how many (0 or 1).
    pub(super) async fn delete_session(&mut self, session_id: i64) -> Result<u64> {
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(sql = "DELETE FROM sessions WHERE id = $1", session_id),
        )
    }
}
