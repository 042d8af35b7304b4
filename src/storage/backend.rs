//! What lets one `Store` method speak to either backend with its logic written once: [`run!`]
//! runs one statement on the store, [`begin!`] opens a write transaction ([`Writing`]) and
//! [`run_in!`] runs one statement in it. Each takes the statement of each backend (the SQL is
//! all that differs, and stays compile-time checked); the code around them is the caller's,
//! written once.
//!
//! Where the two dialects read a statement alike, it is written once (`sql = "…"`), with
//! PostgreSQL's numbered parameters: SQLite binds `$1`, `$2`, … by their number as it does `?1`,
//! `?2`, …. Each backend still checks the text at compile time against its own schema. The SQLite
//! side is the same text behind a leading `/* sqlite */` comment: sqlx names a query's offline
//! data (`.sqlx/`) by a hash of its text alone, so the one text would otherwise leave one file
//! for two databases.

use super::Result;

/// Runs one statement on the store's backend, whichever it is, and finishes it with `$finish`
/// (`fetch_one`, `fetch_optional`, `fetch_all`, ..., or `execute`, which gives the number of rows
/// the statement changed): on SQLite on a reader connection or on the writer, as
/// `reader`/`writer` says; on PostgreSQL on the pool. Only each backend's SQL is written twice;
/// what the caller does with the result is written once, around the call:
///
/// ```ignore
/// let deleted = run!(
///     self.writer.execute,
///     sqlite = sqlx::query!("DELETE FROM notes WHERE id = ?1", id),
///     postgres = sqlx::query!("DELETE FROM notes WHERE id = $1", id),
/// )?;
/// ```
///
/// When both statements take the same arguments, they are written once:
/// `run!(self.writer.execute, query!(sqlite = "…", postgres = "…", id))`, likewise with
/// `query_scalar!`, `query_as!(Record, …)` and `select!(Record, …)` ([`select!`]). When the
/// two texts are the same too, so is the text: `query!(sql = "… $1 …", id)`, likewise with the
/// others; it runs on SQLite as `"/* sqlite */ " + sql` (see the module's documentation). With
/// `query!`, the text may be literals joined by `+` (`"DELETE FROM " + $table + " …"`), as sqlx
/// joins them.
macro_rules! run {
    // One argument list for both backends' statements.
    (
        $store:ident.$connection:ident.$finish:ident,
        $reading:ident!($record:ident, sqlite = $sqlite:literal, postgres = $postgres:literal
                        $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run!(
            $store.$connection.$finish,
            sqlite = run!(@records $reading, $record, $sqlite $(, $argument)*),
            postgres = run!(@records $reading, $record, $postgres $(, $argument)*),
        )
    };
    (
        $store:ident.$connection:ident.$finish:ident,
        $query:ident!(sqlite = $sqlite:literal, postgres = $postgres:literal
                      $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run!(
            $store.$connection.$finish,
            sqlite = sqlx::$query!($sqlite $(, $argument)*),
            postgres = sqlx::$query!($postgres $(, $argument)*),
        )
    };
    // One text for both backends: the SQLite side is marked so its offline data has its own name.
    (
        $store:ident.$connection:ident.$finish:ident,
        $reading:ident!($record:ident, sql = $sql:literal $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run!(
            $store.$connection.$finish,
            sqlite = run!(@records $reading, $record, @sqlite $sql $(, $argument)*),
            postgres = run!(@records $reading, $record, $sql $(, $argument)*),
        )
    };
    (
        $store:ident.$connection:ident.$finish:ident,
        $query:ident!(sql = $sql:literal $(+ $more:literal)* $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run!(
            $store.$connection.$finish,
            sqlite = sqlx::$query!("/* sqlite */ " + $sql $(+ $more)* $(, $argument)*),
            postgres = sqlx::$query!($sql $(+ $more)* $(, $argument)*),
        )
    };
    // A query reading `$record`s: by `sqlx::query_as!`, or by `select!` with the record's columns.
    (@records query_as, $record:ident, @sqlite $sql:literal $(, $argument:expr)*) => {
        sqlx::query_as!($record, "/* sqlite */ " + $sql $(, $argument)*)
    };
    (@records query_as, $record:ident, $($rest:tt)+) => {
        sqlx::query_as!($record, $($rest)+)
    };
    (@records select, $record:ident, $($rest:tt)+) => {
        select!($record, $($rest)+)
    };
    ($store:ident.$connection:ident.execute, sqlite = $sqlite:expr, postgres = $postgres:expr $(,)?) => {
        match &$store.backend {
            #[cfg(feature = "sqlite")]
            $crate::storage::Backend::Sqlite(db) => $sqlite
                .execute(&mut *db.$connection().await?)
                .await
                .map(|done| done.rows_affected()),
            #[cfg(feature = "postgres")]
            $crate::storage::Backend::Postgres(db) => $postgres
                .execute(&db.pool)
                .await
                .map(|done| done.rows_affected()),
        }
    };
    ($store:ident.$connection:ident.$finish:ident, sqlite = $sqlite:expr, postgres = $postgres:expr $(,)?) => {
        match &$store.backend {
            #[cfg(feature = "sqlite")]
            $crate::storage::Backend::Sqlite(db) => {
                $sqlite.$finish(&mut *db.$connection().await?).await
            }
            #[cfg(feature = "postgres")]
            $crate::storage::Backend::Postgres(db) => $postgres.$finish(&db.pool).await,
        }
    };
}

/// Deletes the person's row of `$table`, a table with one row a person (keyed by `user_id`);
/// whether there was one.
macro_rules! delete_person_row {
    ($store:ident, $table:literal, $user_id:expr $(,)?) => {
        run!(
            $store.writer.execute,
            query!(
                sql = "DELETE FROM " + $table + " WHERE user_id = $1",
                $user_id.0
            ),
        )
        .map(|deleted| deleted > 0)
    };
}

/// Records in `$table` (one row a person, keyed by `user_id`) that something happened to the
/// person at `$at_ms`, in the column `$at`; whether this is the first time (with replicas, true
/// for whichever got here first).
macro_rules! record_first_time {
    ($store:ident, $table:literal, $at:literal, $user_id:expr, $at_ms:expr $(,)?) => {
        run!(
            $store.writer.execute,
            query!(
                sql = "INSERT INTO "
                    + $table
                    + " (user_id, "
                    + $at
                    + ") VALUES ($1, $2)
                       ON CONFLICT (user_id) DO NOTHING",
                $user_id.0,
                $at_ms,
            ),
        )
        .map(|inserted| inserted > 0)
    };
}

/// Opens a write transaction named `$transaction` ([`Writing`]) on the store's backend: on SQLite
/// on the writer connection, holding the write lock from the start (`BEGIN IMMEDIATE`); on
/// PostgreSQL on a pooled connection. Ends with [`Writing::commit`]; dropped, it rolls back.
macro_rules! begin {
    ($store:expr, $transaction:ident) => {
        #[cfg(feature = "sqlite")]
        let mut writer;
        #[allow(unused_mut)] // a caller may move the transaction instead
        let mut $transaction = match &$store.backend {
            #[cfg(feature = "sqlite")]
            $crate::storage::Backend::Sqlite(db) => {
                writer = db.writer().await?;
                $crate::storage::backend::Writing::Sqlite(
                    $crate::storage::begin_write(&mut writer).await?,
                )
            }
            #[cfg(feature = "postgres")]
            $crate::storage::Backend::Postgres(db) => {
                $crate::storage::backend::Writing::Postgres(db.pool.begin().await?)
            }
        };
    };
}

/// Runs one statement in the transaction `$transaction` ([`begin!`]), finished as with
/// [`run!`]: `execute` gives the number of rows changed. It takes the same forms as [`run!`]:
/// each backend's statement, one argument list for both, or one text (`sql = "…"`).
macro_rules! run_in {
    // One argument list for both backends' statements.
    (
        $transaction:ident.$finish:ident,
        query_as!($record:ident, sqlite = $sqlite:literal, postgres = $postgres:literal
                  $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run_in!(
            $transaction.$finish,
            sqlite = sqlx::query_as!($record, $sqlite $(, $argument)*),
            postgres = sqlx::query_as!($record, $postgres $(, $argument)*),
        )
    };
    (
        $transaction:ident.$finish:ident,
        $query:ident!(sqlite = $sqlite:literal, postgres = $postgres:literal
                      $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run_in!(
            $transaction.$finish,
            sqlite = sqlx::$query!($sqlite $(, $argument)*),
            postgres = sqlx::$query!($postgres $(, $argument)*),
        )
    };
    // One text for both backends, as with `run!`.
    (
        $transaction:ident.$finish:ident,
        query_as!($record:ident, sql = $sql:literal $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run_in!(
            $transaction.$finish,
            sqlite = sqlx::query_as!($record, "/* sqlite */ " + $sql $(, $argument)*),
            postgres = sqlx::query_as!($record, $sql $(, $argument)*),
        )
    };
    (
        $transaction:ident.$finish:ident,
        $query:ident!(sql = $sql:literal $(, $argument:expr)* $(,)?) $(,)?
    ) => {
        run_in!(
            $transaction.$finish,
            sqlite = sqlx::$query!("/* sqlite */ " + $sql $(, $argument)*),
            postgres = sqlx::$query!($sql $(, $argument)*),
        )
    };
    ($transaction:ident.execute, sqlite = $sqlite:expr, postgres = $postgres:expr $(,)?) => {
        match $transaction.statements() {
            #[cfg(feature = "sqlite")]
            $crate::storage::backend::Writing::Sqlite(transaction) => $sqlite
                .execute(&mut **transaction)
                .await
                .map(|done| done.rows_affected()),
            #[cfg(feature = "postgres")]
            $crate::storage::backend::Writing::Postgres(transaction) => $postgres
                .execute(&mut **transaction)
                .await
                .map(|done| done.rows_affected()),
        }
    };
    ($transaction:ident.$finish:ident, sqlite = $sqlite:expr, postgres = $postgres:expr $(,)?) => {
        match $transaction.statements() {
            #[cfg(feature = "sqlite")]
            $crate::storage::backend::Writing::Sqlite(transaction) => {
                $sqlite.$finish(&mut **transaction).await
            }
            #[cfg(feature = "postgres")]
            $crate::storage::backend::Writing::Postgres(transaction) => {
                $postgres.$finish(&mut **transaction).await
            }
        }
    };
}

impl super::Store {
    /// Tells SQLite's indexing batches ([`super::search_index`]) that messages are about to be
    /// stored. Called while holding the writer (inside a transaction of [`begin!`]), so the next
    /// batch, which needs the writer too, runs after the write. PostgreSQL indexes as it stores.
    pub(super) fn messages_to_index(&self) {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            super::Backend::Sqlite(db) => db.connections.messages_to_index(),
            #[cfg(feature = "postgres")]
            super::Backend::Postgres(_) => {}
        }
    }

    /// `text` as this store's database can store it: PostgreSQL's TEXT cannot hold the NUL
    /// character, which Telegram's JSON can carry, so there each one becomes U+FFFD (the
    /// replacement character) instead of failing the write. SQLite stores NUL as it is.
    pub(super) fn storable<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        match &self.backend {
            #[cfg(feature = "postgres")]
            super::Backend::Postgres(_) if text.contains('\0') => {
                std::borrow::Cow::Owned(text.replace('\0', "\u{FFFD}"))
            }
            _ => std::borrow::Cow::Borrowed(text),
        }
    }
}

/// `ids` as the JSON array SQLite's `json_each` reads: SQLite has no array parameters.
#[cfg(feature = "sqlite")]
pub(super) fn json_ids(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".to_owned())
}

/// A write transaction on either backend ([`begin!`]).
pub(super) enum Writing<'c> {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::Transaction<'c, sqlx::Sqlite>),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::Transaction<'c, sqlx::Postgres>),
}

impl<'c> Writing<'c> {
    /// The transaction, for [`run_in!`]: a method call borrows a transaction owned by the caller
    /// and reborrows one the caller holds by `&mut` alike.
    pub(super) fn statements(&mut self) -> &mut Self {
        self
    }

    /// Commits every statement run in the transaction.
    pub(super) async fn commit(self) -> Result<()> {
        match self {
            #[cfg(feature = "sqlite")]
            Self::Sqlite(transaction) => transaction.commit().await,
            #[cfg(feature = "postgres")]
            Self::Postgres(transaction) => transaction.commit().await,
        }
    }
}
