//! The load generator's command line: runs the real `telemem` binary against the fake Bot API
//! server and a zero-latency fake LLM with many simulated users, prints turns per second, the
//! bot's own overhead per turn, start-up time and memory, and compares them with the targets.
//! See docs/PERFORMANCE.md for the figures and the exact commands.
//!
//! ```text
//! cargo build --release && cargo run --release --example loadgen -- --users 1000 --turns 5
//! ```
//!
//! The measuring itself lives in `tests/it/support/loadgen.rs`, shared with the short load test,
//! and uses the test suite's fakes; they are compiled into this example from there.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use serde_json::json;

// The test doubles and the load generator are shared with the integration tests, which use
// parts of them this example does not.
#[allow(dead_code)]
#[path = "../tests/it/support/fake_llm.rs"]
mod fake_llm;
#[allow(dead_code)]
#[path = "../tests/it/support/fake_telegram/mod.rs"]
mod fake_telegram;
#[path = "../tests/it/support/loadgen.rs"]
mod loadgen;
#[path = "../tests/it/support/run_command.rs"]
mod run_command;
#[allow(dead_code)]
#[path = "../tests/it/support/telegram_html.rs"]
mod telegram_html;

use loadgen::{Distribution, LoadOptions, Report, mebibytes, millis};

/// The targets on the reference machine (2 cores), at 1,000 users.
const MIN_TURNS_PER_SECOND: f64 = 1_000.0;
const MAX_P99_OVERHEAD: Duration = Duration::from_millis(10);
const MAX_PEAK_RSS_KIB: u64 = 64 * 1024;
const MAX_IDLE_RSS_KIB: u64 = 20 * 1024;
const MAX_START_TO_FIRST_POLL: Duration = Duration::from_millis(200);

/// Load generator for telemem: the real bot binary against a fake Telegram and a fake LLM.
#[derive(Debug, Parser)]
#[command(name = "loadgen")]
struct Args {
    /// The telemem binary [default: `telemem` next to this example's directory, i.e.
    /// target/release/telemem for a release build of the example].
    #[arg(long = "bin")]
    bin: Option<PathBuf>,

    /// Simulated users, each in its own private chat.
    #[arg(long, default_value_t = 1_000)]
    users: u32,

    /// Messages per user; a user sends the next one only after the reply to the last.
    #[arg(long, default_value_t = 5)]
    turns: u32,

    /// Turns a second offered by all users together, spread evenly; 0: every user sends again
    /// as soon as the reply arrives (the most the bot can do; latencies are then queueing).
    #[arg(long, default_value_t = 1_000.0)]
    rate: f64,

    /// Seconds between the first poll and the idle memory reading.
    #[arg(long = "idle-secs", default_value_t = 1.0)]
    idle_secs: f64,

    /// Give up when the bot does not poll, or answers nothing, for this many seconds.
    #[arg(long = "stall-secs", default_value_t = 30)]
    stall_secs: u64,

    /// Extra environment for the bot, e.g. `--env RECALL_LIMIT=0` (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,

    /// The database the bot uses [default: a fresh SQLite file in a temporary directory].
    #[arg(long = "database-url", value_name = "URL", conflicts_with = "postgres")]
    database_url: Option<String>,

    /// Run on a fresh database of a throwaway PostgreSQL server with its default, durable settings
    /// (`scripts/pg-test-server start --durable`), stopped when the run ends.
    #[arg(long)]
    postgres: bool,

    /// Bot processes sharing the database; more than one take their updates by webhook, in turn
    /// (a load balancer in front of replicas; PostgreSQL only).
    #[arg(long, default_value_t = 1)]
    replicas: u32,

    /// One replica takes its updates by webhook too (as two or more always do), to compare one
    /// replica with several on the same path.
    #[arg(long)]
    webhook: bool,

    /// The CPUs of the next replica, as `taskset -c` takes them (`--pin 0 --pin 1`: the first
    /// replica on CPU 0, the second on CPU 1). Run the load generator itself (and so the
    /// PostgreSQL server it starts) under `taskset` to keep it off them.
    #[arg(long, value_name = "CPUS")]
    pin: Vec<String>,

