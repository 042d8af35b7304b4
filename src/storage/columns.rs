//! The columns of each record type as its queries select them, written once for both backends:
//! [`select_messages!`], [`select_summaries!`] and [`select_sessions!`] each take the rest of a
//! query (`FROM …`, worded for one backend) and its arguments, and read rows into the record.
//! The column list names every column with a `!` (not null): SQLite cannot tell whether a
//! column read through a subquery may be null, and the schema of both backends says none is.

/// A compile-time checked query reading [`super::StoredMessage`]s from `messages` (or a
/// subquery over it) by `SELECT <the columns> $rest`.
macro_rules! select_messages {
    ($rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id AS "id!", chat_id AS "chat_id!", user_id AS "user_id!",
                      session_id AS "session_id!", role AS "role!: Role",
                      content AS "content!", created_at AS "created_at_ms!",
                      tokens_in AS "tokens_in!", tokens_out AS "tokens_out!",
                      telegram_message_id "# + $rest,
            $($argument),*
        )
    };
}

/// A compile-time checked query reading [`super::SummaryRecord`]s from `session_summaries AS
/// summary` joined with `sessions AS session`, by `SELECT <the columns> $rest`.
macro_rules! select_summaries {
    ($rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!(
            SummaryRecord,
            r#"SELECT summary.session_id AS "session_id!", summary.chat_id AS "chat_id!",
                      summary.user_id AS "user_id!", summary.summary AS "summary!",
                      summary.created_at AS "created_at_ms!",
                      session.started_at AS "session_started_at_ms!",
                      session.last_activity_at AS "session_last_activity_at_ms!" "# + $rest,
            $($argument),*
        )
    };
}

/// A compile-time checked query reading [`super::SessionRecord`]s from `sessions`, by
/// `SELECT <the columns> $rest`.
macro_rules! select_sessions {
    ($rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!(
            SessionRecord,
            r#"SELECT id AS "id!", chat_id AS "chat_id!", user_id AS "user_id!",
                      started_at AS "started_at_ms!", last_activity_at AS "last_activity_at_ms!",
                      closed_at AS closed_at_ms, summary_attempts AS "summary_attempts!" "# + $rest,
            $($argument),*
        )
    };
}
