//! The `telemem` command line: parsing (clap) and one function per subcommand. Output of the
//! administrative commands goes to standard output; logs go to standard error.

use std::sync::Arc;

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use teloxide::utils::command::BotCommands;

use crate::app::{App, ChatServices, join_jobs};
use crate::clock::{Clock, SystemClock, format_utc_ms, start_of_utc_day_ms};
use crate::commands::{self, Command as BotCommand, CommandAnswer};
use crate::config::{Config, duration_ms};
use crate::conversation::{
    Asked, Conversations, NoticeLater, ReplyRecord, TurnFrontEnd, TurnRequest,
};
use crate::http;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::import::{self, command::ImportArgs};
use crate::jobs;
use crate::llm::Role;
use crate::replies::{self, Greeting};
use crate::storage::{ChatId, PurgeCounts, Store, UserId, UserStats};
use crate::telemetry;
use crate::tools::Caller;

/// A Telegram LLM bot with durable, bounded memory in SQLite or PostgreSQL.
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
    /// Run the bot (long polling, or a webhook with TELEGRAM_WEBHOOK_URL). Needs TELOXIDE_TOKEN and ALLOWED_USERS or ALLOW_ALL_USERS.
    Run,
    /// Chat in the terminal through the same pipeline as the bot (storage, sessions, summaries,
    /// notes, context), without Telegram. Type /help for the commands it understands.
    Chat {
        /// The user id to chat as.
        #[arg(long)]
        user: UserId,
        /// The chat id (default: the user's private chat, which has the user's id).
        #[arg(long)]
        chat: Option<ChatId>,
        /// The language the bot writes in: en, de, es, fr or ru. The model's prompts stay
        /// English either way.
        #[arg(long, default_value = "en", value_parser = Lang::parse)]
        language: Lang,
    },
    /// Print the exact prompt a message would get now, without storing anything.
    Context {
        #[arg(long)]
        chat: ChatId,
        #[arg(long)]
        user: UserId,
        /// The message.
        text: String,
    },
    /// Bring a history into one person's memory: a Telegram Desktop chat export (result.json)
    /// or a JSON Lines file (time, who, text), with its original times, cut into sessions by
    /// SESSION_IDLE_SECS. Importing the same file again stores nothing twice; a bad file is
    /// refused whole, naming the line at fault.
    Import(ImportArgs),
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
        user: Option<UserId>,
    },
    /// Ask the running bot's /healthz (at HTTP_ADDR) whether it is healthy: exit 0 if so,
    /// otherwise non-zero with the reason. Does not open the database.
    Healthcheck,
    /// Print a link that opens the Mini App in an ordinary browser as this person, signed with
    /// TELOXIDE_TOKEN as Telegram signs it: for trying the app without Telegram. Whoever has the
    /// link is that person in the app until it expires (WEBAPP_MAX_AGE_SECS).
    AppLink {
        /// The Telegram user id to sign in as.
        #[arg(long)]
        user: UserId,
    },
}

/// Parses the command line and environment, then runs the chosen command.
pub async fn run() -> anyhow::Result<()> {
    let cli = parse();
    telemetry::init(cli.config.log_format, cli.config.secrets());
    execute(cli.command, &cli.config, Arc::new(SystemClock)).await
}

/// The command line and environment, where a variable set to the empty string counts as not set:
/// `.env` files and compose files leave variables empty all the time (`ALLOWED_USERS=`), and
/// clap would take the empty string as the value (and refuse it). Rather than changing the
/// process's environment, the arguments of empty variables forget their variable.
fn parse() -> Cli {
    let command = without_empty_variables(Cli::command());
    let matches = command.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

fn without_empty_variables(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            let empty = arg
                .get_env()
                .and_then(std::env::var_os)
                .is_some_and(|value| value.is_empty());
            if empty { arg.env(None) } else { arg }
        })
        .mut_subcommands(without_empty_variables)
}

/// The Mini App's address for `user`, signed now with the bot token: at `PUBLIC_URL`, or at
/// `HTTP_ADDR` on this machine.
fn app_link(config: &Config, clock: &dyn Clock, user: UserId) -> anyhow::Result<String> {
    let token = std::env::var("TELOXIDE_TOKEN").unwrap_or_default();
    if token.trim().is_empty() {
        anyhow::bail!("TELOXIDE_TOKEN is not set: the link is signed with the bot token");
    }
    let base = match (config.webapp.app_url(), config.http.http_addr) {
        (Some(url), _) => url.to_string(),
        (None, Some(addr)) => format!("http://{addr}/app/"),
        (None, None) => anyhow::bail!("set PUBLIC_URL or HTTP_ADDR: where the Mini App is served"),
    };
    let user_json = serde_json::json!({ "id": user.0, "first_name": user.0.to_string() });
    let init_data = crate::webapp::init_data::InitDataKey::for_bot_token(token.trim()).sign(&[
        ("user", &user_json.to_string()),
        ("auth_date", &(clock.now_ms() / 1000).to_string()),
    ]);
    let fragment: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("tgWebAppData", &init_data)
        .finish();
    Ok(format!("{base}#{fragment}"))
}

