//! The operations endpoint over HTTP: `GET /healthz` for Docker and orchestrators, `GET /metrics`
//! for Prometheus, and the client side of the health check (`telemem healthcheck`). These two
//! routes are read-only and answer nothing about users or their messages; in webhook mode the app
//! merges the webhook route into the same router.
//!
//! Neither route reads a table: `/healthz` asks the database a bare `SELECT 1`, and `/metrics`
//! shows the database size refreshed in the background every [`SIZE_REFRESH_INTERVAL`], so that
//! frequent scrapes never take the read connections chat turns need for counting rows.
//!
//! Healthy means all of: the database answers; Telegram was heard from (the first
//! `getMe`, a successful poll or webhook call) within `HEALTH_MAX_SILENCE_SECS`; and every
//! background job that was started (purge, summarizer) still runs. Until the first contact the
//! bot is unhealthy: it is still trying to reach Telegram and serves nobody. A job that ended or
//! panicked stays reported until the process restarts: nothing starts it again.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use metrics_exporter_prometheus::PrometheusHandle;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::{HttpConfig, duration_ms};
use crate::metrics::{self, BackgroundJobs, LastContact};
use crate::storage::Store;
use crate::ticks;

/// A database read slower than this counts as a failure: a health check must answer quickly.
const DATABASE_TIMEOUT: Duration = Duration::from_secs(3);

/// `telemem healthcheck` gives up after this; longer than [`DATABASE_TIMEOUT`] so a slow database
/// is reported by the server, not as a client timeout.
const HEALTHCHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// How often `/metrics`' database size is read again.
pub const SIZE_REFRESH_INTERVAL: Duration = Duration::from_secs(15);

/// The Prometheus text exposition format, version 0.0.4.
const PROMETHEUS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What the routes need. Cloning is cheap.
#[derive(Clone)]
pub struct HttpState {
    store: Store,
    metrics: PrometheusHandle,
    clock: Arc<dyn Clock>,
    last_contact: LastContact,
    jobs: BackgroundJobs,
    max_silence_ms: i64,
    started_at_ms: i64,
}

impl HttpState {
    /// The state of a server starting now (by `clock`). Production passes
    /// [`metrics::last_telegram_contact`] as `last_contact`.
    pub fn new(
        store: Store,
        metrics: PrometheusHandle,
        clock: Arc<dyn Clock>,
        last_contact: LastContact,
        max_silence: Duration,
    ) -> Self {
        let started_at_ms = clock.now_ms();
        Self {
            store,
            metrics,
            clock,
            last_contact,
            jobs: BackgroundJobs::default(),
            max_silence_ms: duration_ms(max_silence),
            started_at_ms,
        }
    }

    /// Also judges `jobs`: one that was started and no longer runs makes `/healthz` unhealthy,
    /// and `/metrics` shows each. The app passes those of its own services.
    pub fn watching_jobs(mut self, jobs: BackgroundJobs) -> Self {
        self.jobs = jobs;
        self
    }
}

/// `GET /healthz` and `GET /metrics`.
pub fn router(state: HttpState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(render_metrics))
        .with_state(state)
}

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets requests in flight
/// finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
        .context("the HTTP server failed")
}

/// Starts the operations endpoint if `HTTP_ADDR` is set: installs the metrics recorder, binds the
/// address (so a port in use stops the program at start), and spawns the server and the metrics
/// upkeep, both ending with `shutdown`. `extra` routes (the Telegram webhook) are served on the
/// same listener. Returns the server's task, or `None` when it is off.
pub async fn start(
    config: &HttpConfig,
    store: Store,
    clock: Arc<dyn Clock>,
    extra: Router,
    jobs: BackgroundJobs,
    shutdown: CancellationToken,
) -> anyhow::Result<Option<tokio::task::JoinHandle<anyhow::Result<()>>>> {
    let Some(addr) = config.http_addr else {
        return Ok(None);
    };
    let handle = metrics::install()?;
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on HTTP_ADDR {addr}"))?;
    tracing::info!(%addr, "serving /healthz and /metrics");
    tokio::spawn(metrics::run_upkeep(handle.clone(), shutdown.clone()));
    tokio::spawn(refresh_database_size(store.clone(), shutdown.clone()));
    let state = HttpState::new(
        store,
        handle,
        clock,
        metrics::last_telegram_contact(),
        config.health_max_silence(),
    )
    .watching_jobs(jobs);
    let router = router(state).merge(extra);
    Ok(Some(tokio::spawn(serve(listener, router, shutdown))))
}

/// The body of `/healthz`, healthy or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthReport {
    /// `ok` or `unhealthy`.
    pub status: String,
    /// `ok`, `error` or `timeout`.
    pub database: String,
    /// Whole seconds since the last contact with Telegram; `null` before the first.
    pub last_telegram_contact_secs_ago: Option<i64>,
    /// What is failing, in one line; absent when healthy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

