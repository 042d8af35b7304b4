//! Specifications of the background jobs and how the app starts them.

use std::sync::Arc;

use telemem::app::{ChatServices, join_jobs};
use telemem::clock::ManualClock;
use telemem::config::StorageConfig;
use telemem::storage::{ChatId, ConversationKey, Role, UserId};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::support::config::parse_config;
use crate::support::database::{TempDatabase, TestDb};
use crate::support::fake_llm::FakeLlm;
use crate::support::times::{DAY_MS, MIDNIGHT_MS};

fn storage_config(url: &str) -> StorageConfig {
    StorageConfig {
        database_url: url.to_owned(),
        purge_after_secs: 30 * 24 * 3_600,
        purge_interval_secs: 3_600,
        purge_first_run_secs: 0,
        purge_batch_size: 2,
        database_max_size_mb: None,
        database_pool_size: 10,
        database_statement_timeout_secs: 30,
        replica_lease_secs: 30,
        vector_cache_mb: 32,
    }
}

#[tokio::test]
async fn purge_job_removes_old_rows_on_its_first_run_and_stops_on_shutdown() {
    let db = TestDb::new().await;
    let key = ConversationKey::new(ChatId(1), UserId(1));
    let session = db.session(key, MIDNIGHT_MS).await;
    for minute in 0..5 {
        db.message(key, session, Role::User, "old", MIDNIGHT_MS + minute)
            .await;
    }
    let clock = ManualClock::starting_at(MIDNIGHT_MS + 31 * DAY_MS);
    let (reports, mut reports_seen) = watch::channel(None);
    let shutdown = CancellationToken::new();
    let job = tokio::spawn(telemem::jobs::run_purge_job(
        db.store.clone(),
        Arc::new(clock),
        storage_config(&db.url),
        reports,
        shutdown.clone(),
    ));

    reports_seen
        .changed()
        .await
        .expect("the job reports its first run");
    let counts = reports_seen.borrow().expect("a report");
    shutdown.cancel();
    job.await.expect("the job stops cleanly");

    assert_eq!((counts.messages, counts.sessions), (5, 1));
    assert!(db.store.all_messages(key).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_apps_jobs_run_watched_by_what_production_health_checks_read() {
    let llm = FakeLlm::start().await;
    let database = TempDatabase::new();
    let config = parse_config(&[
        "--database-url",
        &database.url,
        "--llm-base-url",
        &llm.base_url(),
    ]);
    let core = ChatServices::build(&config, Arc::new(ManualClock::starting_at(MIDNIGHT_MS)))
        .await
        .unwrap();
    let shutdown = CancellationToken::new();

    let jobs = core.spawn_jobs(&config, &shutdown);
    let states = core.jobs.states();
    shutdown.cancel();
    join_jobs(jobs).await;

    assert_eq!(states, [("purge", true), ("summarizer", true)]);
    assert_eq!(core.jobs.stopped(), ["purge", "summarizer"]);
}

crate::postgres_variants!(
    purge_job_removes_old_rows_on_its_first_run_and_stops_on_shutdown,
    the_apps_jobs_run_watched_by_what_production_health_checks_read,
);