/// Runs one command; separate from [`run`] so tests can call it with their own config and clock.
pub async fn execute(
    command: Command,
    config: &Config,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<()> {
    let admin_command = match command {
        Command::Run => return App::build(config.clone()).await?.run().await,
        Command::Chat {
            user,
            chat,
            language,
        } => {
            let key = ConversationKey::new(chat.unwrap_or(ChatId(user.0)), user);
            return chat_in_terminal(config, clock, key, language).await;
        }
        Command::Context { chat, user, text } => {
            return print_context(config, clock, ConversationKey::new(chat, user), &text).await;
        }
        Command::Import(args) => return import::command::run(config, clock, args).await,
        Command::Migrate => AdminCommand::Migrate,
        Command::Purge { dry_run } => AdminCommand::Purge { dry_run },
        Command::Stats { user } => AdminCommand::Stats { user },
        Command::Healthcheck => return healthcheck(config).await,
        Command::AppLink { user } => {
            println!("{}", app_link(config, clock.as_ref(), user)?);
            return Ok(());
        }
    };
    let store = Store::connect_with(
        &config.storage.database_url,
        &config.storage.store_options(),
    )
    .await?;
    store.migrate().await?;
    let outcome = match admin_command {
        AdminCommand::Migrate => {
            println!(
                "database is up to date: {}",
                config.storage.database_url_for_display()
            );
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
    Stats { user: Option<UserId> },
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
            "would delete rows older than {}: {}",
            format_utc_ms(cutoff_ms),
            purged_rows(&counts)
        );
        return Ok(());
    }
    let counts = jobs::purge_once(store, clock, &config.storage).await?;
    println!(
        "deleted rows older than {}: {}",
        format_utc_ms(cutoff_ms),
        purged_rows(&counts)
    );
    Ok(())
}

/// The rows a purge deletes, counted by kind.
fn purged_rows(counts: &PurgeCounts) -> String {
    format!(
        "{} messages, {} sessions, {} summaries, {} update records, {} users' settings, {} days of usage counts, {} finished reminders",
        counts.messages,
        counts.sessions,
        counts.summaries,
        counts.processed_updates,
        counts.settings,
        counts.usage_days,
        counts.reminders
    )
}

async fn user_stats(
    store: &Store,
    config: &Config,
    clock: &dyn Clock,
    user_id: UserId,
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
    let tokens_in_out = format!("{} / {}", stats.tokens_in, stats.tokens_out);
    print_rows(
        "  ",
        21,
        &[
            ("messages stored:", stats.messages_total.to_string()),
            (
                "in the history window:",
                stats.messages_in_window.to_string(),
            ),
            ("tokens in / out:", tokens_in_out),
            ("tokens today:", stats.tokens_today.to_string()),
            ("first activity:", when(stats.first_activity_ms)),
            ("last activity:", when(stats.last_activity_ms)),
        ],
    );
    Ok(())
}

async fn totals(store: &Store) -> anyhow::Result<()> {
    let totals = store
        .database_totals()
        .await
        .context("cannot read database totals")?;
    let when = |time: Option<i64>| time.map(format_utc_ms).unwrap_or_else(|| "none".to_owned());
    let sessions = format!("{} ({} open)", totals.sessions, totals.open_sessions);
    print_rows(
        "",
        15,
        &[
            ("users:", totals.users.to_string()),
            ("messages:", totals.messages.to_string()),
            ("sessions:", sessions),
            ("summaries:", totals.summaries.to_string()),
            ("oldest message:", when(totals.oldest_message_ms)),
            ("newest message:", when(totals.newest_message_ms)),
            ("database size:", format!("{} bytes", totals.database_bytes)),
        ],
    );
    Ok(())
}

/// Prints `(label, value)` rows, each after `indent`, the values in a column after labels
/// padded to `width` and one space (a longer label just takes the one space).
fn print_rows(indent: &str, width: usize, rows: &[(&str, String)]) {
    for (label, value) in rows {
        println!("{indent}{label:<width$} {value}");
    }
}

/// `telemem context`: the prompt exactly as it would be sent.
async fn print_context(
    config: &Config,
    clock: Arc<dyn Clock>,
    key: ConversationKey,
    text: &str,
) -> anyhow::Result<()> {
    let services = ChatServices::build(config, clock).await?;
    let context = services.conversations.preview_context(key, text).await?;
    println!("=== system ===\n{}", context.request.system);
    for message in &context.request.messages {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        println!("\n=== {role} ===\n{}", message.content);
    }
    println!(
        "\n=== about {} tokens ({} in memory parts: {} summaries, {} recalled, {} earlier messages) ===",
        context.total_tokens,
        context.memory_tokens,
        context.summaries_used,
        context.recalled_used,
        context.history_used
    );
    services.store.close().await;
    Ok(())
}

/// `telemem chat`: a terminal REPL over the same pipeline as the bot, with the summarizer and
/// purge jobs running as they do beside the bot. Commands are the bot's own ([`Command`]), with
/// the same answers; `/quit` (or the end of the input) leaves. Ctrl-C stops an answer being
/// written (as `/cancel` does in Telegram), and leaves when there is none.
async fn chat_in_terminal(
    config: &Config,
    clock: Arc<dyn Clock>,
    key: ConversationKey,
    lang: Lang,
) -> anyhow::Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let services = ChatServices::build(config, clock).await?;
    let shutdown = tokio_util::sync::CancellationToken::new();
    let jobs = services.spawn_jobs(config, &shutdown);
    tokio::spawn(stop_or_leave_on_signal(
        services.conversations.clone(),
        key,
        shutdown.clone(),
    ));
    let terminal = Terminal {
        key,
        lang,
        greeting: commands::greeting(config),
    };
    println!(
        "{}",
        replies::terminal_welcome(lang, key.user_id.0, key.chat_id.0)
    );
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    loop {
        stdout.write_all(b"> ").await?;
        stdout.flush().await?;
        let line = tokio::select! {
            () = shutdown.cancelled() => None,
            line = lines.next_line() => line?,
        };
        let Some(line) = line else { break };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "/quit" || line == "/exit" {
            break;
        }
        let reply = if line.starts_with('/') {
            command_in_terminal(&services.conversations, &terminal, line).await
        } else {
            chat_turn_in_terminal(&services, &terminal, line).await
        };
        println!("{reply}");
    }
    shutdown.cancel();
    join_jobs(jobs).await;
    services.store.close().await;
    Ok(())
}