    /// The model calls the built-in `search_memory` before each answer (a round of tool calls
    /// per turn; compare with a run without to see what a tool's round trip costs the bot).
    #[arg(long = "tool-calls")]
    tool_calls: bool,

    /// Instead of chat turns: this many reminders, all due at the start, one per user, and how
    /// fast the bot delivers them.
    #[arg(long, default_value_t = 0)]
    reminders: u32,

    /// Print the report as JSON.
    #[arg(long)]
    json: bool,

    /// Write every answered turn's timings to this CSV file (update id, hand-out since the
    /// start of the load, overhead, LLM time; milliseconds), to see where the slow turns are.
    #[arg(long = "turns-csv", value_name = "FILE")]
    turns_csv: Option<PathBuf>,

    /// Exit with status 1 when a target is missed (status 2 is always a wrong or missing reply).
    #[arg(long)]
    check: bool,
}

fn parse_env(value: &str) -> Result<(String, String), String> {
    value
        .split_once('=')
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .ok_or_else(|| format!("`{value}` is not KEY=VALUE"))
}

/// A fresh database `loadgen` on a throwaway PostgreSQL server that stops when this process ends.
fn throwaway_postgres() -> anyhow::Result<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server");
    let output = std::process::Command::new(script)
        .args([
            "start",
            "--durable",
            "--owner-pid",
            &std::process::id().to_string(),
        ])
        .output()?;
    anyhow::ensure!(
        output.status.success(),
        "scripts/pg-test-server failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let server = String::from_utf8(output.stdout)?.trim().to_owned();
    let created = std::process::Command::new("psql")
        .args([server.as_str(), "-q", "-c", "CREATE DATABASE loadgen"])
        .status()?;
    anyhow::ensure!(created.success(), "could not create the database loadgen");
    Ok(format!("{}/loadgen", server.trim_end_matches("/postgres")))
}

/// `telemem` in the profile directory above this example's (`target/<profile>/examples/`).
fn default_bin() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("telemem")))
        .unwrap_or_else(|| PathBuf::from("target/release/telemem"))
}

/// One target: its name, the figure, the limit, and whether it was met.
struct Check {
    name: &'static str,
    figure: String,
    target: String,
    met: bool,
}

