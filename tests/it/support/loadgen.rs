//! The load generator: runs the real `telemem` binary as a child process against the fake Bot API
//! server and a zero-latency fake LLM, with many simulated users, and measures what the bot itself
//! costs: turns per second, the overhead of each turn (from the moment `getUpdates` handed the
//! update out to the moment the reply's `sendMessage` arrived, minus the fake LLM's own time),
//! the time from start to the first poll, and the bot's memory (`/proc/<pid>/status`, so Linux
//! only). It also checks that every message got exactly one reply, and the right one.
//!
//! `examples/loadgen.rs` is its command line, for the full run documented in
//! `docs/PERFORMANCE.md`; `load.rs` is a short run in the test suite.
//!
//! The user model: a user waits for the reply to a message before sending the next one, as a
//! person does. With a `rate`, the users' messages are spread evenly in time so that they offer
//! `rate` turns a second in total (a user whose reply comes late sends the next message as soon as
//! it arrives). Without a rate, each user sends the next message the moment the reply arrives:
//! that measures the most the bot can do, and the latencies are then mostly queueing.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::fake_llm::FakeLlm;
use super::fake_telegram::{Call, FakeTelegram};
use super::run_command::telemem_run;

/// Simulated users' ids (each user talks in a private chat with the same id) start above this.
const FIRST_USER_ID: i64 = 1_000_000;

/// How often the bot's resident memory is sampled during the run.
const RSS_SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// How long the bot gets to stop after SIGTERM before it is killed.
const SHUTDOWN_PATIENCE: Duration = Duration::from_secs(10);

/// How many of the bot's log lines a report quotes.
const QUOTED_LOG_LINES: usize = 5;

/// What users say. All users share these few sentences, the hard case for recall's full-text
/// search (every word is common); each message ends with a [`turn_tag`], so every one is unique.
const SENTENCES: [&str; 6] = [
    "What should I cook tonight with rice, beans and a little cheese?",
    "Remind me what we said about the trip to Lisbon in the spring.",
    "Can you explain how a heat pump works in two short paragraphs?",
    "My company is Chemitek and we sell lab equipment, write a slogan.",
    "Translate good morning, how are you into Portuguese and Spanish.",
    "Give me three ideas for a birthday present for a ten year old.",
];

/// `#u<id>t<n>`: ends every message, so the fake LLM's timings (keyed by the prompt's last user
/// message, which the bot prefixes with the time) can be matched to turns. It is one word to the
/// full-text index, and one only this user writes: a tag of common words ("user", "turn") would
/// make every message match every recall search.
fn turn_tag(user_id: i64, turn: u32) -> String {
    format!("#u{user_id}t{turn}")
}

/// The turn tag at the end of a text, if any.
fn tag_of(text: &str) -> Option<&str> {
    text.rfind("#u").map(|start| &text[start..])
}

/// One load run.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// The `telemem` binary; it is started as `<bin> run`.
    pub bin: PathBuf,
    pub users: u32,
    /// Messages per user.
    pub turns: u32,
    /// Turns a second offered by all users together; `None`: as fast as the bot answers.
    pub rate: Option<f64>,
    /// Pause between the first poll and the idle memory reading.
    pub idle_wait: Duration,
    /// The run fails when the bot does not poll, or answers nothing, for this long.
    pub stall_timeout: Duration,
    /// Extra environment for the bot (settings to try), applied last.
    pub env: Vec<(String, String)>,
    /// The database; `None`: a fresh SQLite file in a temporary directory.
    pub database_url: Option<String>,
    /// Bot processes sharing the database. One polls; more take their updates by webhook, in
    /// turn, as behind a load balancer (PostgreSQL only).
    pub replicas: u32,
    /// One replica takes its updates by webhook too, as several do: compares one with several
    /// on the same path.
    pub webhook: bool,
    /// The CPUs each replica runs on, in order (`taskset -c` lists, e.g. `0` or `0-1`); replicas
    /// past the list run where the system puts them.
    pub pin: Vec<String>,
    /// The model calls the built-in `search_memory` before each answer: every turn takes a
    /// round of tool calls.
    pub tool_calls: bool,
}

/// The webhook secret of replicas under load.
const WEBHOOK_SECRET: &str = "loadgen-secret";

/// Percentiles of one per-turn duration (nearest rank).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Distribution {
    pub count: usize,
    pub p50: Duration,
    pub p90: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl Distribution {
    fn of(mut values: Vec<Duration>) -> Self {
        values.sort_unstable();
        let rank = |percent: usize| {
            let index = (values.len() * percent).div_ceil(100).saturating_sub(1);
            values.get(index).copied().unwrap_or_default()
        };
        Self {
            count: values.len(),
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: values.last().copied().unwrap_or_default(),
        }
    }
}

