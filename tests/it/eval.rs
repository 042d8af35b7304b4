//! The memory evaluation (issue item 7, and issue 16's recall by meaning): scripted
//! multi-session conversations in five languages, run through the real pipeline
//! (`ChatServices`: sessions, summarizer, notes, recall, embedder, context assembly, storage)
//! against a fake model that behaves like a modest real one (`support/modest_model.rs`), with a
//! `ManualClock` so that ten days pass in seconds. The same turns go, in the same run, to three
//! configurations: telemem recalling by words (embeddings not configured), telemem recalling by
//! words and by meaning, and a baseline that sends only the last 30 messages within 24 hours
//! (`ConversationSettings::without_long_term_memory`).
//!
//! Recall by meaning gets its vectors from the fake embedding server (`fake_embeddings.rs`),
//! whose concept table stands in for a real model's judgement; with `EVAL_EMBEDDING_BASE_URL`
//! and `EVAL_EMBEDDING_MODEL` set, from a real model's OpenAI-compatible server instead
//! (`scripts/embedding_server.py`). The embedder catches up before every probe, as the bot's
//! background job, looking every second, has done by the time a person types the next message.
//!
//! A probe is a turn whose prompt is checked for a referent: a value the person gave earlier
//! (a tracking number, a booking code, a name...) or a preference they stated; for a fact that
//! changed, the new value, before the old one when both are there. The prompt is everything the
//! model received: the system message and all chat messages. Isolation probes ask about another
//! person's private fact, and every prompt of the run is also scanned for any value another
//! person told. Prompt tokens use the project's own estimate (`memory::tokens`): the system
//! message plus every chat message with its framing, as `AssembledContext::total_tokens` counts
//! them; on probes, the memory part (summaries, recalled messages, earlier raw turns) comes from
//! `preview_context` just before the turn.
//!
//! The configurations share nothing (database, fake model, clock) and run side by side, so the
//! run fits in about a minute of a debug build on two cores.
//!
//! `cargo test --test it eval -- --nocapture` prints the table; it is also written to
//! `target/memory-eval.md` (with a real model: `target/memory-eval-real-embeddings.md`) and
//! recorded in `docs/PERFORMANCE.md`. The same run on PostgreSQL (`eval::on_postgres::…`) writes
//! `target/memory-eval-postgres.md`: its results must be those of SQLite.

mod languages;
mod meaning_templates;
mod scenario;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::config::Config;
use telemem::conversation::{ConversationSettings, Conversations};
use telemem::llm::LlmClient;
use telemem::memory::context::{EARLIER_HEADING, NOTES_HEADING, SUMMARY_LINE_START};
use telemem::memory::embedder::Embedder;
use telemem::memory::redact::Redactor;
use telemem::memory::summarizer::{Summarizer, SummarizerReport};
use telemem::storage::ConversationKey;
use telemem::tokens::{estimate_message_tokens, estimate_tokens};

use crate::support::config::parse_config;
use crate::support::database::TempDatabase;
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::FakeLlm;
use crate::support::modest_model;
use scenario::{Kind, SESSION_IDLE_MS, SUMMARY_COUNT, Scenario, Turn};

/// The least share of a kind's probes whose referent must reach the prompt, for the
/// configurations with long-term memory (with `needs_meaning`: only with recall by meaning).
struct Target {
    kind: Kind,
    least: f64,
    needs_meaning: bool,
}

/// The targets.
const TARGETS: [Target; 8] = [
    Target::for_telemem(Kind::SameSession, 0.98),
    Target::for_telemem(Kind::SameDayAfterBreak, 0.98),
    Target::for_telemem(Kind::AfterDays, 0.90),
    Target::for_telemem(Kind::Preference, 0.95),
    Target::for_telemem(Kind::BeyondSummaries, 0.90),
    Target::for_telemem(Kind::Compound, 0.90),
    Target::with_embeddings(Kind::Paraphrase, 0.90),
    Target::with_embeddings(Kind::ChangedFact, 0.90),
];
const TARGET_MEDIAN_PROMPT_TOKENS: usize = 1_000;

impl Target {
    /// A target for telemem with and without embeddings.
    const fn for_telemem(kind: Kind, least: f64) -> Self {
        Self {
            kind,
            least,
            needs_meaning: false,
        }
    }

    /// A target for telemem recalling by meaning only.
    const fn with_embeddings(kind: Kind, least: f64) -> Self {
        Self {
            kind,
            least,
            needs_meaning: true,
        }
    }

