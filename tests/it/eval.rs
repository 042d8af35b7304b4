//! The memory evaluation (issue item 7): scripted multi-session conversations in five languages,
//! run through the real pipeline (`ChatServices`: sessions, summarizer, notes, recall, context assembly,
//! storage) against a fake model that behaves like a modest real one
//! (`support/modest_model.rs`), with a `ManualClock` so that ten days pass in seconds. The same
//! turns also go, in the same run, to a baseline that sends only the last 30 messages within 24
//! hours (`ConversationSettings::without_long_term_memory`).
//!
//! A probe is a turn whose prompt is checked for a referent: a value the person gave earlier
//! (a tracking number, a booking code, a name...) or a preference they stated. The prompt is
//! everything the model received: the system message and all chat messages. Isolation probes
//! ask about another person's private fact, and every prompt of the run is also scanned for any
//! value another person told. Prompt tokens use the project's own estimate
//! (`memory::tokens`): the system message plus every chat message with its framing, as
//! `AssembledContext::total_tokens` counts them; on probes, the memory part (summaries,
//! recalled messages, earlier raw turns) comes from `preview_context` just before the turn.
//!
//! The two configurations share nothing (database, fake model, clock) and run side by side, so
//! the run fits in about a minute of a debug build on two cores.
//!
//! `cargo test --test it eval -- --nocapture` prints the table; it is also written to
//! `target/memory-eval.md` and recorded in `docs/PERFORMANCE.md`.

mod languages;
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
use telemem::memory::context::{NOTES_HEADING, RECALLED_HEADING, SUMMARIES_HEADING};
use telemem::memory::redact::Redactor;
use telemem::memory::summarizer::{Summarizer, SummarizerReport};
use telemem::memory::tokens::{estimate_message_tokens, estimate_tokens};
use telemem::storage::ConversationKey;

use crate::support::config::parse_config;
use crate::support::database::TempDatabase;
use crate::support::fake_llm::FakeLlm;
use crate::support::modest_model;
use scenario::{Kind, SESSION_IDLE_MS, Scenario, Turn};

/// The targets for telemem.
const TARGET_SAME_DAY: f64 = 0.98;
const TARGET_AFTER_DAYS: f64 = 0.90;
const TARGET_PREFERENCES: f64 = 0.95;
const TARGET_MEDIAN_PROMPT_TOKENS: usize = 1_000;

/// Misses listed per kind when a run is printed, to show why a back-reference failed.
const MISSES_SHOWN: usize = 8;

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

/// One configuration under evaluation, on its own database, fake model and clock, and what
/// was measured for it.
struct Arm {
    name: &'static str,
    conversations: Conversations,
    /// The background summarizer, for the configuration that has long-term memory.
    summarizer: Option<Summarizer>,
    llm: FakeLlm,
    clock: ManualClock,
    summaries: SummarizerReport,
    _database: TempDatabase,
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
    /// telemem as configured, or with `baseline` the plain last-messages context.
    async fn start(name: &'static str, baseline: bool, first_turn_ms: i64) -> Self {
        let llm = FakeLlm::start().await;
        llm.set_responder(Arc::new(modest_model::respond));
        let database = TempDatabase::new();
        let clock = ManualClock::starting_at(first_turn_ms);
        let config = config(&database, &llm);
        let core = ChatServices::build(&config, Arc::new(clock.clone()))
            .await
            .expect("build the core");
        let (conversations, summarizer) = if baseline {
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
            conversations,
            summarizer,
            llm,
            clock,
            summaries: SummarizerReport::default(),
            _database: database,
            tallies: BTreeMap::new(),
            prompt_tokens: Vec::new(),
            parts: Vec::new(),
            memory_tokens: Vec::new(),
            leaks: Vec::new(),
            misses: BTreeMap::new(),
        }
    }