/// What a load run measured and found.
#[derive(Clone, Debug)]
pub struct Report {
    pub users: u32,
    pub turns_per_user: u32,
    pub rate: Option<f64>,
    /// From spawning the process to its first `getUpdates` at the fake.
    pub start_to_first_poll: Duration,
    /// VmRSS after start, before any load.
    pub idle_rss_kib: u64,
    /// The highest VmRSS sampled during the load, and the number of samples.
    pub max_sampled_rss_kib: u64,
    pub rss_samples: usize,
    /// VmHWM (the kernel's peak resident set of the process) at the end of the load.
    pub peak_rss_kib: u64,
    pub turns_sent: u64,
    pub turns_answered: u64,
    /// From the first message enqueued to the last reply.
    pub load_duration: Duration,
    /// The rate of replies between the first and the last one. With a paced load that is the
    /// offered rate if the bot keeps up, whatever the latency; without pacing, the bot's capacity.
    pub turns_per_second: f64,
    /// Hand-out by `getUpdates` → reply's `sendMessage`, minus the fake LLM's time.
    pub overhead: Distribution,
    /// Message enqueued at the fake → reply's `sendMessage` (includes waiting for a poll).
    pub end_to_end: Distribution,
    /// Message enqueued → handed out by `getUpdates`.
    pub poll_wait: Distribution,
    /// The fake LLM's own time per request.
    pub llm: Distribution,
    /// CPU time (user + system) during the load: the bot, and this process (fakes and driver).
    pub bot_cpu: CpuTime,
    pub generator_cpu: CpuTime,
    /// Bot API calls during the load, by method.
    pub calls: BTreeMap<String, u64>,
    /// From SIGTERM to the process's exit, if it exited in time.
    pub shutdown: Option<Duration>,
    /// What the bot logged; warnings are no problem (say, sqlx noting a slow statement when
    /// the bot is overloaded), errors are.
    pub log: BotLog,
    /// Everything that went wrong: a missing, extra or wrong reply, a failed call, a crash.
    pub problems: Vec<String>,
    /// Every answered turn's timings, in the order the replies came (for a time series of the
    /// overhead: where in the run the slow turns are).
    pub turns: Vec<TurnTimings>,
}

/// One answered turn's timings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnTimings {
    pub update_id: i64,
    /// From the start of the load to the message's hand-out by `getUpdates`.
    pub handed_out: Duration,
    /// Hand-out → reply's `sendMessage`, minus the fake LLM's time.
    pub overhead: Duration,
    /// The fake LLM's own time.
    pub llm: Duration,
}

impl Report {
    pub fn is_correct(&self) -> bool {
        self.problems.is_empty()
    }

    /// The bot's CPU time per answered turn.
    pub fn bot_cpu_per_turn(&self) -> Duration {
        self.bot_cpu
            .total()
            .checked_div(u32::try_from(self.turns_answered).unwrap_or(u32::MAX))
            .unwrap_or_default()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offered = match self.rate {
            Some(rate) => format!("{rate:.0} turns/s offered"),
            None => "as fast as the bot answers".to_owned(),
        };
        writeln!(
            f,
            "telemem load run: {} users x {} turns, {offered} (each user waits for its reply)",
            self.users, self.turns_per_user
        )?;
        writeln!(
            f,
            "  start to first poll     {}",
            millis(self.start_to_first_poll)
        )?;
        writeln!(
            f,
            "  idle RSS                {}",
            mebibytes(self.idle_rss_kib)
        )?;
        writeln!(
            f,
            "  turns                   {} answered of {} sent in {:.2} s; replies at {:.0} turns/s",
            self.turns_answered,
            self.turns_sent,
            self.load_duration.as_secs_f64(),
            self.turns_per_second
        )?;
        writeln!(f, "  overhead per turn       {}", self.overhead)?;
        writeln!(
            f,
            "    (getUpdates hand-out -> sendMessage, minus the LLM's time)"
        )?;
        writeln!(f, "  end to end              {}", self.end_to_end)?;
        writeln!(f, "  waiting for a poll      {}", self.poll_wait)?;
        writeln!(f, "  fake LLM time           {}", self.llm)?;
        writeln!(
            f,
            "  RSS during load         peak (VmHWM) {}, highest of {} samples {}",
            mebibytes(self.peak_rss_kib),
            self.rss_samples,
            mebibytes(self.max_sampled_rss_kib)
        )?;
        writeln!(
            f,
            "  CPU during load         bot {} = {} us/turn; load generator and fakes {}",
            self.bot_cpu,
            self.bot_cpu_per_turn().as_micros(),
            self.generator_cpu
        )?;
        let calls: Vec<String> = self
            .calls
            .iter()
            .map(|(method, count)| format!("{method} {count}"))
            .collect();
        writeln!(f, "  Bot API calls           {}", calls.join(", "))?;
        let shutdown = self
            .shutdown
            .map_or_else(|| "did not stop in time".to_owned(), millis);
        writeln!(f, "  shutdown after SIGTERM  {shutdown}")?;
        writeln!(
            f,
            "  bot log                 {} warnings, {} errors",
            self.log.warnings, self.log.errors
        )?;
        for line in &self.log.first_lines {
            writeln!(f, "    {line}")?;
        }
        if self.problems.is_empty() {
            writeln!(f, "  problems                none")
        } else {
            writeln!(f, "  problems                {}", self.problems.len())?;
            self.problems
                .iter()
                .try_for_each(|problem| writeln!(f, "    {problem}"))
        }
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "p50 {}  p90 {}  p99 {}  max {}",
            millis(self.p50),
            millis(self.p90),
            millis(self.p99),
            millis(self.max)
        )
    }
}