    fn applies_to(&self, arm: &Arm) -> bool {
        match arm.memory {
            Memory::Baseline => false,
            Memory::Words => !self.needs_meaning,
            Memory::Meaning => true,
        }
    }

    fn label(&self) -> String {
        let scope = if self.needs_meaning {
            " with embeddings"
        } else {
            ""
        };
        format!("≥ {:.2}{scope}", self.least)
    }
}

/// Misses listed per kind when a run is printed, to show why a back-reference failed.
const MISSES_SHOWN: usize = 8;

/// How long a turn waits for its message's vector. Longer than the default: a real model on
/// this machine's two busy cores can be slow, and the evaluation measures the model's
/// judgement, not the machine (a late vector would make the turn recall by words alone).
const EMBEDDING_TIMEOUT_MS: &str = "10000";

#[derive(Clone, Copy, Default)]
struct Tally {
    found: usize,
    total: usize,
}

impl Tally {
    fn share(self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.found as f64 / self.total as f64
        }
    }
}

/// What a configuration remembers with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// Only the last messages within the window.
    Baseline,
    /// telemem, recalling by words.
    Words,
    /// telemem, recalling by words and by meaning.
    Meaning,
}

/// The embedding model of the configuration that recalls by meaning: in CI the fake server,
/// whose concept table stands in for a model's judgement; a real model's server when
/// `EVAL_EMBEDDING_BASE_URL` and `EVAL_EMBEDDING_MODEL` are set.
enum EmbeddingServer {
    Fake(FakeEmbeddings),
    Real { base_url: String, model: String },
}

impl EmbeddingServer {
    async fn from_environment() -> Self {
        let setting = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        match (
            setting("EVAL_EMBEDDING_BASE_URL"),
            setting("EVAL_EMBEDDING_MODEL"),
        ) {
            (Some(base_url), Some(model)) => Self::Real { base_url, model },
            _ => Self::Fake(FakeEmbeddings::start().await),
        }
    }

    fn base_url(&self) -> &str {
        match self {
            Self::Fake(fake) => fake.base_url(),
            Self::Real { base_url, .. } => base_url,
        }
    }

    fn model(&self) -> &str {
        match self {
            Self::Fake(_) => "fake-concepts",
            Self::Real { model, .. } => model,
        }
    }

    fn is_real(&self) -> bool {
        matches!(self, Self::Real { .. })
    }
}

/// One configuration under evaluation, on its own database, fake model and clock, and what
/// was measured for it.
struct Arm {
    name: String,
    memory: Memory,
    conversations: Conversations,
    /// The background summarizer, for the configurations that have long-term memory.
    summarizer: Option<Summarizer>,
    /// The background embedder, for the configuration that recalls by meaning.
    embedder: Option<Embedder>,
    llm: FakeLlm,
    clock: ManualClock,
    summaries: SummarizerReport,
    /// Least cosine similarity of recall by meaning, when configured (else calibrated).
    min_similarity: Option<f64>,
    database: TempDatabase,
    /// By kind and language: probes whose referent was in the prompt (for isolation: leaks).
    tallies: BTreeMap<(Kind, &'static str), Tally>,
    prompt_tokens: Vec<usize>,
    /// Per prompt, its tokens by [`PART_NAMES`].
    parts: Vec<[usize; PART_NAMES.len()]>,
    /// Of probes only (measured with a preview).
    memory_tokens: Vec<usize>,
    /// Another person's value found in a prompt: (user, value).
    leaks: Vec<(i64, String)>,
    misses: BTreeMap<Kind, Vec<String>>,
}

impl Arm {
    /// telemem recalling by words, or by words and meaning through `embeddings`, or (with
    /// [`Memory::Baseline`]) the plain last-messages context.
    async fn start(
        name: String,
        memory: Memory,
        embeddings: Option<&EmbeddingServer>,
        first_turn_ms: i64,
    ) -> Self {
        let llm = FakeLlm::start().await;
        llm.set_responder(Arc::new(modest_model::respond));
        let database = TempDatabase::new();
        let clock = ManualClock::starting_at(first_turn_ms);
        let config = config(&database, &llm, embeddings);
        let core = ChatServices::build(&config, Arc::new(clock.clone()))
            .await
            .expect("build the core");
        assert_eq!(
            config.memory.summary_count as usize, SUMMARY_COUNT,
            "the scenario plans its sessions around the summary count"
        );
        if let Some(embedder) = &core.embedder {
            embedder.start().await.expect("start the embedder");
        }
        let (conversations, summarizer) = if memory == Memory::Baseline {
            let conversations = Conversations::new(
                core.store.clone(),
                LlmClient::new(&config.llm).expect("LLM client"),
                Arc::new(clock.clone()),
                Redactor::default_only(),
                ConversationSettings::from_config(&config.history, &config.memory)
                    .without_long_term_memory(),
            );
            (conversations, None)
        } else {
            (core.conversations, Some(core.summarizer))
        };
        Self {
            name,
            memory,
            conversations,
            summarizer,
            embedder: core.embedder,
            llm,
            clock,
            summaries: SummarizerReport::default(),
            min_similarity: config.embedding.min_similarity,
            database,
            tallies: BTreeMap::new(),
            prompt_tokens: Vec::new(),
            parts: Vec::new(),
            memory_tokens: Vec::new(),
            leaks: Vec::new(),
            misses: BTreeMap::new(),
        }
    }

