//! `telemem import` on the command line: its arguments, the steps in order (read and check the
//! file, plan around the stored sessions, store in one transaction, index for search, and on
//! request summarize and embed), progress bars on standard error while they run (hidden when it
//! is not a terminal) and a report on standard output.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use super::{Format, History, Senders, read_history, sessions};
use crate::app::ChatServices;
use crate::clock::{Clock, format_utc_ms};
use crate::config::{Config, duration_ms};
use crate::ids::ConversationKey;
use crate::storage::{ChatId, ImportCounts, ImportSession, Store, UserId};

/// The arguments of `telemem import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The person whose memory receives the history (their Telegram user id).
    #[arg(long)]
    pub user: UserId,
    /// The chat (default: the person's private chat with the bot, which has their id).
    #[arg(long)]
    pub chat: Option<ChatId>,
    /// The file's format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: Format,
    /// Telegram export: the `from_id` of the person's messages (default: `user<USER>`).
    #[arg(long, value_name = "FROM_ID")]
    pub me: Option<String>,
    /// Telegram export: the `from_id` of the assistant side; needed when the chat has more than
    /// two senders (the others' messages are skipped).
    #[arg(long, value_name = "FROM_ID")]
    pub assistant: Option<String>,
    /// Leave out the messages older than PURGE_AFTER_SECS (the purge would delete them at
    /// once) instead of refusing the file.
    #[arg(long)]
    pub skip_old: bool,
    /// Check the file and report what would be stored, storing nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// After storing, summarize the imported sessions (LLM_*) and embed them (EMBEDDING_MODEL)
    /// here, with progress bars, rather than leaving that to the running bot's jobs.
    #[arg(long)]
    pub summarize: bool,
    /// The history: a Telegram export's result.json or a JSON Lines file; `-` reads standard
    /// input.
    pub file: PathBuf,
}

/// Runs `telemem import`.
pub async fn run(config: &Config, clock: Arc<dyn Clock>, args: ImportArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let key = ConversationKey::new(args.chat.unwrap_or(ChatId(args.user.0)), args.user);
    let now_ms = clock.now_ms();
    let mut history = read_file(&args, now_ms).await?;
    leave_out_purgeable(&mut history, config, now_ms, args.skip_old)?;
    let store = Store::connect_with(
        &config.storage.database_url,
        &config.storage.store_options(),
    )
    .await?;
    store.migrate().await?;
    let outcome = store_history(&store, config, key, history, &args).await;
    store.close().await;
    let Some(counts) = outcome? else {
        return Ok(());
    };
    let elapsed = started.elapsed();
    println!(
        "imported {} messages into {} new sessions ({} existing sessions extended) for user {} \
         in chat {}, in {:.1} s",
        counts.messages,
        counts.sessions_created,
        counts.sessions_extended,
        key.user_id,
        key.chat_id,
        elapsed.as_secs_f64()
    );
    let sessions = counts.sessions_created + counts.sessions_extended;
    if args.summarize {
        summarize_and_embed(config, clock, sessions).await
    } else {
        if sessions > 0 {
            println!(
                "{sessions} sessions wait for their summaries and vectors: the running bot's \
                 summarizer and embedder write them, or run this again with --summarize"
            );
        }
        Ok(())
    }
}

/// Reads and checks the whole file, showing how much of it is read.
async fn read_file(args: &ImportArgs, now_ms: i64) -> anyhow::Result<History> {
    let senders = Senders {
        person: args
            .me
            .clone()
            .unwrap_or_else(|| format!("user{}", args.user)),
        assistant: args.assistant.clone(),
    };
    let (path, format) = (args.file.clone(), args.format);
    let read = tokio::task::spawn_blocking(move || -> anyhow::Result<History> {
        let history = if path.as_os_str() == "-" {
            read_history(std::io::stdin().lock(), format, &senders, now_ms)
        } else {
            let file = std::fs::File::open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            let length = file.metadata().map(|metadata| metadata.len()).unwrap_or(0);
            let bar = progress_bar(length, "reading {bytes}/{total_bytes}");
            let input = std::io::BufReader::with_capacity(1 << 20, bar.wrap_read(file));
            let history = read_history(input, format, &senders, now_ms);
            bar.finish_and_clear();
            history
        };
        history.with_context(|| format!("{} is not imported", path.display()))
    });
    read.await.context("reading the file stopped")?
}

/// Refuses a history with messages older than the purge age unless told to leave them out
/// (`skip_old`): the purge would delete them at its next run.
fn leave_out_purgeable(
    history: &mut History,
    config: &Config,
    now_ms: i64,
    skip_old: bool,
) -> anyhow::Result<()> {
    let cutoff_ms = now_ms - duration_ms(config.storage.purge_after());
    let old = history
        .messages
        .iter()
        .filter(|message| message.created_at_ms < cutoff_ms)
        .count();
    if old == 0 {
        return Ok(());
    }
    if !skip_old {
        anyhow::bail!(
            "{old} of the {} messages are older than PURGE_AFTER_SECS ({} s, before {}): the \
             purge would delete them at its next run. Raise PURGE_AFTER_SECS (for the bot too), \
             or pass --skip-old to import only the newer ones. Nothing was imported.",
            history.messages.len(),
            config.storage.purge_after_secs,
            format_utc_ms(cutoff_ms)
        );
    }
    history
        .messages
        .retain(|message| message.created_at_ms >= cutoff_ms);
    history
        .skipped
        .push(("older than PURGE_AFTER_SECS".to_owned(), old));
    Ok(())
}

