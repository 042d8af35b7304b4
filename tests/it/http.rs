//! Specifications of the operations endpoint (`/healthz`, `/metrics`, including how they report a
//! background job that stopped) and of the health check client behind `telemem healthcheck`,
//! against the real server on 127.0.0.1.

use std::net::SocketAddr;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use sqlx::Connection;
use telemem::clock::{Clock, ManualClock, SystemClock};
use telemem::http::{self, HealthReport, HttpState};
use telemem::jobs::spawn_watched;
use telemem::metrics::{self, BackgroundJobs, LastContact};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::support::bot_process::free_port;
use crate::support::command_line::stderr_of;
use crate::support::database::TestDb;
use crate::support::times::{MIDNIGHT_MS, SECOND_MS};

const MAX_SILENCE: Duration = Duration::from_secs(120);

/// The real router served on a free port of 127.0.0.1 until dropped or [`Server::stop`]ped.
struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<anyhow::Result<()>>,
}

impl Server {
    async fn start(state: HttpState) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a free port");
        let addr = listener.local_addr().expect("server address");
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(http::serve(listener, http::router(state), shutdown.clone()));
        Self {
            addr,
            shutdown,
            task,
        }
    }

    /// A server whose clock stands still at midnight and which judges its own `contact`.
    async fn with_manual_clock(db: &TestDb, clock: &ManualClock, contact: &LastContact) -> Self {
        Self::start(manual_state(db, clock, contact)).await
    }

    /// Like [`Server::with_manual_clock`], also judging its own background `jobs`.
    async fn watching_jobs(
        db: &TestDb,
        clock: &ManualClock,
        contact: &LastContact,
        jobs: &BackgroundJobs,
    ) -> Self {
        Self::start(manual_state(db, clock, contact).watching_jobs(jobs.clone())).await
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("HTTP client")
            .get(format!("http://{}{path}", self.addr))
            .send()
            .await
            .expect("the server answers")
    }

    async fn health(&self) -> (StatusCode, HealthReport) {
        let response = self.get("/healthz").await;
        let status = response.status();
        (status, response.json().await.expect("a JSON health report"))
    }

    async fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown.cancel();
        (&mut self.task)
            .await
            .expect("the server task does not panic")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn manual_state(db: &TestDb, clock: &ManualClock, contact: &LastContact) -> HttpState {
    HttpState::new(
        db.store.clone(),
        metrics::install().expect("install the metrics recorder"),
        Arc::new(clock.clone()),
        contact.clone(),
        MAX_SILENCE,
    )
}

#[tokio::test]
async fn healthz_is_ok_after_a_recent_contact_with_telegram() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    let server = Server::with_manual_clock(&db, &clock, &contact).await;

    contact.record_at(MIDNIGHT_MS + 10 * SECOND_MS);
    clock.set_ms(MIDNIGHT_MS + 30 * SECOND_MS);
    let (status, report) = server.health().await;

    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        report,
        HealthReport {
            status: "ok".to_owned(),
            database: "ok".to_owned(),
            last_telegram_contact_secs_ago: Some(20),
            reason: None,
        }
    );
}

#[tokio::test]
async fn healthz_body_has_exactly_the_documented_fields_when_healthy() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let server = Server::with_manual_clock(&db, &clock, &contact).await;

    let body: serde_json::Value = server.get("/healthz").await.json().await.unwrap();

    assert_eq!(
        body,
        serde_json::json!({"status": "ok", "database": "ok", "last_telegram_contact_secs_ago": 0})
    );
}

#[tokio::test]
async fn healthz_is_unavailable_when_telegram_has_been_silent_too_long() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    let server = Server::with_manual_clock(&db, &clock, &contact).await;

    contact.record_at(MIDNIGHT_MS);
    clock.advance_ms(121 * SECOND_MS);
    let (status, report) = server.health().await;

    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(report.status, "unhealthy");
    assert_eq!(report.database, "ok");
    assert_eq!(report.last_telegram_contact_secs_ago, Some(121));
    assert_eq!(
        report.reason.as_deref(),
        Some("no contact with Telegram for 121 s (limit 120 s)")
    );
}

#[tokio::test]
async fn until_the_first_contact_with_telegram_the_bot_is_unhealthy() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    let server = Server::with_manual_clock(&db, &clock, &contact).await;

    clock.advance_ms(3 * SECOND_MS);
    let (status_before, report_before) = server.health().await;
    contact.record_at(clock.now_ms());
    let (status_after, _) = server.health().await;

    assert_eq!(status_before, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(report_before.last_telegram_contact_secs_ago, None);
    assert_eq!(
        report_before.reason.as_deref(),
        Some("Telegram not reached yet (3 s since start)")
    );
    assert_eq!(status_after, StatusCode::OK);
}

#[tokio::test]
async fn healthz_is_unavailable_and_names_the_database_when_it_is_closed() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let server = Server::with_manual_clock(&db, &clock, &contact).await;

    db.store.close().await;
    let (status, report) = server.health().await;

    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(report.status, "unhealthy");
    assert_eq!(report.database, "error");
    assert_eq!(report.reason.as_deref(), Some("database error"));
}