    /// Runs every turn in time order, with the summarizer looking whenever a session has
    /// gone idle (as the background job, every 30 seconds, would have) and the embedder
    /// catching up before every probe (as the background job, every second, would have).
    async fn run(mut self, scenario: &Scenario) -> Self {
        let mut open_sessions: HashMap<ConversationKey, i64> = HashMap::new();
        for turn in &scenario.turns {
            self.clock.set_ms(turn.at_ms);
            if open_sessions
                .values()
                .any(|last| turn.at_ms - last > SESSION_IDLE_MS)
            {
                self.summarize_pending().await;
                open_sessions.retain(|_, last| turn.at_ms - *last <= SESSION_IDLE_MS);
            }
            if turn.probe.is_some() {
                self.embed_waiting().await;
            }
            self.take(turn, scenario).await;
            open_sessions.insert(turn.key, turn.at_ms);
        }
        self
    }

    /// Embeds every message and summary still without a vector. Only probes need it: recall
    /// searches below the raw history, which holds the last turns' messages anyway, so between
    /// probes the embedder may fall a few turns behind without changing what a probe recalls.
    async fn embed_waiting(&self) {
        if let Some(embedder) = &self.embedder {
            embedder
                .embed_waiting()
                .await
                .expect("the embedder catches up");
        }
    }

    /// Looks until nothing is left to summarize.
    async fn summarize_pending(&mut self) {
        let Some(summarizer) = &self.summarizer else {
            return;
        };
        loop {
            let report = summarizer
                .summarize_pending_once()
                .await
                .expect("a summarizer look");
            self.summaries.summarized += report.summarized;
            self.summaries.extracted += report.extracted;
            self.summaries.failed += report.failed;
            if report.summarized + report.extracted + report.empty == 0 || report.failed > 0 {
                return;
            }
        }
    }

    /// Sends one turn and scores the prompt the model received.
    async fn take(&mut self, turn: &Turn, scenario: &Scenario) {
        // The memory part is only measured on probes: each preview costs a second recall.
        if turn.probe.is_some() {
            let preview = self
                .conversations
                .preview_context(turn.key, &turn.text)
                .await
                .expect("preview the context");
            self.memory_tokens.push(preview.memory_tokens);
        }
        self.conversations
            .chat(turn.key, &turn.text)
            .await
            .expect("a chat turn");
        let request = self.llm.last_request().expect("the model got the turn");
        let prompt = prompt_text(&request.body);
        self.prompt_tokens.push(prompt_tokens(&request.body));
        self.parts.push(prompt_parts(&request.body));

        for value in scenario
            .private_values
            .of_others_in(turn.key.user_id.0, &prompt)
        {
            self.leaks.push((turn.key.user_id.0, value.to_owned()));
        }
        let Some(probe) = &turn.probe else {
            return;
        };
        let found = probe.is_found_in(&prompt);
        let tally = self
            .tallies
            .entry((probe.kind, probe.language))
            .or_default();
        tally.total += 1;
        tally.found += usize::from(found);
        let missed = if probe.kind == Kind::Isolation {
            found
        } else {
            !found
        };
        if missed {
            let stale = probe
                .stale
                .as_ref()
                .map(|stale| format!(" before {stale:?}"))
                .unwrap_or_default();
            self.misses.entry(probe.kind).or_default().push(format!(
                "{} {:?}: {:?} needs {:?}{stale}",
                scenario::format_day(turn.at_ms),
                turn.key,
                turn.text,
                probe.referent
            ));
        }
    }