fn checks(report: &Report) -> Vec<Check> {
    vec![
        Check {
            name: "turns/s",
            figure: format!("{:.0}", report.turns_per_second),
            target: format!(">= {MIN_TURNS_PER_SECOND:.0}"),
            met: report.turns_per_second >= MIN_TURNS_PER_SECOND,
        },
        Check {
            name: "p99 overhead",
            figure: millis(report.overhead.p99),
            target: format!("<= {}", millis(MAX_P99_OVERHEAD)),
            met: report.overhead.p99 <= MAX_P99_OVERHEAD,
        },
        Check {
            name: "peak RSS",
            figure: mebibytes(report.peak_rss_kib),
            target: format!("<= {}", mebibytes(MAX_PEAK_RSS_KIB)),
            met: report.peak_rss_kib <= MAX_PEAK_RSS_KIB,
        },
        Check {
            name: "idle RSS",
            figure: mebibytes(report.idle_rss_kib),
            target: format!("<= {}", mebibytes(MAX_IDLE_RSS_KIB)),
            met: report.idle_rss_kib <= MAX_IDLE_RSS_KIB,
        },
        Check {
            name: "start to first poll",
            figure: millis(report.start_to_first_poll),
            target: format!("<= {}", millis(MAX_START_TO_FIRST_POLL)),
            met: report.start_to_first_poll <= MAX_START_TO_FIRST_POLL,
        },
    ]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn distribution_json(distribution: &Distribution) -> serde_json::Value {
    json!({
        "count": distribution.count,
        "p50_ms": ms(distribution.p50),
        "p90_ms": ms(distribution.p90),
        "p99_ms": ms(distribution.p99),
        "max_ms": ms(distribution.max),
    })
}

fn report_json(report: &Report, checks: &[Check]) -> serde_json::Value {
    json!({
        "users": report.users,
        "turns_per_user": report.turns_per_user,
        "rate": report.rate,
        "start_to_first_poll_ms": ms(report.start_to_first_poll),
        "idle_rss_kib": report.idle_rss_kib,
        "peak_rss_kib": report.peak_rss_kib,
        "max_sampled_rss_kib": report.max_sampled_rss_kib,
        "rss_samples": report.rss_samples,
        "turns_sent": report.turns_sent,
        "turns_answered": report.turns_answered,
        "load_duration_ms": ms(report.load_duration),
        "turns_per_second": report.turns_per_second,
        "overhead": distribution_json(&report.overhead),
        "end_to_end": distribution_json(&report.end_to_end),
        "poll_wait": distribution_json(&report.poll_wait),
        "llm": distribution_json(&report.llm),
        "bot_cpu_user_ms": ms(report.bot_cpu.user),
        "bot_cpu_system_ms": ms(report.bot_cpu.system),
        "bot_cpu_per_turn_us": report.bot_cpu_per_turn().as_secs_f64() * 1e6,
        "generator_cpu_user_ms": ms(report.generator_cpu.user),
        "generator_cpu_system_ms": ms(report.generator_cpu.system),
        "calls": report.calls,
        "shutdown_ms": report.shutdown.map(ms),
        "log_warnings": report.log.warnings,
        "log_errors": report.log.errors,
        "log_first_lines": report.log.first_lines,
        "problems": report.problems,
        "targets": checks.iter().map(|check| json!({
            "name": check.name, "figure": check.figure, "target": check.target, "met": check.met,
        })).collect::<Vec<_>>(),
    })
}

fn write_turns_csv(path: &std::path::Path, report: &Report) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    let mut csv = String::from("update_id,handed_out_ms,overhead_ms,llm_ms\n");
    for turn in &report.turns {
        let _ = writeln!(
            csv,
            "{},{:.3},{:.3},{:.3}",
            turn.update_id,
            ms(turn.handed_out),
            ms(turn.overhead),
            ms(turn.llm)
        );
    }
    std::fs::write(path, csv).with_context(|| format!("cannot write {}", path.display()))
}

#[tokio::main]
async fn main() -> anyhow::Result<ExitCode> {
    let args = Args::parse();
    let options = LoadOptions {
        bin: args.bin.unwrap_or_else(default_bin),
        users: args.users,
        turns: args.turns,
        rate: (args.rate > 0.0).then_some(args.rate),
        idle_wait: Duration::from_secs_f64(args.idle_secs.max(0.0)),
        stall_timeout: Duration::from_secs(args.stall_secs),
        env: args.env,
        database_url: match (args.postgres, args.database_url) {
            (true, _) => Some(throwaway_postgres()?),
            (false, url) => url,
        },
        replicas: args.replicas.max(1),
        webhook: args.webhook,
        pin: args.pin,
        tool_calls: args.tool_calls,
    };
    if args.reminders > 0 {
        let report = loadgen::run_reminders(&options, args.reminders).await?;
        println!("{report}");
        return Ok(if report.is_correct() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    let report = loadgen::run(&options).await?;
    if let Some(path) = &args.turns_csv {
        write_turns_csv(path, &report)?;
    }
    let checks = checks(&report);
    if args.json {
        println!("{:#}", report_json(&report, &checks));
    } else {
        print!("{report}");
        println!("targets (2-core reference machine, 1,000 users):");
        for check in &checks {
            let verdict = if check.met { "met" } else { "MISSED" };
            println!(
                "  {:<20} {:>12}   target {:<12} {verdict}",
                check.name, check.figure, check.target
            );
        }
    }
    if !report.is_correct() {
        return Ok(ExitCode::from(2));
    }
    if args.check && checks.iter().any(|check| !check.met) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