/// Ctrl-C in `telemem chat`: stops the answer being written, if there is one, and otherwise
/// leaves; SIGTERM leaves.
async fn stop_or_leave_on_signal(
    conversations: Conversations,
    key: ConversationKey,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let mut terminate = terminate_signal();
    loop {
        tokio::select! {
            interrupt = tokio::signal::ctrl_c() => {
                if let Err(error) = interrupt {
                    tracing::error!(error = ?error, "cannot listen for Ctrl-C");
                    terminated(&mut terminate).await;
                    break;
                }
                if !conversations.stop_running(key, None) {
                    break;
                }
            }
            () = terminated(&mut terminate) => break,
        }
    }
    shutdown.cancel();
}

#[cfg(unix)]
type TerminateSignal = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type TerminateSignal = ();

#[cfg(unix)]
fn terminate_signal() -> TerminateSignal {
    use tokio::signal::unix::{SignalKind, signal};
    signal(SignalKind::terminate())
        .inspect_err(|error| tracing::error!(error = ?error, "cannot listen for SIGTERM"))
        .ok()
}

#[cfg(not(unix))]
fn terminate_signal() -> TerminateSignal {}

/// Resolves when SIGTERM arrives (never where it cannot be listened for).
#[cfg(unix)]
async fn terminated(signal: &mut TerminateSignal) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}

#[cfg(not(unix))]
async fn terminated(_signal: &mut TerminateSignal) {
    std::future::pending().await
}

/// Who chats in the terminal, in which language, and what `/start` names.
struct Terminal {
    key: ConversationKey,
    lang: Lang,
    greeting: Greeting,
}