#[tokio::test]
async fn healthz_and_metrics_read_no_table() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let server = Server::with_manual_clock(&db, &clock, &contact).await;
    // Every table of user data is gone: a route that counted rows would fail.
    let mut connection = sqlx::SqliteConnection::connect(&db.url).await.unwrap();
    for statement in [
        "DROP TABLE messages_fts",
        "DROP TABLE messages",
        "DROP TABLE sessions",
        "DROP TABLE session_summaries",
        "DROP TABLE user_notes",
        "DROP TABLE user_settings",
        "DROP TABLE processed_updates",
    ] {
        sqlx::query(statement)
            .execute(&mut connection)
            .await
            .unwrap();
    }

    let (status, report) = server.health().await;
    let metrics = server.get("/metrics").await.status();

    assert_eq!(status, StatusCode::OK, "{report:?}");
    assert_eq!(report.database, "ok");
    assert_eq!(metrics, StatusCode::OK);
}

#[tokio::test]
async fn healthz_is_unavailable_and_names_each_background_job_that_stopped() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let jobs = BackgroundJobs::default();
    let server = Server::watching_jobs(&db, &clock, &contact, &jobs).await;
    let stop_purge = CancellationToken::new();
    let purge = spawn_watched(&jobs, "purge", stop_purge.clone().cancelled_owned());
    let (release, released) = oneshot::channel::<()>();
    let summarizer = spawn_watched(&jobs, "summarizer", async move {
        let _ = released.await;
        panic!("a bug in the summarizer");
    });
    let (status_while_both_run, _) = server.health().await;

    let _ = release.send(());
    assert!(summarizer.await.unwrap_err().is_panic());
    let (status_after_the_panic, report_after_the_panic) = server.health().await;
    stop_purge.cancel();
    purge.await.unwrap();
    let (_, report_after_both) = server.health().await;

    assert_eq!(status_while_both_run, StatusCode::OK);
    assert_eq!(status_after_the_panic, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(report_after_the_panic.status, "unhealthy");
    assert_eq!(report_after_the_panic.database, "ok");
    assert_eq!(
        report_after_the_panic.reason.as_deref(),
        Some("background job summarizer stopped")
    );
    assert_eq!(
        report_after_both.reason.as_deref(),
        Some("background job purge stopped; background job summarizer stopped")
    );
}

#[tokio::test]
async fn metrics_shows_whether_each_background_job_runs() {
    let db = TestDb::new().await;
    let jobs = BackgroundJobs::default();
    let server = Server::watching_jobs(
        &db,
        &ManualClock::starting_at(MIDNIGHT_MS),
        &LastContact::default(),
        &jobs,
    )
    .await;
    let stop = CancellationToken::new();
    let running = spawn_watched(&jobs, "http_spec_running", stop.clone().cancelled_owned());
    spawn_watched(&jobs, "http_spec_ended", async {})
        .await
        .unwrap();

    let text = server.get("/metrics").await.text().await.unwrap();
    stop.cancel();
    running.await.unwrap();

    for expected in [
        "# TYPE telemem_job_running gauge",
        "telemem_job_running{job=\"http_spec_running\"} 1\n",
        "telemem_job_running{job=\"http_spec_ended\"} 0\n",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
}

#[tokio::test]
async fn the_process_wide_contact_is_what_the_production_health_check_reads() {
    let db = TestDb::new().await;
    let server = Server::start(HttpState::new(
        db.store.clone(),
        metrics::install().unwrap(),
        Arc::new(SystemClock),
        metrics::last_telegram_contact(),
        MAX_SILENCE,
    ))
    .await;

    metrics::telegram_contact();
    let (status, report) = server.health().await;

    assert_eq!(status, StatusCode::OK);
    assert!(report.last_telegram_contact_secs_ago.is_some());
}

#[tokio::test]
async fn metrics_exposes_what_the_record_functions_counted() {
    let db = TestDb::new().await;
    let server = Server::with_manual_clock(
        &db,
        &ManualClock::starting_at(MIDNIGHT_MS),
        &LastContact::default(),
    )
    .await;

    metrics::update_received();
    metrics::reply_sent();
    metrics::tokens(120, 45);
    metrics::error("http_spec_failure");
    metrics::llm_call_finished(Duration::from_millis(300), "http_spec");
    metrics::set_active_sessions(3);
    metrics::telegram_contact();
    http::record_database_size(&db.store).await;
    let response = server.get("/metrics").await;
    let content_type = response.headers()[reqwest::header::CONTENT_TYPE].clone();
    let text = response.text().await.unwrap();

    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    for expected in [
        "# TYPE telemem_updates_received_total counter",
        "# TYPE telemem_replies_sent_total counter",
        "telemem_tokens_total{direction=\"in\"}",
        "telemem_tokens_total{direction=\"out\"}",
        "telemem_errors_total{kind=\"http_spec_failure\"} 1\n",
        "# TYPE telemem_llm_latency_seconds histogram",
        "telemem_llm_latency_seconds_bucket{outcome=\"http_spec\",le=\"0.25\"} 0\n",
        "telemem_llm_latency_seconds_bucket{outcome=\"http_spec\",le=\"0.5\"} 1\n",
        "telemem_llm_latency_seconds_count{outcome=\"http_spec\"} 1\n",
        "# TYPE telemem_active_sessions gauge",
        "# TYPE telemem_last_telegram_contact_seconds gauge",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
    let database_bytes = text
        .lines()
        .find_map(|line| line.strip_prefix("telemem_database_bytes "))
        .expect("the database size gauge");
    assert!(
        database_bytes.parse::<f64>().unwrap() > 0.0,
        "{database_bytes}"
    );
}

#[tokio::test]
async fn healthcheck_succeeds_against_a_healthy_server() {
    let db = TestDb::new().await;
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let server =
        Server::with_manual_clock(&db, &ManualClock::starting_at(MIDNIGHT_MS), &contact).await;

    let outcome = http::healthcheck(server.addr).await;

    assert!(outcome.is_ok(), "{outcome:?}");
}

#[tokio::test]
async fn healthcheck_fails_with_the_servers_reason_when_unhealthy() {
    let db = TestDb::new().await;
    let clock = ManualClock::starting_at(MIDNIGHT_MS);
    let server = Server::with_manual_clock(&db, &clock, &LastContact::default()).await;
    clock.advance_ms(600 * SECOND_MS);

    let error = http::healthcheck(server.addr).await.unwrap_err();

    assert_eq!(
        error.to_string(),
        "unhealthy (503 Service Unavailable): Telegram not reached yet (600 s since start)"
    );
}

#[tokio::test]
async fn healthcheck_fails_when_nothing_listens() {
    let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));

    let error = http::healthcheck(addr).await.unwrap_err();

    assert!(
        error
            .to_string()
            .starts_with("no answer from http://127.0.0.1:"),
        "{error:#}"
    );
}