    /// Runs every turn in time order, with the summarizer looking whenever a session has
    /// gone idle (as the background job, every 30 seconds, would have).
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
            self.take(turn, scenario).await;
            open_sessions.insert(turn.key, turn.at_ms);
        }
        self
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

        for (owner, values) in &scenario.private_values {
            if *owner == turn.key.user_id {
                continue;
            }
            for value in values
                .iter()
                .filter(|value| prompt.contains(value.as_str()))
            {
                self.leaks.push((turn.key.user_id, value.clone()));
            }
        }
        let Some(probe) = &turn.probe else {
            return;
        };
        let found = prompt.contains(&probe.referent);
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
            self.misses.entry(probe.kind).or_default().push(format!(
                "{} {:?}: {:?} needs {:?}",
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
    let notes = estimate_tokens(section(
        NOTES_HEADING,
        &[SUMMARIES_HEADING, RECALLED_HEADING, "</memory>"],
    ));
    let summaries = estimate_tokens(section(SUMMARIES_HEADING, &[RECALLED_HEADING, "</memory>"]));
    let recalled = estimate_tokens(section(RECALLED_HEADING, &["</memory>"]));
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

fn median_and_max(values: &[usize]) -> (usize, usize) {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    (median, sorted.last().copied().unwrap_or(0))
}

/// The production defaults (the report lists them): the clock, not the settings, is what is
/// sped up. The idle timeout is set because the scenario's breaks are planned around it.
fn config(database: &TempDatabase, llm: &FakeLlm) -> Config {
    parse_config(&[
        "--database-url",
        &database.url,
        "--llm-base-url",
        &llm.base_url(),
        "--llm-max-retries",
        "0",
        "--llm-timeout-secs",
        "10",
        "--session-idle-secs",
        &(SESSION_IDLE_MS / 1_000).to_string(),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_evaluation_meets_its_targets() {
    let started = Instant::now();
    let scenario = scenario::generate();
    let first_turn_ms = scenario.turns[0].at_ms;
    let telemem = Arm::start("telemem", false, first_turn_ms).await;
    let baseline = Arm::start("baseline", true, first_turn_ms).await;

    // The two configurations share nothing, so they run side by side.
    let (telemem, baseline) = tokio::join!(telemem.run(&scenario), baseline.run(&scenario));
    let elapsed = started.elapsed();

    let arms = [telemem, baseline];
    let [telemem_arm, baseline_arm] = &arms;
    let report = report(&scenario, telemem_arm, baseline_arm, elapsed);
    println!("{report}");
    for arm in &arms {
        for (kind, misses) in &arm.misses {
            println!("{} misses, {} ({}):", arm.name, kind.label(), misses.len());
            for miss in misses.iter().take(MISSES_SHOWN) {
                println!("  {miss}");
            }
        }
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/target/memory-eval.md");
    std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).expect("target/");
    std::fs::write(path, &report).expect("write target/memory-eval.md");

    let mut failures = Vec::new();
    let mut expect_share = |kind: Kind, target: f64| {
        let share = telemem_arm.tally(kind).share();
        if share < target {
            failures.push(format!("{}: {share:.3} < {target}", kind.label()));
        }
    };
    expect_share(Kind::SameSession, TARGET_SAME_DAY);
    expect_share(Kind::SameDayAfterBreak, TARGET_SAME_DAY);
    expect_share(Kind::AfterDays, TARGET_AFTER_DAYS);
    expect_share(Kind::Preference, TARGET_PREFERENCES);
    if telemem_arm.tally(Kind::Isolation).found > 0 || !telemem_arm.leaks.is_empty() {
        failures.push(format!("leaks: {:?}", telemem_arm.leaks));
    }
    let (median, _) = median_and_max(&telemem_arm.prompt_tokens);
    if median > TARGET_MEDIAN_PROMPT_TOKENS {
        failures.push(format!("median prompt {median} tokens"));
    }
    assert_eq!(
        telemem_arm.summaries.failed, 0,
        "the fake model never fails"
    );
    assert!(
        failures.is_empty(),
        "targets missed: {failures:#?}\n{report}"
    );
}

/// The Markdown report: per kind both configurations side by side, then per language.
fn report(
    scenario: &Scenario,
    telemem: &Arm,
    baseline: &Arm,
    elapsed: std::time::Duration,
) -> String {
    let turns = scenario.turns.len();
    let probes = scenario
        .turns
        .iter()
        .filter(|turn| turn.probe.is_some())
        .count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} people in {} languages ({}), ten simulated days, {turns} turns of which {probes} \
         probes, {} sessions summarized; both configurations in one run against the same fake \
         model, {:.1} s (debug build).\n",
        scenario.people,
        scenario.languages.len(),
        scenario.languages.join(", "),
        telemem.summaries.summarized + telemem.summaries.extracted,
        elapsed.as_secs_f64()
    );
    let settings = telemem.conversations.settings();
    let _ = writeln!(
        out,
        "telemem settings (the defaults): session idle {} min, raw history {} messages within {} h, \
         {} summaries within {} days, recall {} messages, memory budget {} tokens.\n",
        settings.session_idle_ms / 60_000,
        settings.history_max_messages,
        settings.history_window_ms / 3_600_000,
        settings.summary_count,
        settings.summary_window_ms / 86_400_000,
        settings.recall_limit,
        settings.memory_budget_tokens,
    );
    let _ = writeln!(
        out,
        "| back-reference | probes | telemem | baseline (last 30 messages within 24 h) | target (telemem) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---|");
    let cell = |tally: Tally| format!("{} ({:.3})", tally.found, tally.share());
    for (kind, target) in [
        (Kind::SameSession, "≥ 0.98"),
        (Kind::SameDayAfterBreak, "≥ 0.98"),
        (Kind::AfterDays, "≥ 0.90"),
        (Kind::Preference, "≥ 0.95"),
    ] {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {target} |",
            kind.label(),
            telemem.tally(kind).total,
            cell(telemem.tally(kind)),
            cell(baseline.tally(kind)),
        );
    }
    let _ = writeln!(
        out,
        "| {}: leaks | {} | {} | {} | 0 |",
        Kind::Isolation.label(),
        telemem.tally(Kind::Isolation).total,
        telemem.tally(Kind::Isolation).found,
        baseline.tally(Kind::Isolation).found,
    );
    let _ = writeln!(
        out,
        "| any other person's value in any prompt: leaks | {turns} prompts | {} | {} | 0 |",
        telemem.leaks.len(),
        baseline.leaks.len(),
    );
    let tokens = |values: &[usize]| {
        let (median, max) = median_and_max(values);
        format!("{median} / {max}")
    };
    let _ = writeln!(
        out,
        "| prompt tokens, median / max | {turns} prompts | {} | {} | median ≤ 1,000 |",
        tokens(&telemem.prompt_tokens),
        tokens(&baseline.prompt_tokens),
    );
    let _ = writeln!(
        out,
        "| of which memory (summaries, recalled, earlier turns), median / max | {probes} probes | {} | {} | |",
        tokens(&telemem.memory_tokens),
        tokens(&baseline.memory_tokens),
    );

    for (index, name) in PART_NAMES.iter().enumerate() {
        let mean = |arm: &Arm| {
            let sum: usize = arm.parts.iter().map(|parts| parts[index]).sum();
            sum as f64 / arm.parts.len().max(1) as f64
        };
        let _ = writeln!(
            out,
            "| mean tokens: {name} | {turns} prompts | {:.0} | {:.0} | |",
            mean(telemem),
            mean(baseline),
        );
    }

    let _ = writeln!(
        out,
        "\nPer language: telemem found / probes (baseline found); for isolation, leaks.\n"
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
            let ours = telemem
                .tallies
                .get(&(kind, *language))
                .copied()
                .unwrap_or_default();
            let theirs = baseline
                .tallies
                .get(&(kind, *language))
                .copied()
                .unwrap_or_default();
            let _ = write!(out, " {}/{} ({}) |", ours.found, ours.total, theirs.found);
        }
        let _ = writeln!(out);
    }
    out
}