/// The answer to a command typed in the terminal: what Telegram would answer in a private chat,
/// or why a command that needs Telegram (buttons, a file) does nothing here.
async fn command_in_terminal(
    conversations: &Conversations,
    terminal: &Terminal,
    line: &str,
) -> String {
    let lang = terminal.lang;
    // A terminal has no bot name, so only commands without one (or with an empty one) parse.
    let Ok(command) = BotCommand::parse(line, "") else {
        return replies::unknown_command(lang, &commands::help_text(lang));
    };
    if command == BotCommand::Cancel {
        // The terminal reads the next line only once an answer is complete: Ctrl-C is how to
        // stop one.
        return replies::terminal_nothing_to_stop(lang);
    }
    let answer = commands::answer(
        command,
        conversations,
        terminal.key,
        lang,
        &terminal.greeting,
    );
    match answer.await {
        // The terminal is a private chat: private material and the persona may be shown.
        Ok(
            CommandAnswer::Say(text)
            | CommandAnswer::SayPrivately(text)
            | CommandAnswer::SayPrivatelyWithApp { text, .. }
            | CommandAnswer::PersonaSaved { confirmation: text },
        ) => text,
        Ok(CommandAnswer::ConfirmClear) => replies::terminal_cannot_clear(lang),
        Ok(CommandAnswer::Export(_)) => replies::terminal_cannot_export(lang),
        Ok(CommandAnswer::ReadAloud(_) | CommandAnswer::Draw(_)) => {
            replies::terminal_cannot_send_media(lang)
        }
        Ok(CommandAnswer::ChooseModel { intro, menu }) => {
            // No buttons in a terminal: the list, to choose from by name.
            let mut text = format!("{intro}\n\n{}", replies::model_choose_by_name(lang));
            for name in &menu.models {
                let label = replies::model_label(name, *name == menu.in_use.name);
                text.push_str(&format!("\n  {label}"));
            }
            text
        }
        Ok(CommandAnswer::Retry) => retry_in_terminal(conversations, terminal).await,
        Ok(CommandAnswer::ListReminders) => {
            // No buttons in a terminal: the list alone.
            match commands::reminders_text(conversations, terminal.key.user_id, lang).await {
                Ok((text, _)) => text,
                Err(error) => format!("error: {error:#}"),
            }
        }
        Ok(CommandAnswer::ListTools) => {
            // Whoever runs the terminal runs the bot: an admin's tools.
            let caller = Caller {
                key: terminal.key,
                is_admin: true,
            };
            match commands::tools_text(conversations, &caller, lang).await {
                Ok(text) => text,
                Err(error) => format!("error: {error:#}"),
            }
        }
        // Not reached: /cancel is answered above.
        Ok(CommandAnswer::TurnStopped) => String::new(),
        // The terminal's user runs the bot, so the error is theirs to read.
        Err(error) => format!("error: {error:#}"),
    }
}

/// One chat turn, printing the reply as it streams in.
async fn chat_turn_in_terminal(services: &ChatServices, terminal: &Terminal, text: &str) -> String {
    take_turn_in_terminal(
        &services.conversations,
        terminal,
        Asked::Text(text.to_owned()),
    )
    .await
}

/// `/retry` in the terminal: the new answer to the last message, printed as it streams in; the
/// history keeps it instead of the old one.
async fn retry_in_terminal(conversations: &Conversations, terminal: &Terminal) -> String {
    take_turn_in_terminal(conversations, terminal, Asked::Retry).await
}

/// A turn of the terminal's conversation; returns what is left to print once it is over.
async fn take_turn_in_terminal(
    conversations: &Conversations,
    terminal: &Terminal,
    asked: Asked,
) -> String {
    let request = TurnRequest {
        key: terminal.key,
        asked,
        lang: terminal.lang,
        is_admin: false,
        update_id: None,
        telegram_message_id: None,
    };
    let mut front = TerminalTurn::default();
    match conversations.take_turn(request, &mut front).await {
        Ok(_) => front.left_to_print,
        // The terminal's user runs the bot, so the error is theirs to read.
        Err(error) => format!("{}\n(error: {error:#})", front.left_to_print),
    }
}

/// A turn as the terminal shows it: the answer printed as it streams in, the rest (or a notice)
/// returned to be printed once the turn is over.
#[derive(Default)]
struct TerminalTurn {
    printed: String,
    left_to_print: String,
}

impl TurnFrontEnd for TerminalTurn {
    fn streams(&self) -> bool {
        true
    }

    async fn show_progress(&mut self, mut progress: tokio::sync::watch::Receiver<String>) {
        use std::io::Write;
        while progress.changed().await.is_ok() {
            let text = progress.borrow_and_update().clone();
            if let Some(new) = text.get(self.printed.len()..) {
                print!("{new}");
                let _ = std::io::stdout().flush();
            }
            self.printed = text;
        }
    }

    async fn notice(&mut self, notice: &str) -> anyhow::Result<()> {
        self.left_to_print = if self.printed.is_empty() {
            notice.to_owned()
        } else {
            format!("\n{notice}")
        };
        Ok(())
    }

    async fn deliver(
        &mut self,
        markdown: &str,
        _record: ReplyRecord,
    ) -> anyhow::Result<Option<i64>> {
        self.left_to_print = unprinted(markdown, &self.printed);
        Ok(None)
    }

    fn notice_later(&self) -> Option<NoticeLater> {
        Some(Box::new(|notice: String| {
            Box::pin(async move { println!("\n{notice}") })
        }))
    }
}

/// The part of the answer `text` not printed yet: what followed the text streamed so far (a
/// stopped answer's mark comes after the text with its trailing spaces trimmed).
fn unprinted(text: &str, printed: &str) -> String {
    let rest = text
        .strip_prefix(printed)
        .or_else(|| text.strip_prefix(printed.trim_end()));
    match rest {
        Some(rest) => rest.to_owned(),
        None if printed.is_empty() => text.to_owned(),
        None => format!("\n{text}"),
    }
}