pub fn millis(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

pub fn mebibytes(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Runs the bot under load and reports; fails only if the run could not be made at all.
pub async fn run(options: &LoadOptions) -> anyhow::Result<Report> {
    let telegram = FakeTelegram::start().await;
    let llm = FakeLlm::start().await;
    llm.keep_requests(false);
    if options.tool_calls {
        llm.call_tool_first("search_memory");
    }
    let dir = tempfile::tempdir().context("create a temporary directory")?;
    let database_url = options
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("telemem.db").display()));

    let spawned_at = Instant::now();
    let (mut bot, mut others, first_poll, pump) = if options.replicas > 1 || options.webhook {
        let mut replicas = Vec::new();
        let mut hooks = Vec::new();
        for replica in 0..options.replicas as usize {
            let address = format!("127.0.0.1:{}", free_port()?);
            let hook = format!("http://{address}/telegram/hook");
            let webhook = [
                ("HTTP_ADDR", address.as_str()),
                ("TELEGRAM_WEBHOOK_URL", hook.as_str()),
                ("TELEGRAM_WEBHOOK_SECRET", WEBHOOK_SECRET),
            ];
            replicas.push(BotUnderLoad::spawn(
                options,
                &telegram,
                &llm,
                &database_url,
                &webhook,
                options.pin.get(replica),
            )?);
            hooks.push(hook);
        }
        let registered = wait_for_webhooks(&telegram, &mut replicas, options.stall_timeout).await?;
        let pump = telegram.push_to_webhooks(hooks, WEBHOOK_SECRET.to_owned());
        let first = replicas.remove(0);
        (first, replicas, registered, Some(pump))
    } else {
        let mut bot = BotUnderLoad::spawn(
            options,
            &telegram,
            &llm,
            &database_url,
            &[],
            options.pin.first(),
        )?;
        let first_poll = wait_for_first_poll(&telegram, &mut bot, options.stall_timeout).await?;
        (bot, Vec::new(), first_poll, None)
    };
    tokio::time::sleep(options.idle_wait).await;
    let idle_rss_kib = proc_status_kib(bot.pid(), "VmRSS").context("read the bot's VmRSS")?;

    let sampling = CancellationToken::new();
    let sampler = tokio::spawn(sample_rss(bot.pid(), sampling.clone()));
    let pids: Vec<u32> = std::iter::once(bot.pid())
        .chain(others.iter().map(BotUnderLoad::pid))
        .collect();
    let bot_cpu_before = CpuTime::of_all(&pids);
    let generator_cpu_before = CpuTime::of("/proc/self/stat");

    let mut driver = Driver::new(options, &telegram, &llm);
    driver.drive(&mut bot).await;

    let bot_cpu = CpuTime::of_all(&pids).since(bot_cpu_before);
    let generator_cpu = CpuTime::of("/proc/self/stat").since(generator_cpu_before);
    let peak_rss_kib = proc_status_kib(bot.pid(), "VmHWM").unwrap_or(0);
    sampling.cancel();
    let (max_sampled_rss_kib, rss_samples) = sampler.await.unwrap_or((0, 0));

    // Stopping the bot lets the turns in flight finish, so any extra reply is on record after.
    for other in &mut others {
        other.stop().await;
    }
    let shutdown = bot.stop().await;
    if let Some(pump) = pump {
        pump.abort();
    }
    driver.absorb();
    let mut log = bot.log();
    for other in &others {
        log.errors += other.log().errors;
    }
    let turns = driver.finish();
    let mut problems = turns.problems;
    match shutdown {
        None => problems.push(format!(
            "the bot did not stop within {SHUTDOWN_PATIENCE:?} of SIGTERM"
        )),
        Some((_, status)) if !status.success() => {
            problems.push(format!("the bot exited with {status} after SIGTERM"))
        }
        Some(_) => {}
    }
    if log.errors > 0 {
        problems.push(format!("the bot logged {} errors", log.errors));
    }
    Ok(Report {
        users: options.users,
        turns_per_user: options.turns,
        rate: options.rate,
        start_to_first_poll: first_poll - spawned_at,
        idle_rss_kib,
        max_sampled_rss_kib,
        rss_samples,
        peak_rss_kib,
        turns_sent: turns.sent,
        turns_answered: turns.answered,
        load_duration: turns.duration,
        turns_per_second: turns.reply_rate,
        overhead: turns.overhead,
        end_to_end: turns.end_to_end,
        poll_wait: turns.poll_wait,
        llm: turns.llm,
        bot_cpu,
        generator_cpu,
        calls: turns.calls,
        shutdown: shutdown.map(|(took, _)| took),
        log,
        problems,
        turns: turns.timings,
    })
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("bind a free port")?;
    Ok(listener.local_addr()?.port())
}

