//! The columns of each record type as its queries select them, written once for both backends:
//! [`select!`] takes the record type, the rest of a query (`FROM …`, worded for one backend) and
//! its arguments, and reads rows into the record.
//! The column list names every column with a `!` (not null): SQLite cannot tell whether a
//! column read through a subquery may be null, and the schema of both backends says none is.

/// A compile-time checked query reading records of the type `$record` by
/// `SELECT <its columns> $rest`: [`super::StoredMessage`]s from `messages` (or a subquery over
/// it), [`super::SummaryRecord`]s from `session_summaries AS summary` joined with
/// `sessions AS session`, [`super::SessionRecord`]s from `sessions`, [`super::Reminder`]s from
/// `reminders`. `select!(Record, @sqlite "FROM …", …)` is the SQLite side of a text both
/// backends share ([`run!`]'s `sql = "…"`): the same query behind a leading `/* sqlite */`.
macro_rules! select {
    (StoredMessage, $($rest:tt)+) => {
        select!(@columns StoredMessage, r#"SELECT id AS "id!", chat_id AS "chat_id!",
            user_id AS "user_id!", session_id AS "session_id!", role AS "role!: Role",
            content AS "content!", created_at AS "created_at_ms!", tokens_in AS "tokens_in!",
            tokens_out AS "tokens_out!", telegram_message_id "#, $($rest)+)
    };
    (SummaryRecord, $($rest:tt)+) => {
        select!(@columns SummaryRecord, r#"SELECT summary.session_id AS "session_id!",
            summary.chat_id AS "chat_id!", summary.user_id AS "user_id!",
            summary.summary AS "summary!", summary.created_at AS "created_at_ms!",
            session.started_at AS "session_started_at_ms!",
            session.last_activity_at AS "session_last_activity_at_ms!" "#, $($rest)+)
    };
    (SessionRecord, $($rest:tt)+) => {
        select!(@columns SessionRecord, r#"SELECT id AS "id!", chat_id AS "chat_id!",
            user_id AS "user_id!", started_at AS "started_at_ms!",
            last_activity_at AS "last_activity_at_ms!", closed_at AS closed_at_ms,
            summary_attempts AS "summary_attempts!" "#, $($rest)+)
    };
    (Reminder, $($rest:tt)+) => {
        select!(@columns Reminder, r#"SELECT id AS "id!", chat_id AS "chat_id!",
            user_id AS "user_id!", text AS "text!", due_at AS "due_at_ms!",
            created_at AS "created_at_ms!", state AS "state!", sent_at AS sent_at_ms "#, $($rest)+)
    };
    (@columns $record:ident, $columns:literal, @sqlite $rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!($record, "/* sqlite */ " + $columns + $rest, $($argument),*)
    };
    (@columns $record:ident, $columns:literal, $rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!($record, $columns + $rest, $($argument),*)
    };
}
