//! A short load run in the test suite: the real binary (debug build) against the fakes, many
//! users at once. It proves every message gets exactly one reply, the right one, and that the bot
//! neither crashes nor logs a warning under load. Its only timing is a bound generous enough for
//! a debug build on a busy CI machine, which catches a turn stuck behind something, not a slow
//! one: a debug build proves nothing about speed. The timing targets are checked by the full run
//! in release mode (`cargo run --release --example loadgen`, see docs/PERFORMANCE.md).

use std::path::PathBuf;
use std::time::Duration;

use crate::support::database::{TempDatabase, on_postgres};
use crate::support::loadgen::{self, LoadOptions};

/// No turn's overhead (its time in the bot, the model's excluded) may exceed this, even in a
/// debug build under load.
const MAX_OVERHEAD: Duration = Duration::from_secs(5);

/// A short run of the debug build, one replica on a fresh SQLite file.
fn debug_run() -> LoadOptions {
    LoadOptions {
        bin: PathBuf::from(env!("CARGO_BIN_EXE_telemem")),
        users: 50,
        turns: 3,
        rate: None,
        idle_wait: Duration::ZERO,
        stall_timeout: Duration::from_secs(15),
        env: Vec::new(),
        database_url: None,
        replicas: 1,
        webhook: false,
        pin: Vec::new(),
        tool_calls: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_users_at_once_each_get_exactly_one_right_reply_per_message() {
    let options = LoadOptions {
        users: 50,
        turns: 3,
        database_url: None,
        replicas: 1,
        ..debug_run()
    };

    let report = loadgen::run(&options).await.expect("the load run");

    println!("{report}");
    assert!(report.is_correct(), "{report}");
    assert_eq!(report.turns_answered, 150);
    assert_eq!(report.calls.get("sendMessage"), Some(&150));
    assert_eq!(report.overhead.count, 150);
    assert_eq!(
        report.turns.len(),
        150,
        "every answered turn has its timings"
    );
    assert!(
        report
            .turns
            .iter()
            .all(|turn| turn.overhead <= MAX_OVERHEAD),
        "a turn's overhead exceeded {MAX_OVERHEAD:?}: {report}"
    );
}

/// Two replicas on one PostgreSQL database, the updates spread between their webhooks.
fn fifty_users_across_two_replicas_each_get_exactly_one_right_reply_per_message() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let database = TempDatabase::new();
    let options = LoadOptions {
        users: 50,
        turns: 3,
        database_url: Some(database.url.clone()),
        replicas: 2,
        ..debug_run()
    };

    let report = runtime
        .block_on(loadgen::run(&options))
        .expect("the load run");

    println!("{report}");
    assert!(report.is_correct(), "{report}");
    assert_eq!(report.turns_answered, 150);
    assert_eq!(report.calls.get("sendMessage"), Some(&150));
    assert_eq!(report.overhead.count, 150);
}

#[test]
fn on_postgres_fifty_users_across_two_replicas_each_get_exactly_one_right_reply_per_message() {
    on_postgres(fifty_users_across_two_replicas_each_get_exactly_one_right_reply_per_message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_replica_by_webhook_pinned_to_one_cpu_answers_each_message_once() {
    let options = LoadOptions {
        users: 50,
        turns: 3,
        webhook: true,
        pin: vec!["0".to_owned()],
        ..debug_run()
    };

    let report = loadgen::run(&options).await.expect("the load run");

    println!("{report}");
    assert!(report.is_correct(), "{report}");
    assert_eq!(report.turns_answered, 150);
    assert_eq!(report.calls.get("sendMessage"), Some(&150));
    assert_eq!(
        report.calls.get("getUpdates"),
        None,
        "updates came by webhook"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_reminders_due_at_start_are_each_delivered_once() {
    let options = LoadOptions {
        users: 0,
        turns: 0,
        database_url: None,
        replicas: 1,
        ..debug_run()
    };

    let report = loadgen::run_reminders(&options, 50)
        .await
        .expect("the reminders run");

    println!("{report}");
    assert!(report.is_correct(), "{report}");
    assert!(report.per_second() > 0.0, "{report}");
}
