//! The PostgreSQL backend's start: migrating a database, refusing one a newer telemem migrated,
//! and a clear error, without the password, when the server cannot be reached; and its pool,
//! which replaces a connection the server ended while it sat idle.

use telemem::storage::{BackendKind, Store};

use crate::support::database::TempDatabase;

#[tokio::test]
async fn a_postgres_url_opens_and_migrates_a_postgres_database_twice_alike() {
    let database = TempDatabase::new();
    let store = database.connect().await;
    store.migrate().await.expect("first migration");
    store.migrate().await.expect("a second run changes nothing");
    assert_eq!(
        store.kind(),
        BackendKind::of_url(&database.url).expect("a known scheme")
    );
    store.ping().await.expect("the database answers");
}

#[tokio::test]
async fn a_database_migrated_by_a_newer_telemem_is_refused_with_a_clear_message() {
    let database = TempDatabase::new();
    let store = database.connect().await;
    store.migrate().await.expect("migrate");
    store.close().await;
    record_unknown_migration(&database.url, 29991231000001).await;

    let error = database.connect().await.migrate().await.unwrap_err();

    let message = format!("{error:#}");
    assert!(
        message.contains("newer than this telemem") && message.contains("29991231000001"),
        "{message}"
    );
}

#[tokio::test]
async fn an_unreachable_server_is_named_in_the_error_without_its_password() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = format!("postgres://telemem:hunter2-secret@127.0.0.1:{port}/telemem");

    let error = Store::connect(&url).await.unwrap_err();

    let message = format!("{error:#}");
    assert!(
        message.contains(&format!("127.0.0.1:{port}/telemem")),
        "{message}"
    );
    assert!(!message.contains("hunter2-secret"), "{message}");
}

/// The pool does not ping a connection each time it hands one out; one that sat idle while its
/// server process ended (a restart, an administrator's `pg_terminate_backend`) is still found
/// out and replaced before a statement runs on it.
#[test]
fn a_connection_ended_while_idle_is_replaced_before_a_statement_uses_it() {
    crate::support::database::on_postgres(|| {
        block_on(async {
            let (_database, store, mut admin) = migrated_database().await;
            store.ping().await.expect("the database answers");
            // Longer than the pool lets a connection idle before it asks the server again.
            tokio::time::sleep(std::time::Duration::from_millis(400)).await;

            // Every connection of the store's pool; not the replica's liveness lock.
            let pool_pids: Vec<i32> = sqlx::query_scalar(
                "SELECT pid FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')",
            )
            .fetch_all(&mut admin)
            .await
            .unwrap();
            assert!(!pool_pids.is_empty(), "the pool holds a connection");
            sqlx::query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid")
                .bind(&pool_pids)
                .execute(&mut admin)
                .await
                .unwrap();
            // Ending is asynchronous: wait until the server processes are gone.
            for _ in 0..100 {
                let left: i64 =
                    sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)")
                        .bind(&pool_pids)
                        .fetch_one(&mut admin)
                        .await
                        .unwrap();
                if left == 0 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }

            store
                .ping()
                .await
                .expect("a new connection answers in place of the ended one");
            store.close().await;
        });
    });
}

/// Records in the database at `url`, SQLite or PostgreSQL, a migration `version` that this
/// binary does not have.
async fn record_unknown_migration(url: &str, version: i64) {
    use sqlx::Connection;
    let insert = "INSERT INTO _sqlx_migrations
                      (version, description, success, checksum, execution_time)
                  VALUES ($1, 'from the future', true, $2, 0)";
    let checksum = vec![0_u8];
    if url.starts_with("postgres") {
        let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
        let query = sqlx::query(insert).bind(version).bind(checksum);
        query.execute(&mut connection).await.unwrap();
    } else {
        let mut connection = sqlx::SqliteConnection::connect(url).await.unwrap();
        let query = sqlx::query(insert).bind(version).bind(checksum);
        query.execute(&mut connection).await.unwrap();
    }
}

crate::postgres_variants!(
    a_postgres_url_opens_and_migrates_a_postgres_database_twice_alike,
    a_database_migrated_by_a_newer_telemem_is_refused_with_a_clear_message,
);

/// What a chat turn updates in place, no index reads: the session's last activity (each stored
/// message moves it), the delivery record of a reply (its Telegram message), the person's last
/// activity, and the daily and stored-bytes counters. PostgreSQL then keeps each updated row on
/// its page (a HOT update) instead of writing a new entry in every index of the table.
#[test]
fn the_columns_a_turn_updates_are_read_by_no_index() {
    crate::support::database::on_postgres(|| {
        block_on(async {
            let (_database, store, mut admin) = migrated_database().await;
            for (table, column) in [
                ("sessions", "last_activity_at"),
                ("messages", "telegram_message_id"),
                ("user_settings", "last_active_at"),
                ("daily_usage", "messages"),
                ("daily_usage", "tokens"),
                ("stored_bytes", "bytes"),
            ] {
                let indexes: Vec<String> = sqlx::query_scalar(
                    r"SELECT pg_get_indexdef(indexrelid) FROM pg_index
                      WHERE indrelid = $1::regclass
                        AND pg_get_indexdef(indexrelid) ~ ('\m' || $2 || '\M')",
                )
                .bind(table)
                .bind(column)
                .fetch_all(&mut admin)
                .await
                .unwrap();
                assert!(
                    indexes.is_empty(),
                    "{table}.{column} is read by {indexes:?}"
                );
            }
            store.close().await;
        });
    });
}

/// A fresh, migrated PostgreSQL database (dropped with the first value), its store, and a
/// connection of the test's own to it.
async fn migrated_database() -> (TempDatabase, Store, sqlx::PgConnection) {
    use sqlx::Connection;
    let database = TempDatabase::new();
    let store = database.connect().await;
    store.migrate().await.expect("migrate");
    let admin = sqlx::PgConnection::connect(&database.url).await.unwrap();
    (database, store, admin)
}

/// Runs `test` to its end on a runtime of its own (`on_postgres` takes a plain function).
fn block_on(test: impl std::future::Future<Output = ()>) {
    tokio::runtime::Runtime::new()
        .expect("a runtime")
        .block_on(test);
}
