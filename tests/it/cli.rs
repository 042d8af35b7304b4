//! Specifications of the `telemem` command line, run as the real binary.

use std::process::{Command, Output};

use telemem::storage::{ConversationKey, Role, Store};

use crate::helpers::{DAY_MS, TestDb};

fn telemem(db_url: &str, args: &[&str], extra_env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_telemem"));
    command
        .args(args)
        .env("DATABASE_URL", db_url)
        .env("RUST_LOG", "warn");
    for (name, value) in extra_env {
        command.env(name, value);
    }
    command.output().expect("run the telemem binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test]
async fn migrate_creates_the_database_and_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("data").join("bot.db");
    let url = format!("sqlite://{}", path.display());

    let output = telemem(&url, &["migrate"], &[]);

    assert!(output.status.success(), "stderr: {}", stderr(&output));
    assert!(path.exists());
    let store = Store::connect(&url).await.unwrap();
    assert_eq!(store.database_totals().await.unwrap().messages, 0);
}

#[tokio::test]
async fn purge_dry_run_counts_and_purge_deletes_old_rows() {
    let db = TestDb::new().await;
    let now = chrono::Utc::now().timestamp_millis();
    let key = ConversationKey::new(7, 7);
    let old_session = db.session(key, now - 40 * DAY_MS).await;
    db.message(key, old_session, Role::User, "ancient", now - 40 * DAY_MS)
        .await;
    let new_session = db.session(key, now - DAY_MS).await;
    db.message(key, new_session, Role::User, "recent", now - DAY_MS)
        .await;

    let dry_run = telemem(&db.url, &["purge", "--dry-run"], &[]);
    assert!(dry_run.status.success(), "stderr: {}", stderr(&dry_run));
    assert!(
        stdout(&dry_run).contains("would delete"),
        "{}",
        stdout(&dry_run)
    );
    assert!(
        stdout(&dry_run).contains("1 messages, 1 sessions"),
        "{}",
        stdout(&dry_run)
    );
    assert_eq!(db.store.all_messages(key).await.unwrap().len(), 2);

    let purge = telemem(&db.url, &["purge"], &[]);
    assert!(purge.status.success(), "stderr: {}", stderr(&purge));
    assert!(stdout(&purge).contains("deleted"), "{}", stdout(&purge));
    let remaining = db.store.all_messages(key).await.unwrap();
    assert_eq!(remaining.len(), 1);
    assert_eq!(remaining[0].content, "recent");
}

#[tokio::test]
async fn stats_show_totals_and_one_users_usage() {
    let db = TestDb::new().await;
    let now = chrono::Utc::now().timestamp_millis();
    let key = ConversationKey::new(7, 77);
    let session = db.session(key, now).await;
    db.message(key, session, Role::User, "hi", now).await;

    let totals = telemem(&db.url, &["stats"], &[]);
    assert!(totals.status.success(), "stderr: {}", stderr(&totals));
    assert!(
        stdout(&totals).contains("messages:       1"),
        "{}",
        stdout(&totals)
    );

    let user = telemem(&db.url, &["stats", "--user", "77"], &[]);
    assert!(user.status.success(), "stderr: {}", stderr(&user));
    assert!(
        stdout(&user).contains("messages stored:      1"),
        "{}",
        stdout(&user)
    );
}

#[test]
fn an_invalid_setting_fails_at_start_naming_the_variable_and_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("x.db").display());
    for (variable, value, range) in [
        ("SESSION_IDLE_SECS", "0", "1..="),
        ("HISTORY_MAX_MESSAGES", "100000", "1..=1000"),
        ("PURGE_AFTER_SECS", "soon", "PURGE_AFTER_SECS"),
        ("HISTORY_WINDOW_SECS", "-5", "HISTORY_WINDOW_SECS"),
    ] {
        let output = telemem(&url, &["migrate"], &[(variable, value)]);

        assert!(!output.status.success(), "{variable}={value} was accepted");
        let message = stderr(&output);
        assert!(message.contains(variable), "{variable}: {message}");
        assert!(message.contains(range), "{variable}: {message}");
        assert!(!message.contains("panicked"), "{message}");
    }
}

#[test]
fn an_unusable_database_url_is_a_clear_error_not_a_panic() {
    let output = telemem("postgres://nope", &["migrate"], &[]);

    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("DATABASE_URL"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
}