/// Waits until every replica has registered its webhook; returns when the last did.
async fn wait_for_webhooks(
    telegram: &FakeTelegram,
    replicas: &mut [BotUnderLoad],
    patience: Duration,
) -> anyhow::Result<Instant> {
    let deadline = Instant::now() + patience;
    let mut registered = Vec::new();
    loop {
        registered.extend(
            telegram
                .take_calls()
                .into_iter()
                .filter(|call| call.method == "setWebhook")
                .map(|call| call.at),
        );
        if registered.len() >= replicas.len() {
            return Ok(registered.into_iter().max().unwrap_or_else(Instant::now));
        }
        for replica in replicas.iter_mut() {
            if let Some(status) = replica.exit_status() {
                anyhow::bail!(
                    "a replica exited with {status} before serving; its log:\n{}",
                    replica.log().first_lines.join("\n")
                );
            }
        }
        if Instant::now() >= deadline {
            anyhow::bail!("the replicas did not register their webhooks within {patience:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the bot's first `getUpdates`; returns when it reached the fake.
async fn wait_for_first_poll(
    telegram: &FakeTelegram,
    bot: &mut BotUnderLoad,
    patience: Duration,
) -> anyhow::Result<Instant> {
    let deadline = Instant::now() + patience;
    let mut changes = telegram.changes();
    loop {
        let calls = telegram.take_calls();
        if let Some(poll) = calls.iter().find(|call| call.method == "getUpdates") {
            return Ok(poll.at);
        }
        if let Some(status) = bot.exit_status() {
            anyhow::bail!(
                "the bot exited with {status} before polling; its log:\n{}",
                bot.log().first_lines.join("\n")
            );
        }
        // Wake at least every 100 ms to notice a bot that exited without calling anything.
        let wake = deadline.min(Instant::now() + Duration::from_millis(100));
        let _ = tokio::time::timeout_at(wake, changes.changed()).await;
        if Instant::now() >= deadline {
            anyhow::bail!(
                "the bot did not poll within {patience:?}; its log:\n{}",
                bot.log().first_lines.join("\n")
            );
        }
    }
}

/// What the driver saw of the turns.
struct TurnFigures {
    sent: u64,
    answered: u64,
    duration: Duration,
    reply_rate: f64,
    overhead: Distribution,
    end_to_end: Distribution,
    poll_wait: Distribution,
    llm: Distribution,
    calls: BTreeMap<String, u64>,
    problems: Vec<String>,
    timings: Vec<TurnTimings>,
}

/// A message waiting for its reply.
struct Pending {
    update_id: i64,
    text: String,
    enqueued_at: Instant,
}

/// One answered turn, joined with the fakes' timings at the end of the run (they may be
/// recorded a moment after the reply is seen).
struct Answered {
    update_id: i64,
    text: String,
    enqueued_at: Instant,
    replied_at: Instant,
}

#[derive(Default)]
struct User {
    sent: u32,
    waiting: Option<Pending>,
}

/// Feeds the users' messages to the fake Telegram and follows the bot's calls.
struct Driver<'a> {
    options: &'a LoadOptions,
    telegram: &'a FakeTelegram,
    llm: &'a FakeLlm,
    users: Vec<User>,
    /// When each user's next message is due, earliest first.
    schedule: BinaryHeap<Reverse<(Instant, usize)>>,
    started_at: Instant,
    answered: Vec<Answered>,
    handouts: HashMap<i64, Instant>,
    llm_times: HashMap<String, Duration>,
    calls: BTreeMap<String, u64>,
    turns_sent: u64,
    problems: Vec<String>,
}

impl<'a> Driver<'a> {
    fn new(options: &'a LoadOptions, telegram: &'a FakeTelegram, llm: &'a FakeLlm) -> Self {
        Self {
            options,
            telegram,
            llm,
            users: (0..options.users).map(|_| User::default()).collect(),
            schedule: BinaryHeap::new(),
            started_at: Instant::now(),
            answered: Vec::new(),
            handouts: HashMap::new(),
            llm_times: HashMap::new(),
            calls: BTreeMap::new(),
            turns_sent: 0,
            problems: Vec::new(),
        }
    }

    fn total_turns(&self) -> u64 {
        u64::from(self.options.users) * u64::from(self.options.turns)
    }

    /// When message number `turn` of user `index` is due: spread evenly over the run at the
    /// offered rate, or at once without one.
    fn due(&self, index: usize, turn: u32) -> Instant {
        let Some(rate) = self.options.rate else {
            return self.started_at;
        };
        let position = u64::from(turn) * u64::from(self.options.users) + index as u64;
        self.started_at + Duration::from_secs_f64(position as f64 / rate)
    }

    async fn drive(&mut self, bot: &mut BotUnderLoad) {
        self.started_at = Instant::now();
        if self.options.turns > 0 {
            for index in 0..self.users.len() {
                self.schedule.push(Reverse((self.due(index, 0), index)));
            }
        }
        let mut changes = self.telegram.changes();
        let mut last_progress = Instant::now();
        while (self.answered.len() as u64) < self.total_turns() {
            self.send_due_messages();
            changes.borrow_and_update(); // our own updates need no wake-up
            let next_due = self.schedule.peek().map(|Reverse((due, _))| *due);
            let stall_at = last_progress + self.options.stall_timeout;
            let check_at = Instant::now() + Duration::from_millis(100);
            tokio::select! {
                _ = changes.changed() => {}
                _ = tokio::time::sleep_until(next_due.unwrap_or(check_at).min(check_at)) => {}
            }
            let answered_before = self.answered.len();
            self.absorb();
            let waiting = self.turns_sent > self.answered.len() as u64;
            if self.answered.len() > answered_before || !waiting {
                last_progress = Instant::now();
            }
            if let Some(status) = bot.exit_status() {
                self.problems
                    .push(format!("the bot exited with {status} during the load"));
                return;
            }
            if Instant::now() >= stall_at {
                self.problems.push(format!(
                    "no reply for {:?}: {} of {} turns answered",
                    self.options.stall_timeout,
                    self.answered.len(),
                    self.total_turns()
                ));
                return;
            }
        }
    }

    fn send_due_messages(&mut self) {
        let now = Instant::now();
        while let Some(&Reverse((due, index))) = self.schedule.peek() {
            if due > now {
                break;
            }
            self.schedule.pop();
            let user = &mut self.users[index];
            let turn = user.sent;
            let user_id = FIRST_USER_ID + index as i64;
            let sentence = SENTENCES[(index + turn as usize) % SENTENCES.len()];
            let text = format!("{sentence} {}", turn_tag(user_id, turn));
            // Before the update exists: the bot may fetch it before `send_text` returns.
            let enqueued_at = Instant::now();
            let update_id = self.telegram.send_text(user_id, user_id, &text);
            user.sent += 1;
            user.waiting = Some(Pending {
                update_id,
                text,
                enqueued_at,
            });
            self.turns_sent += 1;
        }
    }

    /// Takes what the fakes recorded since the last look.
    fn absorb(&mut self) {
        self.handouts.extend(
            self.telegram
                .take_handouts()
                .into_iter()
                .map(|handout| (handout.update_id, handout.at)),
        );
        // A turn with a round of tool calls asks the model twice: its model time is both.
        for timing in self.llm.take_timings() {
            if let Some(tag) = tag_of(&timing.last_user_message) {
                *self.llm_times.entry(tag.to_owned()).or_default() += timing.duration();
            }
        }
        for call in self.telegram.take_calls() {
            *self.calls.entry(call.method.clone()).or_default() += 1;
            if !call.ok {
                self.problems
                    .push(format!("{} failed: {}", call.method, call.params));
            }
            if call.method == "sendMessage" {
                self.on_reply(&call);
            }
        }
    }

    fn on_reply(&mut self, call: &Call) {
        let chat_id = call.params["chat_id"].as_i64().unwrap_or_default();
        let text = call.params["text"].as_str().unwrap_or_default().trim();
        let Some(index) = usize::try_from(chat_id - FIRST_USER_ID)
            .ok()
            .filter(|index| *index < self.users.len())
        else {
            self.problems
                .push(format!("a reply to unknown chat {chat_id}: {text:?}"));
            return;
        };
        let Some(pending) = self.users[index].waiting.take() else {
            self.problems
                .push(format!("chat {chat_id} got an extra reply: {text:?}"));
            return;
        };
        // The fake LLM echoes the prompt's last line: the message, prefixed with its time.
        if !(text.starts_with("reply to: ") && text.ends_with(&pending.text)) {
            self.problems.push(format!(
                "chat {chat_id} got {text:?} where the reply to {:?} was due",
                pending.text
            ));
        }
        self.answered.push(Answered {
            update_id: pending.update_id,
            text: pending.text,
            enqueued_at: pending.enqueued_at,
            replied_at: call.at,
        });
        let sent = self.users[index].sent;
        if sent < self.options.turns {
            let due = self.due(index, sent).max(Instant::now());
            self.schedule.push(Reverse((due, index)));
        }
    }

    /// Joins the replies with the fakes' timings; call after the bot stopped.
    fn finish(self) -> TurnFigures {
        let mut overhead = Vec::with_capacity(self.answered.len());
        let mut end_to_end = Vec::with_capacity(self.answered.len());
        let mut poll_wait = Vec::with_capacity(self.answered.len());
        let mut llm = Vec::with_capacity(self.answered.len());
        let mut timings = Vec::with_capacity(self.answered.len());
        let mut unmatched = 0;
        for turn in &self.answered {
            end_to_end.push(turn.replied_at - turn.enqueued_at);
            let handed_out_at = self.handouts.get(&turn.update_id);
            let llm_time = tag_of(&turn.text).and_then(|tag| self.llm_times.get(tag));
            let (Some(&handed_out_at), Some(&llm_time)) = (handed_out_at, llm_time) else {
                unmatched += 1;
                continue;
            };
            poll_wait.push(handed_out_at - turn.enqueued_at);
            llm.push(llm_time);
            let turn_overhead = (turn.replied_at - handed_out_at).saturating_sub(llm_time);
            overhead.push(turn_overhead);
            timings.push(TurnTimings {
                update_id: turn.update_id,
                handed_out: handed_out_at.saturating_duration_since(self.started_at),
                overhead: turn_overhead,
                llm: llm_time,
            });
        }
        let mut problems = self.problems;
        if unmatched > 0 {
            problems.push(format!(
                "{unmatched} replies without a recorded hand-out or LLM call"
            ));
        }
        let waiting = self
            .users
            .iter()
            .filter(|user| user.waiting.is_some())
            .count();
        if waiting > 0 {
            problems.push(format!("{waiting} messages never got a reply"));
        }
        let reply_rate = match (self.answered.first(), self.answered.last()) {
            (Some(first), Some(last)) if last.replied_at > first.replied_at => {
                (self.answered.len() - 1) as f64
                    / (last.replied_at - first.replied_at).as_secs_f64()
            }
            _ => 0.0,
        };
        TurnFigures {
            sent: self.turns_sent,
            reply_rate,
            answered: self.answered.len() as u64,
            duration: self
                .answered
                .last()
                .map_or(Duration::ZERO, |last| last.replied_at - self.started_at),
            overhead: Distribution::of(overhead),
            end_to_end: Distribution::of(end_to_end),
            poll_wait: Distribution::of(poll_wait),
            llm: Distribution::of(llm),
            calls: self.calls,
            problems,
            timings,
        }
    }
}

/// What the bot logged (at `RUST_LOG=warn`): warnings, errors, and the first few lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotLog {
    pub warnings: usize,
    /// Error lines, and anything that is not a log line at all (a panic message).
    pub errors: usize,
    pub first_lines: Vec<String>,
}

impl BotLog {
    /// Takes one line of the bot's JSON log.
    fn push(&mut self, line: &str) {
        let parsed: Option<serde_json::Value> = serde_json::from_str(line).ok();
        let level = parsed
            .as_ref()
            .and_then(|entry| entry["level"].as_str())
            .unwrap_or("ERROR");
        if level == "WARN" {
            self.warnings += 1;
        } else {
            self.errors += 1;
        }
        if self.first_lines.len() < QUOTED_LOG_LINES {
            let shown = parsed.as_ref().map_or_else(|| line.to_owned(), readable);
            self.first_lines.push(shown);
        }
    }
}

/// `LEVEL target: message key=value ...` from one JSON log entry.
fn readable(entry: &serde_json::Value) -> String {
    let fields = entry["fields"].as_object();
    let message = fields
        .and_then(|fields| fields.get("message"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let mut shown = format!(
        "{} {}: {message}",
        entry["level"].as_str().unwrap_or_default(),
        entry["target"].as_str().unwrap_or_default()
    );
    for (key, value) in fields.into_iter().flatten() {
        if key != "message" {
            shown.push_str(&format!(" {key}={value}"));
        }
    }
    shown
}

/// The bot as a child process; killed if still running when dropped (say, after a panic).
struct BotUnderLoad {
    child: Child,
    log: Arc<Mutex<BotLog>>,
}

impl BotUnderLoad {
    fn spawn(
        options: &LoadOptions,
        telegram: &FakeTelegram,
        llm: &FakeLlm,
        database_url: &str,
        extra_env: &[(&str, &str)],
        pin: Option<&String>,
    ) -> anyhow::Result<Self> {
        let mut command = telemem_run(&options.bin, telegram, llm, database_url);
        if let Some(cpus) = pin {
            command = pinned(&command, cpus);
        }
        command
            // Simulated users send as fast as they are answered, far past what a person does.
            .env("USER_MESSAGES_PER_MINUTE", "0")
            .env("RUST_LOG", "warn")
            .env("LOG_FORMAT", "json")
            .envs(extra_env.iter().copied())
            .envs(options.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .with_context(|| format!("start {}", options.bin.display()))?;
        let log = Arc::new(Mutex::new(BotLog::default()));
        if let Some(stderr) = child.stderr.take() {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    log.lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .push(&line);
                }
            });
        }
        Ok(Self { child, log })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    fn log(&self) -> BotLog {
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Sends SIGTERM (as `docker stop` does) and waits for the exit: how long it took and the
    /// exit status, or `None` if the bot did not stop in time (it is then killed).
    async fn stop(&mut self) -> Option<(Duration, std::process::ExitStatus)> {
        let asked_at = Instant::now();
        // std has no way to send SIGTERM, and a dependency for one signal is not worth it.
        let sent = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .is_ok_and(|status| status.success());
        if !sent {
            return None;
        }
        while asked_at.elapsed() < SHUTDOWN_PATIENCE {
            if let Some(status) = self.exit_status() {
                return Some((asked_at.elapsed(), status));
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        None
    }
}

impl Drop for BotUnderLoad {
    fn drop(&mut self) {
        if self.exit_status().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Samples the bot's VmRSS until cancelled: the highest value and the number of samples.
async fn sample_rss(pid: u32, stop: CancellationToken) -> (u64, usize) {
    let mut highest = 0;
    let mut samples = 0;
    let mut interval = tokio::time::interval(RSS_SAMPLE_INTERVAL);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return (highest, samples),
            _ = interval.tick() => {
                if let Some(rss) = proc_status_kib(pid, "VmRSS") {
                    highest = highest.max(rss);
                    samples += 1;
                }
            }
        }
    }
}

/// A `kB` field of `/proc/<pid>/status`, such as `VmRSS` or `VmHWM`.
fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let value = line.strip_prefix(field)?.strip_prefix(':')?;
        value.trim().strip_suffix("kB")?.trim().parse().ok()
    })
}

/// CPU time of a process, in user space and in the kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTime {
    pub user: Duration,
    pub system: Duration,
}

impl CpuTime {
    /// Reads utime and stime from a `/proc/.../stat` file (zero if it cannot be read).
    fn of(stat_path: &str) -> Self {
        // Linux reports these in USER_HZ ticks, which is 100 a second on every architecture.
        const TICKS_PER_SECOND: u64 = 100;
        let Ok(stat) = std::fs::read_to_string(stat_path) else {
            return Self::default();
        };
        // The fields after the command name (which may hold spaces) start with field 3;
        // utime and stime are fields 14 and 15.
        let Some((_, fields)) = stat.rsplit_once(')') else {
            return Self::default();
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        let field = |number: usize| {
            let ticks = fields
                .get(number - 3)
                .and_then(|value| value.parse::<u64>().ok())
                .unwrap_or(0);
            Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND)
        };
        Self {
            user: field(14),
            system: field(15),
        }
    }

    /// The CPU time of the processes `pids` together.
    fn of_all(pids: &[u32]) -> Self {
        pids.iter()
            .map(|pid| Self::of(&format!("/proc/{pid}/stat")))
            .fold(Self::default(), |total, one| Self {
                user: total.user + one.user,
                system: total.system + one.system,
            })
    }

    fn since(self, earlier: Self) -> Self {
        Self {
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
        }
    }

    pub fn total(self) -> Duration {
        self.user + self.system
    }
}

impl fmt::Display for CpuTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.2} s (user {:.2} s, system {:.2} s)",
            self.total().as_secs_f64(),
            self.user.as_secs_f64(),
            self.system.as_secs_f64()
        )
    }
}