async fn healthz(State(state): State<HttpState>) -> (StatusCode, axum::Json<HealthReport>) {
    let database = check_database(&state.store).await;
    let now_ms = state.clock.now_ms();
    let last_contact_ms = state.last_contact.last_ms();

    let mut failures = Vec::new();
    if let Err(problem) = database {
        failures.push(format!("database {}", problem.as_str()));
    }
    match last_contact_ms {
        None => failures.push(format!(
            "Telegram not reached yet ({} s since start)",
            (now_ms - state.started_at_ms).max(0) / 1_000
        )),
        Some(contact_ms) if now_ms - contact_ms > state.max_silence_ms => failures.push(format!(
            "no contact with Telegram for {} s (limit {} s)",
            (now_ms - contact_ms) / 1_000,
            state.max_silence_ms / 1_000
        )),
        Some(_) => {}
    }
    for job in state.jobs.stopped() {
        failures.push(format!("background job {job} stopped"));
    }
    let healthy = failures.is_empty();
    let report = HealthReport {
        status: if healthy { "ok" } else { "unhealthy" }.to_owned(),
        database: database
            .err()
            .map_or("ok", DatabaseProblem::as_str)
            .to_owned(),
        // A contact stamped by a clock slightly ahead of ours is "just now", not in the future.
        last_telegram_contact_secs_ago: last_contact_ms.map(|ms| (now_ms - ms).max(0) / 1_000),
        reason: (!healthy).then(|| failures.join("; ")),
    };
    let status = if healthy {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(report))
}

#[derive(Clone, Copy, Debug)]
enum DatabaseProblem {
    Error,
    Timeout,
}

impl DatabaseProblem {
    fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Timeout => "timeout",
        }
    }
}

/// Asks the database a bare `SELECT 1` within [`DATABASE_TIMEOUT`].
async fn check_database(store: &Store) -> Result<(), DatabaseProblem> {
    match tokio::time::timeout(DATABASE_TIMEOUT, store.ping()).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => {
            tracing::warn!(error = ?error, "health check: the database did not answer");
            Err(DatabaseProblem::Error)
        }
        Err(_) => {
            tracing::warn!(timeout = ?DATABASE_TIMEOUT, "health check: the database timed out");
            Err(DatabaseProblem::Timeout)
        }
    }
}

/// Keeps `/metrics`' database size gauge current, every [`SIZE_REFRESH_INTERVAL`] until
/// `shutdown`. A failed read leaves the gauge at its last value; `/healthz` reports the database.
pub async fn refresh_database_size(store: Store, shutdown: CancellationToken) {
    let mut ticks = ticks::every(SIZE_REFRESH_INTERVAL);
    while ticks::next(&mut ticks, &shutdown).await {
        record_database_size(&store).await;
    }
}

/// One step of [`refresh_database_size`]: reads the size and sets the gauge.
pub async fn record_database_size(store: &Store) {
    match store.database_bytes().await {
        Ok(bytes) => metrics::set_database_bytes(u64::try_from(bytes).unwrap_or(0)),
        Err(error) => tracing::debug!(error = ?error, "could not read the database size"),
    }
}

async fn render_metrics(State(state): State<HttpState>) -> Response {
    metrics::set_jobs_running(&state.jobs);
    (
        [(header::CONTENT_TYPE, PROMETHEUS_CONTENT_TYPE)],
        state.metrics.render(),
    )
        .into_response()
}

/// Asks the server at `addr` for `/healthz`: `Ok` if it answers 200, otherwise an error whose
/// message says why in one line (the server's reason, or why it could not be reached). An
/// unspecified listen address (`0.0.0.0`, `[::]`) is asked on the loopback interface.
pub async fn healthcheck(addr: SocketAddr) -> anyhow::Result<()> {
    let url = format!("http://{}/healthz", loopback_if_unspecified(addr));
    let client = reqwest::Client::builder()
        .timeout(HEALTHCHECK_TIMEOUT)
        // A proxy from the environment must not stand between us and our own port.
        .no_proxy()
        .build()
        .context("cannot build the HTTP client")?;
    let response = client
        .get(&url)
        .send()
        .await
        // reqwest's own message repeats the URL; the innermost cause says what went wrong.
        .map_err(|error| anyhow::anyhow!("no answer from {url}: {}", innermost_cause(&error)))?;
    let status = response.status();
    if status == reqwest::StatusCode::OK {
        return Ok(());
    }
    let reason = match response.json::<HealthReport>().await {
        Ok(HealthReport {
            reason: Some(reason),
            ..
        }) => reason,
        _ => "no reason given".to_owned(),
    };
    anyhow::bail!("unhealthy ({status}): {reason}")
}

fn innermost_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

fn loopback_if_unspecified(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_listen_address_is_checked_on_loopback() {
        let any_v4: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let any_v6: SocketAddr = "[::]:8080".parse().unwrap();
        let specific: SocketAddr = "10.1.2.3:9000".parse().unwrap();

        assert_eq!(
            loopback_if_unspecified(any_v4).to_string(),
            "127.0.0.1:8080"
        );
        assert_eq!(loopback_if_unspecified(any_v6).to_string(), "[::1]:8080");
        assert_eq!(loopback_if_unspecified(specific), specific);
    }
}