/// Plans the history around what the conversation holds and stores it (unless a dry run);
/// `None` for a dry run.
async fn store_history(
    store: &Store,
    config: &Config,
    key: ConversationKey,
    mut history: History,
    args: &ImportArgs,
) -> anyhow::Result<Option<ImportCounts>> {
    let imported: HashSet<String> = store
        .import_keys(key)
        .await
        .context("cannot read the messages imported before")?
        .into_iter()
        .collect();
    let before = history.messages.len();
    history
        .messages
        .retain(|message| !imported.contains(&message.import_key));
    if before > history.messages.len() {
        history.skipped.push((
            "imported before".to_owned(),
            before - history.messages.len(),
        ));
    }
    for (reason, count) in &history.skipped {
        println!("skipped {count} {reason}");
    }
    let existing = store
        .session_spans(key)
        .await
        .context("cannot read the conversation's sessions")?;
    let gap_ms = duration_ms(config.history.session_idle());
    let planned = sessions::plan(&existing, history.messages, gap_ms);
    if args.dry_run {
        print_plan(&planned);
        return Ok(None);
    }
    let messages: usize = planned.iter().map(|session| session.messages.len()).sum();
    let spinner = progress_bar(0, &format!("storing {messages} messages"));
    let counts = store
        .import_sessions(key, &planned)
        .await
        .context("cannot store the history; nothing of it was stored")?;
    spinner.set_message("indexing for search");
    store
        .index_pending_messages()
        .await
        .context("the history is stored, but indexing it for search failed (the bot does it)")?;
    spinner.finish_and_clear();
    warn_over_cap(store, config, key.user_id).await;
    Ok(Some(counts))
}

fn print_plan(planned: &[ImportSession]) {
    let messages: usize = planned.iter().map(|session| session.messages.len()).sum();
    let existing = planned
        .iter()
        .filter(|session| session.existing_id.is_some())
        .count();
    let first = planned
        .iter()
        .filter_map(|session| session.messages.first())
        .map(|message| message.created_at_ms)
        .min();
    let last = planned
        .iter()
        .filter_map(|session| session.messages.last())
        .map(|message| message.created_at_ms)
        .max();
    let span = match (first, last) {
        (Some(first), Some(last)) => {
            format!(", {} to {}", format_utc_ms(first), format_utc_ms(last))
        }
        _ => String::new(),
    };
    println!(
        "dry run: would import {messages} messages into {} new sessions ({existing} existing \
         sessions extended){span}; nothing was stored",
        planned.len() - existing
    );
}

/// Says so when the person's stored text is past USER_MAX_STORED_MB: the cap deletes their
/// oldest sessions after their next turn.
async fn warn_over_cap(store: &Store, config: &Config, user_id: UserId) {
    let Some(cap) = config.quota.max_stored_bytes() else {
        return;
    };
    if let Ok(stored) = store.stored_bytes(user_id).await
        && u64::try_from(stored.bytes).unwrap_or(0) > cap
    {
        println!(
            "warning: user {user_id} now stores {} bytes of text, more than USER_MAX_STORED_MB \
             ({cap} bytes): their oldest sessions are deleted after their next message",
            stored.bytes
        );
    }
}

/// Runs the summarizer and the embedder until the sessions waiting for a summary are done (or
/// wait for a retry) and no message waits for a vector.
async fn summarize_and_embed(
    config: &Config,
    clock: Arc<dyn Clock>,
    sessions: u64,
) -> anyhow::Result<()> {
    let services = ChatServices::build(config, clock).await?;
    let bar = progress_bar(sessions, "summarizing {pos}/{len} sessions");
    let (mut summarized, mut failed) = (0_u64, 0_u64);
    loop {
        let report = services.summarizer.summarize_pending_once().await?;
        let done = u64::from(report.summarized + report.extracted + report.empty);
        summarized += done;
        failed += u64::from(report.failed);
        bar.inc(done);
        if done == 0 {
            break;
        }
    }
    bar.finish_and_clear();
    println!("summarized {summarized} sessions");
    if failed > 0 {
        println!("{failed} summaries failed and are tried again by the bot's summarizer");
    }
    if let Some(embedder) = &services.embedder {
        embedder.start().await?;
        let waiting = services.store.messages_waiting_for_vectors().await?;
        let bar = progress_bar(
            u64::try_from(waiting).unwrap_or(0),
            "embedding {pos}/{len} messages",
        );
        let watcher = watch_vectors(services.store.clone(), bar.clone(), waiting);
        let report = embedder.embed_waiting().await;
        watcher.abort();
        bar.finish_and_clear();
        let report = report?;
        println!(
            "embedded {} messages and {} summaries",
            report.messages, report.summaries
        );
    }
    services.store.close().await;
    Ok(())
}

/// Moves `bar` as the messages waiting for a vector get one.
fn watch_vectors(store: Store, bar: ProgressBar, waiting: i64) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if let Ok(left) = store.messages_waiting_for_vectors().await {
                bar.set_position(u64::try_from(waiting - left).unwrap_or(0));
            }
        }
    })
}

/// A progress bar on standard error (a spinner when `length` is 0) with `template`'s message.
fn progress_bar(length: u64, template: &str) -> ProgressBar {
    let bar = if length == 0 {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::new(length)
    };
    let style = if length == 0 {
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
    } else {
        ProgressStyle::with_template(&format!("[{{bar:40}}] {template} {{eta}}"))
    };
    if let Ok(style) = style {
        bar.set_style(style);
    }
    if length == 0 {
        bar.set_message(template.to_owned());
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    bar
}