#[tokio::test]
async fn serve_finishes_cleanly_when_shutdown_is_cancelled() {
    let db = TestDb::new().await;
    let server = Server::with_manual_clock(
        &db,
        &ManualClock::starting_at(MIDNIGHT_MS),
        &LastContact::default(),
    )
    .await;
    let addr = server.addr;

    let stopped = server.stop().await;

    assert!(stopped.is_ok(), "{stopped:?}");
    assert!(http::healthcheck(addr).await.is_err());
}

#[tokio::test]
async fn the_healthcheck_command_exits_zero_for_a_healthy_server_without_opening_the_database() {
    let db = TestDb::new().await;
    let contact = LastContact::default();
    contact.record_at(MIDNIGHT_MS);
    let server =
        Server::with_manual_clock(&db, &ManualClock::starting_at(MIDNIGHT_MS), &contact).await;
    let unused_dir = tempfile::tempdir().unwrap();
    let unused_db = unused_dir.path().join("never-created.db");

    let output = telemem_healthcheck(&[
        ("HTTP_ADDR", server.addr.to_string()),
        ("DATABASE_URL", format!("sqlite://{}", unused_db.display())),
    ])
    .await;

    assert!(output.status.success(), "stderr: {}", stderr_of(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "healthy\n");
    assert!(
        !unused_db.exists(),
        "healthcheck must not open the database"
    );
}

#[tokio::test]
async fn the_healthcheck_command_fails_with_a_one_line_reason_when_nothing_listens() {
    let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));

    let output = telemem_healthcheck(&[("HTTP_ADDR", addr.to_string())]).await;

    assert!(!output.status.success());
    let stderr = stderr_of(&output);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("Error: no answer from http://127.0.0.1:"),
        "{stderr}"
    );
    assert!(stderr.contains("Connection refused"), "{stderr}");
}

#[tokio::test]
async fn the_healthcheck_command_fails_when_http_addr_is_not_set() {
    let output = telemem_healthcheck(&[]).await;

    assert!(!output.status.success());
    assert!(
        stderr_of(&output).contains("HTTP_ADDR is not set"),
        "{}",
        stderr_of(&output)
    );
}

#[test]
fn an_out_of_range_max_silence_is_refused_naming_the_variable() {
    let output = Command::new(env!("CARGO_BIN_EXE_telemem"))
        .arg("healthcheck")
        .env("HEALTH_MAX_SILENCE_SECS", "2")
        .output()
        .expect("run the telemem binary");

    assert!(!output.status.success());
    assert!(
        stderr_of(&output).contains("HEALTH_MAX_SILENCE_SECS"),
        "{}",
        stderr_of(&output)
    );
}

/// Runs `telemem healthcheck` with `env` on top of a clean HTTP_ADDR, off the test's runtime so
/// the server it asks keeps serving.
async fn telemem_healthcheck(env: &[(&str, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_telemem"));
    command
        .arg("healthcheck")
        .env_remove("HTTP_ADDR")
        // A backtrace would add lines to the one-line error.
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env("RUST_LOG", "warn");
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("run the telemem binary"))
        .await
        .unwrap()
}