/// What delivering due reminders measured ([`run_reminders`]).
#[derive(Clone, Debug, Default)]
pub struct ReminderReport {
    pub reminders: u32,
    /// Reminders sent, each counted once.
    pub delivered: usize,
    /// Reminders sent more than once.
    pub duplicates: usize,
    /// From the bot's start to its first reminder (start-up, reaching Telegram, the first claim).
    pub to_first: Duration,
    /// From the first reminder to the last.
    pub first_to_last: Duration,
    pub problems: Vec<String>,
}

impl ReminderReport {
    pub fn is_correct(&self) -> bool {
        self.delivered == self.reminders as usize
            && self.duplicates == 0
            && self.problems.is_empty()
    }

    /// Reminders delivered per second, after the first.
    pub fn per_second(&self) -> f64 {
        let seconds = self.first_to_last.as_secs_f64();
        if seconds > 0.0 {
            self.delivered.saturating_sub(1) as f64 / seconds
        } else {
            0.0
        }
    }
}

impl fmt::Display for ReminderReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "telemem reminders run: {} reminders due at start, one per person",
            self.reminders
        )?;
        writeln!(
            f,
            "  delivered               {} of {} ({} more than once)",
            self.delivered, self.reminders, self.duplicates
        )?;
        writeln!(f, "  start to first          {}", millis(self.to_first))?;
        writeln!(
            f,
            "  first to last           {} ({:.0} reminders/s)",
            millis(self.first_to_last),
            self.per_second()
        )?;
        for problem in &self.problems {
            writeln!(f, "  problem: {problem}")?;
        }
        Ok(())
    }
}