    fn tally(&self, kind: Kind) -> Tally {
        self.tallies
            .iter()
            .filter(|((probe_kind, _), _)| *probe_kind == kind)
            .fold(Tally::default(), |sum, (_, tally)| Tally {
                found: sum.found + tally.found,
                total: sum.total + tally.total,
            })
    }

    /// The targets this configuration misses.
    fn missed_targets(&self) -> Vec<String> {
        let mut missed = Vec::new();
        if self.memory == Memory::Baseline {
            return missed;
        }
        for target in TARGETS.iter().filter(|target| target.applies_to(self)) {
            let share = self.tally(target.kind).share();
            if share < target.least {
                missed.push(format!(
                    "{}, {}: {share:.3} < {}",
                    self.name,
                    target.kind.label(),
                    target.least
                ));
            }
        }
        if self.tally(Kind::Isolation).found > 0 || !self.leaks.is_empty() {
            missed.push(format!("{}, leaks: {:?}", self.name, self.leaks));
        }
        let (median, _) = median_and_max(&self.prompt_tokens);
        if median > TARGET_MEDIAN_PROMPT_TOKENS {
            missed.push(format!("{}, median prompt {median} tokens", self.name));
        }
        missed
    }
}

/// All the text the model received: the system message and every chat message.
fn prompt_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter_map(|message| message["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The estimate `AssembledContext::total_tokens` uses: the system message's text, and each chat
/// message's text with its framing.
fn prompt_tokens(body: &Value) -> usize {
    body["messages"].as_array().map_or(0, |messages| {
        messages
            .iter()
            .map(|message| {
                let content = message["content"].as_str().unwrap_or_default();
                if message["role"] == "system" {
                    estimate_tokens(content)
                } else {
                    estimate_message_tokens(content)
                }
            })
            .sum()
    })
}

/// The parts of a prompt, as `memory/context.rs` lays it out.
const PART_NAMES: [&str; 6] = [
    "system prompt and time",
    "notes",
    "summaries",
    "recalled messages",
    "earlier raw turns",
    "new message",
];

/// A prompt's tokens by part (see [`PART_NAMES`]); the system message is split at its headings.
fn prompt_parts(body: &Value) -> [usize; PART_NAMES.len()] {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let content = |message: &Value| message["content"].as_str().unwrap_or_default().to_owned();
    let (system, chat) = match messages.split_first() {
        Some((first, rest)) if first["role"] == "system" => (content(first), rest.to_vec()),
        _ => (String::new(), messages),
    };
    let section = |heading: &str, ends: &[&str]| -> &str {
        let Some(start) = system.find(heading) else {
            return "";
        };
        let rest = &system[start..];
        let end = ends
            .iter()
            .filter_map(|end| rest[heading.len()..].find(end).map(|at| at + heading.len()))
            .min()
            .unwrap_or(rest.len());
        &rest[..end]
    };
    let notes = estimate_tokens(section(NOTES_HEADING, &[EARLIER_HEADING, "</memory>"]));
    let (summaries, recalled) = earlier_parts(section(EARLIER_HEADING, &["</memory>"]));
    let fixed = estimate_tokens(&system).saturating_sub(notes + summaries + recalled);
    let (new_message, earlier) = match chat.split_last() {
        Some((last, earlier)) => (estimate_message_tokens(&content(last)), earlier),
        None => (0, &[][..]),
    };
    let earlier = earlier
        .iter()
        .map(|message| estimate_message_tokens(&content(message)))
        .sum();
    [fixed, notes, summaries, recalled, earlier, new_message]
}

/// The tokens of the summaries and of the recalled messages in the memory block's one list of
/// earlier material: a summary is one line starting with [`SUMMARY_LINE_START`]; the rest are
/// the recalled messages and their days' headings.
fn earlier_parts(section: &str) -> (usize, usize) {
    let (mut summaries, mut recalled) = (String::new(), String::new());
    for line in section.lines().skip(1) {
        let part = if line.starts_with(SUMMARY_LINE_START) {
            &mut summaries
        } else {
            &mut recalled
        };
        part.push_str(line);
        part.push('\n');
    }
    (estimate_tokens(&summaries), estimate_tokens(&recalled))
}

fn median_and_max(values: &[usize]) -> (usize, usize) {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    (median, sorted.last().copied().unwrap_or(0))
}

/// The production defaults (the report lists them): the clock, not the settings, is what is
/// sped up. The idle timeout is set because the scenario's breaks are planned around it. Tools
/// are off: the evaluation weighs memory, and the baseline offers none either.
fn config(database: &TempDatabase, llm: &FakeLlm, embeddings: Option<&EmbeddingServer>) -> Config {
    let idle_secs = (SESSION_IDLE_MS / 1_000).to_string();
    let base_url = llm.base_url();
    let mut args = vec![
        "--database-url",
        &database.url,
        "--llm-base-url",
        &base_url,
        "--llm-max-retries",
        "0",
        "--llm-timeout-secs",
        "10",
        "--session-idle-secs",
        &idle_secs,
        "--tools",
        "off",
    ];
    if let Some(embeddings) = embeddings {
        args.extend([
            "--embedding-model",
            embeddings.model(),
            "--embedding-base-url",
            embeddings.base_url(),
            "--embedding-timeout-ms",
            EMBEDDING_TIMEOUT_MS,
        ]);
    }
    parse_config(&args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_evaluation_meets_its_targets() {
    let started = Instant::now();
    let scenario = scenario::generate();
    let first_turn_ms = scenario.turns[0].at_ms;
    let embeddings = EmbeddingServer::from_environment().await;
    let words = Arm::start("telemem".to_owned(), Memory::Words, None, first_turn_ms).await;
    let meaning_name = if embeddings.is_real() {
        format!("telemem + {}", embeddings.model())
    } else {
        "telemem + embeddings".to_owned()
    };
    let meaning = Arm::start(
        meaning_name,
        Memory::Meaning,
        Some(&embeddings),
        first_turn_ms,
    )
    .await;
    let baseline = Arm::start("baseline".to_owned(), Memory::Baseline, None, first_turn_ms).await;

    // The configurations share nothing, so they run side by side, each on a task of its own so
    // that they can use both cores.
    let scenario = Arc::new(scenario);
    let running = [words, meaning, baseline].map(|arm| {
        let scenario = Arc::clone(&scenario);
        tokio::spawn(async move { arm.run(&scenario).await })
    });
    let mut arms = Vec::with_capacity(running.len());
    for arm in running {
        arms.push(arm.await.expect("a configuration's run"));
    }
    let elapsed = started.elapsed();
    let arms: [Arm; 3] = arms
        .try_into()
        .unwrap_or_else(|_| unreachable!("three runs"));
    let report = report(&scenario, &arms, &embeddings, elapsed);
    println!("{report}");
    for arm in &arms {
        for (kind, misses) in &arm.misses {
            println!("{} misses, {} ({}):", arm.name, kind.label(), misses.len());
            for miss in misses.iter().take(MISSES_SHOWN) {
                println!("  {miss}");
            }
        }
    }
    let embeddings_part = if embeddings.is_real() {
        "-real-embeddings"
    } else {
        ""
    };
    // The PostgreSQL run keeps a report of its own, to set beside the SQLite one.
    let backend_part = if arms[0].database.url.starts_with("postgres") {
        "-postgres"
    } else {
        ""
    };
    let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/target");
    std::fs::create_dir_all(directory).expect("target/");
    let file = format!("{directory}/memory-eval{embeddings_part}{backend_part}.md");
    std::fs::write(file, &report).expect("write the report");

    for arm in &arms {
        assert_eq!(arm.summaries.failed, 0, "the fake model never fails");
    }
    let missed: Vec<String> = arms.iter().flat_map(Arm::missed_targets).collect();
    assert!(missed.is_empty(), "targets missed: {missed:#?}\n{report}");
}

/// The Markdown report: per kind the configurations side by side, then per language.
fn report(
    scenario: &Scenario,
    arms: &[Arm; 3],
    embeddings: &EmbeddingServer,
    elapsed: std::time::Duration,
) -> String {
    let turns = scenario.turns.len();
    let probes = scenario
        .turns
        .iter()
        .filter(|turn| turn.probe.is_some())
        .count();
    let [words, meaning, _] = arms;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} people in {} languages ({}), ten simulated days, {turns} turns of which {probes} \
         probes, {} sessions summarized; the three configurations in one run against the same \
         fake model, {:.1} s (debug build).\n",
        scenario.people,
        scenario.languages.len(),
        scenario.languages.join(", "),
        words.summaries.summarized + words.summaries.extracted,
        elapsed.as_secs_f64()
    );
    let settings = words.conversations.settings();
    let _ = writeln!(
        out,
        "telemem settings (the defaults): session idle {} min, raw history {} messages within {} h, \
         {} summaries within {} days, recall {} messages, memory budget {} tokens. Recall by \
         meaning: model `{}`{}, least similarity {}.\n",
        settings.session_idle_ms / 60_000,
        settings.history_max_messages,
        settings.history_window_ms / 3_600_000,
        settings.summary_count,
        settings.summary_window_ms / 86_400_000,
        settings.recall_limit,
        settings.memory_budget_tokens,
        embeddings.model(),
        if embeddings.is_real() {
            ""
        } else {
            " (the fake server's concept table)"
        },
        meaning.min_similarity.map_or_else(
            || "calibrated for the model".to_owned(),
            |floor| floor.to_string()
        ),
    );
    kinds_table(&mut out, scenario, arms);
    languages_table(&mut out, scenario, arms);
    out
}

fn kinds_table(out: &mut String, scenario: &Scenario, arms: &[Arm; 3]) {
    let turns = scenario.turns.len();
    let probes = scenario
        .turns
        .iter()
        .filter(|turn| turn.probe.is_some())
        .count();
    let _ = write!(out, "| back-reference | probes |");
    for arm in arms {
        let name = if arm.memory == Memory::Baseline {
            "baseline (last 30 messages within 24 h)"
        } else {
            arm.name.as_str()
        };
        let _ = write!(out, " {name} |");
    }
    let _ = writeln!(out, " target |\n|---|---:|---:|---:|---:|---|");
    let row = |out: &mut String,
               label: &str,
               count: String,
               cell: &dyn Fn(&Arm) -> String,
               target: &str| {
        let cells: Vec<String> = arms.iter().map(cell).collect();
        let _ = writeln!(
            out,
            "| {label} | {count} | {} | {target} |",
            cells.join(" | ")
        );
    };
    for target in &TARGETS {
        let kind = target.kind;
        row(
            out,
            kind.label(),
            arms[0].tally(kind).total.to_string(),
            &|arm| {
                let tally = arm.tally(kind);
                format!("{} ({:.3})", tally.found, tally.share())
            },
            &target.label(),
        );
    }
    row(
        out,
        &format!("{}: leaks", Kind::Isolation.label()),
        arms[0].tally(Kind::Isolation).total.to_string(),
        &|arm| arm.tally(Kind::Isolation).found.to_string(),
        "0",
    );
    row(
        out,
        "any other person's value in any prompt: leaks",
        format!("{turns} prompts"),
        &|arm| arm.leaks.len().to_string(),
        "0",
    );
    let tokens = |values: &[usize]| {
        let (median, max) = median_and_max(values);
        format!("{median} / {max}")
    };
    row(
        out,
        "prompt tokens, median / max",
        format!("{turns} prompts"),
        &|arm| tokens(&arm.prompt_tokens),
        "median ≤ 1,000",
    );
    row(
        out,
        "of which memory (summaries, recalled, earlier turns), median / max",
        format!("{probes} probes"),
        &|arm| tokens(&arm.memory_tokens),
        "",
    );
    for (index, name) in PART_NAMES.iter().enumerate() {
        row(
            out,
            &format!("mean tokens: {name}"),
            format!("{turns} prompts"),
            &|arm| {
                let sum: usize = arm.parts.iter().map(|parts| parts[index]).sum();
                format!("{:.0}", sum as f64 / arm.parts.len().max(1) as f64)
            },
            "",
        );
    }
}

fn languages_table(out: &mut String, scenario: &Scenario, arms: &[Arm; 3]) {
    let names: Vec<&str> = arms.iter().map(|arm| arm.name.as_str()).collect();
    let _ = writeln!(
        out,
        "\nPer language: probes found by {} / probes; for isolation, leaks.\n",
        names.join(" / ")
    );
    let _ = write!(out, "| back-reference |");
    for language in &scenario.languages {
        let _ = write!(out, " {language} |");
    }
    let _ = writeln!(out);
    let _ = write!(out, "|---|");
    for _ in &scenario.languages {
        let _ = write!(out, "---:|");
    }
    let _ = writeln!(out);
    for kind in Kind::ALL {
        let _ = write!(out, "| {} |", kind.label());
        for language in &scenario.languages {
            let tallies: Vec<Tally> = arms
                .iter()
                .map(|arm| {
                    arm.tallies
                        .get(&(kind, *language))
                        .copied()
                        .unwrap_or_default()
                })
                .collect();
            let found: Vec<String> = tallies
                .iter()
                .map(|tally| tally.found.to_string())
                .collect();
            let _ = write!(out, " {} / {} |", found.join(" / "), tallies[0].total);
        }
        let _ = writeln!(out);
    }
}

crate::postgres_variants!(memory_evaluation_meets_its_targets);
