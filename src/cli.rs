//! The `telemem` command line: parsing (clap) and one function per subcommand. Output of the
//! administrative commands goes to standard output; logs go to standard error.

use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::app::App;
use crate::clock::{Clock, SystemClock, format_utc_ms, start_of_utc_day_ms};
use crate::config::{Config, duration_ms};
use crate::http;
use crate::jobs;
use crate::storage::{Store, UserStats};
use crate::telemetry;

/// A Telegram LLM bot with durable, bounded memory in SQLite.
#[derive(Debug, Parser)]
#[command(name = "telemem", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub config: Config,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the bot (long polling). Needs TELOXIDE_TOKEN and ALLOWED_USERS or ALLOW_ALL_USERS.
    Run,
    /// Apply the database migrations and exit.
    Migrate,
    /// Delete everything older than PURGE_AFTER_SECS now, in batches.
    Purge {
        /// Only count what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
    /// Show row counts, or one user's usage with --user.
    Stats {
        /// A Telegram user id.
        #[arg(long)]
        user: Option<i64>,
    },
    /// Ask the running bot's /healthz (at HTTP_ADDR) whether it is healthy: exit 0 if so,
    /// otherwise non-zero with the reason. Does not open the database.
    Healthcheck,
}

/// Parses the command line and environment, then runs the chosen command.
pub async fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    telemetry::init(cli.config.log_format);
    execute(cli.command, &cli.config, Arc::new(SystemClock)).await
}

/// Runs one command; separate from [`run`] so tests can call it with their own config and clock.
pub async fn execute(
    command: Command,
    config: &Config,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<()> {
    let admin_command = match command {
        Command::Run => return App::build(config.clone()).await?.run().await,
        Command::Migrate => AdminCommand::Migrate,
        Command::Purge { dry_run } => AdminCommand::Purge { dry_run },
        Command::Stats { user } => AdminCommand::Stats { user },
        Command::Healthcheck => return healthcheck(config).await,
    };
    let store = Store::connect(&config.storage.database_url).await?;
    store.migrate().await?;
    let outcome = match admin_command {
        AdminCommand::Migrate => {
            println!("database is up to date: {}", config.storage.database_url);
            Ok(())
        }
        AdminCommand::Purge { dry_run } => purge(&store, config, clock.as_ref(), dry_run).await,
        AdminCommand::Stats {
            user: Some(user_id),
        } => user_stats(&store, config, clock.as_ref(), user_id).await,
        AdminCommand::Stats { user: None } => totals(&store).await,
    };
    store.close().await;
    outcome
}

/// Exits through `main` with an error unless the server answers healthy. The error is flattened
/// to one line, as it ends up in `docker inspect`'s health log.
async fn healthcheck(config: &Config) -> anyhow::Result<()> {
    let Some(addr) = config.http.http_addr else {
        anyhow::bail!("HTTP_ADDR is not set, so there is no health endpoint to ask");
    };
    http::healthcheck(addr)
        .await
        .map_err(|error| anyhow::anyhow!("{error:#}"))?;
    println!("healthy");
    Ok(())
}

/// The commands that open the database, do one thing and exit.
enum AdminCommand {
    Migrate,
    Purge { dry_run: bool },
    Stats { user: Option<i64> },
}

async fn purge(
    store: &Store,
    config: &Config,
    clock: &dyn Clock,
    dry_run: bool,
) -> anyhow::Result<()> {
    let cutoff_ms = clock.now_ms() - duration_ms(config.storage.purge_after());
    if dry_run {
        let counts = store
            .count_purgeable(cutoff_ms)
            .await
            .context("cannot count old rows")?;
        println!(
            "would delete rows older than {}: {} messages, {} sessions, {} summaries, {} update records",
            format_utc_ms(cutoff_ms),
            counts.messages,
            counts.sessions,
            counts.summaries,
            counts.processed_updates
        );
        return Ok(());
    }
    let counts = jobs::purge_once(store, clock, &config.storage).await?;
    println!(
        "deleted rows older than {}: {} messages, {} sessions, {} summaries, {} update records",
        format_utc_ms(cutoff_ms),
        counts.messages,
        counts.sessions,
        counts.summaries,
        counts.processed_updates
    );
    Ok(())
}

async fn user_stats(
    store: &Store,
    config: &Config,
    clock: &dyn Clock,
    user_id: i64,
) -> anyhow::Result<()> {
    let now_ms = clock.now_ms();
    let window_since_ms = now_ms - duration_ms(config.history.history_window());
    let stats: UserStats = store
        .user_stats(user_id, window_since_ms, start_of_utc_day_ms(now_ms))
        .await
        .context("cannot read user statistics")?;
    let when = |time: Option<i64>| {
        time.map(format_utc_ms)
            .unwrap_or_else(|| "never".to_owned())
    };
    println!("user {user_id}");
    println!("  messages stored:      {}", stats.messages_total);
    println!("  in the history window: {}", stats.messages_in_window);
    println!(
        "  tokens in / out:      {} / {}",
        stats.tokens_in, stats.tokens_out
    );
    println!("  tokens today:         {}", stats.tokens_today);
    println!("  first activity:       {}", when(stats.first_activity_ms));
    println!("  last activity:        {}", when(stats.last_activity_ms));
    Ok(())
}

async fn totals(store: &Store) -> anyhow::Result<()> {
    let totals = store
        .database_totals()
        .await
        .context("cannot read database totals")?;
    let when = |time: Option<i64>| time.map(format_utc_ms).unwrap_or_else(|| "none".to_owned());
    println!("users:          {}", totals.users);
    println!("messages:       {}", totals.messages);
    println!(
        "sessions:       {} ({} open)",
        totals.sessions, totals.open_sessions
    );
    println!("summaries:      {}", totals.summaries);
    println!("oldest message: {}", when(totals.oldest_message_ms));
    println!("newest message: {}", when(totals.newest_message_ms));
    println!("database size:  {} bytes", totals.database_bytes);
    Ok(())
}