/// Stores `count` reminders due now, one per person in their private chat, then starts the bot
/// and measures how fast it delivers them.
pub async fn run_reminders(options: &LoadOptions, count: u32) -> anyhow::Result<ReminderReport> {
    use telemem::storage::{ChatId, ConversationKey, NewReminder, Store, UserId};

    let telegram = FakeTelegram::start().await;
    let llm = FakeLlm::start().await;
    let dir = tempfile::tempdir().context("create a temporary directory")?;
    let database_url = options
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("telemem.db").display()));
    let store = Store::connect(&database_url).await?;
    store.migrate().await?;
    let now_ms = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis(),
    )?;
    for index in 0..i64::from(count) {
        let person = FIRST_USER_ID + index;
        let text = format!("reminder {index}");
        let reminder = NewReminder {
            key: ConversationKey::new(ChatId(person), UserId(person)),
            text: &text,
            due_at_ms: now_ms - 1_000,
            created_at_ms: now_ms - 60_000,
        };
        store.add_reminder(&reminder, 1).await?;
    }
    store.close().await;

    let spawned_at = Instant::now();
    let mut bot = BotUnderLoad::spawn(
        options,
        &telegram,
        &llm,
        &database_url,
        &[],
        options.pin.first(),
    )?;
    let mut report = ReminderReport {
        reminders: count,
        ..ReminderReport::default()
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let (mut first, mut last) = (None, None);
    let mut changes = telegram.changes();
    let mut quiet_since = Instant::now();
    while seen.len() < count as usize {
        let mut progressed = false;
        for call in telegram.take_calls() {
            let text = call.params["text"].as_str().unwrap_or_default();
            if call.method != "sendMessage" || !text.starts_with('⏰') {
                continue;
            }
            *seen.entry(text.to_owned()).or_default() += 1;
            first.get_or_insert(call.at);
            last = Some(call.at);
            progressed = true;
        }
        if progressed {
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() > options.stall_timeout {
            report
                .problems
                .push("the bot stopped delivering reminders".to_owned());
            break;
        }
        if let Some(status) = bot.exit_status() {
            report
                .problems
                .push(format!("the bot exited with {status}"));
            break;
        }
        let _ = tokio::time::timeout(Duration::from_millis(100), changes.changed()).await;
    }
    // Anything sent twice shows up a little later.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for call in telegram.take_calls() {
        let text = call.params["text"].as_str().unwrap_or_default();
        if call.method == "sendMessage" && text.starts_with('⏰') {
            *seen.entry(text.to_owned()).or_default() += 1;
        }
    }
    bot.stop().await;
    report.delivered = seen.len();
    report.duplicates = seen.values().filter(|times| **times > 1).count();
    if let (Some(first), Some(last)) = (first, last) {
        report.to_first = first.saturating_duration_since(spawned_at);
        report.first_to_last = last.saturating_duration_since(first);
    }
    Ok(report)
}

/// `command` run by `taskset -c cpus`, which sets the CPUs and then becomes the command (same
/// process id), so the bot's runtime sizes itself to them.
fn pinned(command: &Command, cpus: &str) -> Command {
    let mut pinned = Command::new("taskset");
    pinned
        .arg("-c")
        .arg(cpus)
        .arg(command.get_program())
        .args(command.get_args())
        .env_clear();
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            pinned.env(key, value);
        }
    }
    pinned
}
