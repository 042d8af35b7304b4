//! The long-conversation memory evaluation (issue 26, "Measured, not assumed"): per language
//! (English, German, Russian, Spanish) one person talks with the assistant over 30 sessions
//! from January to July, hundreds of turns of small talk with facts planted at known turns;
//! another person shares the database. The conversations are generated, seeded
//! (`long_eval/conversations.rs`), and told turn by turn through the real pipeline
//! (`ChatServices`: `begin_turn`, then `finish_turn` with the assistant's scripted reply, as
//! `telemem chat` finishes a turn), on a `ManualClock`, the summarizer (the fake LLM answering
//! as `support/modest_model.rs`) and the embedder catching up whenever a session has gone idle.
//! Then every question goes through `Conversations::preview_context` (what `telemem context`
//! prints), on a day after the last session.
//!
//! A question is labelled with the turns that answer it and the strings its answer consists of:
//! a single fact asked with one of its words, in other words, or in other words and another
//! language; a fact told in two sessions; a fact that changed (the newer turn answers); and a
//! period ("last week", "last month", "in May": that period's episodes answer). Measured per
//! language and setting (words only; with an embedding model): the share of answering turns
//! whose text is in the prompt (system message and every chat message), the share of prompts
//! holding the whole answer, and the prompt's tokens (`AssembledContext::total_tokens`, the
//! estimate of `memory::tokens`). Beside telemem, at the same budget (telemem's median prompt in
//! that setting), BM25 top-k and cosine top-k over the same turns (`support/baselines.rs`).
//! Every prompt, of every turn and question, is searched for the other people's values.
//!
//! The embedding model is the fake server (`support/fake_embeddings.rs`, whose concept table
//! knows the questions' paraphrases), or a real model's OpenAI-compatible server with
//! `EVAL_EMBEDDING_BASE_URL` and `EVAL_EMBEDDING_MODEL` (and, for a model with roles,
//! `EVAL_EMBEDDING_PASSAGE_MODEL`, the name that embeds a passage; see `scripts/long-eval-real`).
//!
//! `cargo test --test it long_eval -- --nocapture` prints the table and writes it to
//! `target/long-memory-eval.md` (`…-real-<model>.md` with a real model). The targets are
//! checked by [`missed_targets`]; they fail the test with the fake model (as in CI) and, with a
//! real model, only with `LONG_EVAL_ENFORCE_TARGETS=1` (`0` turns them off); isolation and the
//! harness's own soundness always do.

mod conversations;
mod languages;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::llm::{ChatRequest, Completion};
use telemem::memory::summarizer::SummarizerReport;

use crate::support::baselines::{
    Bm25, EmbeddingRole, EmbeddingService, cosine, prompt_within, ranking,
};
use crate::support::config::parse_config;
use crate::support::database::TempDatabase;
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::FakeLlm;
use crate::support::modest_model;
use conversations::{Corpus, Kind, Question, SESSION_IDLE_MS, Speaker};

/// The targets.
const TARGET_LEAST_SHARE: f64 = 0.75;
const TARGET_CROSS_LANGUAGE: f64 = 0.9;
const TARGET_MEDIAN_PROMPT_TOKENS: usize = 1_000;

/// Set to 1 to fail a real model's run on a missed target, 0 to report the fake model's misses
/// without failing (isolation and the harness always fail it).
const ENFORCE_TARGETS: &str = "LONG_EVAL_ENFORCE_TARGETS";

/// How long a turn waits for its message's vector: a real model on this machine's two busy
/// cores can be slow, and the evaluation measures the model's judgement, not the machine.
const EMBEDDING_TIMEOUT_MS: &str = "10000";

/// Misses listed per kind and setting when the run is printed.
const MISSES_SHOWN: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum System {
    Telemem,
    Bm25,
    Cosine,
}

impl System {
    const ALL: [System; 3] = [System::Telemem, System::Bm25, System::Cosine];

    fn label(self) -> &'static str {
        match self {
            System::Telemem => "telemem",
            System::Bm25 => "BM25 top-k",
            System::Cosine => "cosine top-k",
        }
    }
}

/// Where a setting's vectors come from: the fake server, or a real model's.
struct Embeddings {
    base_url: String,
    model: String,
    passage_model: String,
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
            let passage_model =
                setting("EVAL_EMBEDDING_PASSAGE_MODEL").unwrap_or_else(|| model.clone());
            return Self {
                base_url,
                model,
                passage_model,
                real: true,
                _fake: None,
            };
        }
        let fake = FakeEmbeddings::start().await;
        Self {
            base_url: fake.base_url().to_owned(),
            model: "fake-concepts".to_owned(),
            passage_model: "fake-concepts".to_owned(),
            real: false,
            _fake: Some(fake),
        }
    }

    fn setting_name(&self) -> String {
        if self.real {
            format!("with {}", self.model)
        } else {
            "with fake embeddings".to_owned()
        }
    }
}

/// What one system's prompt for one question held.
#[derive(Clone, Debug)]
struct Score {
    question: usize,
    system: System,
    turns_found: usize,
    turns_total: usize,
    /// Every gold string is in the prompt.
    answered: bool,
    /// For a changed fact: the older turn is in the prompt and the newer one is not.
    stale_only: bool,
    tokens: usize,
}

impl Score {
    fn of(corpus: &Corpus, index: usize, system: System, prompt: &str, tokens: usize) -> Self {
        let question = &corpus.questions[index];
        let holds = |turn: usize| prompt.contains(corpus.turns[turn].text.as_str());
        let turns_found = question.answers.iter().filter(|&&turn| holds(turn)).count();
        let stale_only = question
            .stale
            .as_ref()
            .is_some_and(|(turn, _)| holds(*turn) && turns_found == 0);
        Self {
            question: index,
            system,
            turns_found,
            turns_total: question.answers.len(),
            answered: question
                .gold
                .iter()
                .all(|gold| prompt.contains(gold.as_str())),
            stale_only,
            tokens,
        }
    }
}

/// One setting's measurements.
struct SettingRun {
    name: String,
    with_embeddings: bool,
    /// telemem's median question prompt: the baselines' budget.
    budget: usize,
    scores: Vec<Score>,
    /// Another person's value found in a prompt.
    leaks: Vec<String>,
    prompts_checked: usize,
    summaries: SummarizerReport,
    /// Baseline prompts that hold no turn where they must (a broken harness).
    empty_baselines: Vec<String>,
    elapsed: Duration,
}

impl SettingRun {
    fn scores_where<'a>(
        &'a self,
        corpus: &'a Corpus,
        system: System,
        language: Option<&'a str>,
        kind: Option<Kind>,
    ) -> impl Iterator<Item = &'a Score> + 'a {
        self.scores.iter().filter(move |score| {
            let question = &corpus.questions[score.question];
            score.system == system
                && language.is_none_or(|code| corpus.people[question.person].language == code)
                && kind.is_none_or(|kind| question.kind == kind)
        })
    }
}

/// Found over total, of answering turns and of prompts with the answer; `None` without scores.
fn shares<'a>(scores: impl Iterator<Item = &'a Score>) -> Option<(f64, f64)> {
    let (mut found, mut total, mut answered, mut prompts) = (0, 0, 0, 0);
    for score in scores {
        found += score.turns_found;
        total += score.turns_total;
        answered += usize::from(score.answered);
        prompts += 1;
    }
    (prompts > 0).then(|| {
        (
            found as f64 / total.max(1) as f64,
            answered as f64 / prompts as f64,
        )
    })
}

fn median_and_max(mut values: Vec<usize>) -> (usize, usize) {
    values.sort_unstable();
    let median = values.get(values.len() / 2).copied().unwrap_or(0);
    (median, values.last().copied().unwrap_or(0))
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
        llm.set_responder(Arc::new(modest_model::respond));
        llm.keep_requests(false);
        let database = TempDatabase::new();
        let clock = ManualClock::starting_at(corpus.turns[0].at_ms);
        let idle_secs = (SESSION_IDLE_MS / 1_000).to_string();
        let llm_url = llm.base_url();
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
        let mut open: HashMap<usize, telemem::conversation::Turn> = HashMap::new();
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

    /// Every question's prompt as `telemem context` shows it, and its tokens.
    async fn ask(&mut self, corpus: &Corpus) -> Vec<(String, usize)> {
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
            prompts.push((prompt_text(&context.request), context.total_tokens));
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
                        them.values.iter().map(move |value| (other, value.clone()))
                    })
                    .collect()
            })
            .collect();
        Self { others }
    }

    fn leaks(&self, person: usize, prompt: &str) -> Vec<String> {
        self.others[person]
            .iter()
            .filter(|(_, value)| prompt.contains(value.as_str()))
            .map(|(other, value)| format!("person {other}'s {value:?} in person {person}'s prompt"))
            .collect()
    }
}

/// One setting: the pipeline, then the baselines at telemem's median prompt size.
async fn run_setting(
    corpus: Arc<Corpus>,
    name: String,
    mut pipeline: Pipeline,
    embeddings: Option<Arc<Embeddings>>,
) -> SettingRun {
    let started = Instant::now();
    let isolation = Isolation::new(&corpus);
    let (mut leaks, mut prompts_checked) = pipeline.tell(&corpus, &isolation).await;
    let prompts = pipeline.ask(&corpus).await;
    let mut scores = Vec::new();
    for (index, (prompt, tokens)) in prompts.iter().enumerate() {
        let person = corpus.questions[index].person;
        leaks.extend(isolation.leaks(person, prompt));
        prompts_checked += 1;
        scores.push(Score::of(&corpus, index, System::Telemem, prompt, *tokens));
    }
    let (budget, _) = median_and_max(prompts.iter().map(|(_, tokens)| *tokens).collect());
    let (baseline_scores, empty_baselines) =
        baselines(&corpus, budget, embeddings.as_deref()).await;
    scores.extend(baseline_scores);
    SettingRun {
        name,
        with_embeddings: embeddings.is_some(),
        budget,
        scores,
        leaks,
        prompts_checked,
        summaries: pipeline.summaries,
        empty_baselines,
        elapsed: started.elapsed(),
    }
}

/// BM25 top-k (and, with embeddings, cosine top-k) over each evaluated person's turns, both
/// roles, within `budget` tokens; and the baseline prompts that hold no turn where one must be
/// (for a keyword question, which shares a word with its fact).
async fn baselines(
    corpus: &Corpus,
    budget: usize,
    embeddings: Option<&Embeddings>,
) -> (Vec<Score>, Vec<String>) {
    let service = embeddings.map(|embeddings| {
        EmbeddingService::new(
            &embeddings.base_url,
            &embeddings.model,
            &embeddings.passage_model,
        )
    });
    let mut scores = Vec::new();
    let mut empty = Vec::new();
    let evaluated: Vec<usize> = (0..corpus.people.len())
        .filter(|&person| corpus.people[person].evaluated)
        .collect();
    for person in evaluated {
        let texts: Vec<&str> = corpus
            .turns_of(person)
            .map(|(_, turn)| turn.text.as_str())
            .collect();
        let questions: Vec<(usize, &Question)> = corpus
            .questions
            .iter()
            .enumerate()
            .filter(|(_, question)| question.person == person)
            .collect();
        let bm25 = Bm25::new(&texts);
        for &(index, question) in &questions {
            let prompt = prompt_within(
                budget,
                &question.text,
                &texts,
                &ranking(&bm25.scores(&question.text)),
            );
            if question.kind == Kind::Keyword && prompt.included.is_empty() {
                empty.push(format!("BM25 for {:?}", question.text));
            }
            scores.push(Score::of(
                corpus,
                index,
                System::Bm25,
                &prompt.text,
                prompt.tokens,
            ));
        }
        let Some(service) = &service else {
            continue;
        };
        let passages = service.embed(&texts, EmbeddingRole::Passage).await;
        let asked: Vec<&str> = questions
            .iter()
            .map(|(_, question)| question.text.as_str())
            .collect();
        let queries = service.embed(&asked, EmbeddingRole::Query).await;
        for (&(index, question), query) in questions.iter().zip(&queries) {
            let similarities: Vec<f64> = passages
                .iter()
                .map(|passage| cosine(query, passage))
                .collect();
            let prompt = prompt_within(budget, &question.text, &texts, &ranking(&similarities));
            if question.kind == Kind::Keyword && prompt.included.is_empty() {
                empty.push(format!("cosine for {:?}", question.text));
            }
            scores.push(Score::of(
                corpus,
                index,
                System::Cosine,
                &prompt.text,
                prompt.tokens,
            ));
        }
    }
    (scores, empty)
}

/// The targets this run misses: per language and setting, telemem's share of answering
/// turns at least the better baseline's, and at least 0.75 (without embeddings, over all but
/// the paraphrases: a paraphrase shares no word with its fact by construction, so only meaning
/// can find it);
/// with embeddings, paraphrases in another language at least 0.9; keyword questions all found;
/// no leak; median prompt at most 1,000 tokens.
fn missed_targets(corpus: &Corpus, runs: &[SettingRun]) -> Vec<String> {
    let mut missed = Vec::new();
    for run in runs {
        for language in corpus.languages() {
            missed.extend(missed_in_language(corpus, run, language));
        }
        if !run.leaks.is_empty() {
            missed.push(format!("{}: {} leaks", run.name, run.leaks.len()));
        }
        if run.budget > TARGET_MEDIAN_PROMPT_TOKENS {
            missed.push(format!(
                "{}: median prompt {} tokens > {TARGET_MEDIAN_PROMPT_TOKENS}",
                run.name, run.budget
            ));
        }
    }
    missed
}

fn missed_in_language(corpus: &Corpus, run: &SettingRun, language: &str) -> Vec<String> {
    let mut missed = Vec::new();
    let share = |system, kinds: &[Kind]| {
        let scores = run
            .scores_where(corpus, system, Some(language), None)
            .filter(|score| kinds.contains(&corpus.questions[score.question].kind));
        shares(scores).map(|(turns, _)| turns)
    };
    let Some(telemem) = share(System::Telemem, &Kind::ALL) else {
        return missed;
    };
    let best = [System::Bm25, System::Cosine]
        .into_iter()
        .filter_map(|system| share(system, &Kind::ALL))
        .fold(0.0, f64::max);
    let name = &run.name;
    if telemem < best {
        missed.push(format!(
            "{name}, {language}: telemem {telemem:.2} < best baseline {best:.2}"
        ));
    }
    let (floor_kinds, scope) = if run.with_embeddings {
        (&Kind::ALL[..], "")
    } else {
        (&Kind::WITHOUT_MEANING[..], " (all but paraphrases)")
    };
    let floored = share(System::Telemem, floor_kinds).unwrap_or(0.0);
    if floored < TARGET_LEAST_SHARE {
        missed.push(format!(
            "{name}, {language}: telemem {floored:.2}{scope} < {TARGET_LEAST_SHARE}"
        ));
    }
    let keyword = share(System::Telemem, &[Kind::Keyword]).unwrap_or(1.0);
    if keyword < 1.0 {
        missed.push(format!(
            "{name}, {language}: keyword questions {keyword:.2} < 1.00"
        ));
    }
    let across = share(System::Telemem, &[Kind::CrossLanguage]).unwrap_or(1.0);
    if run.with_embeddings && across < TARGET_CROSS_LANGUAGE {
        missed.push(format!(
            "{name}, {language}: paraphrase in another language {across:.2} < {TARGET_CROSS_LANGUAGE}"
        ));
    }
    missed
}

#[test]
fn the_generated_conversations_are_labelled_soundly() {
    let corpus = conversations::generate();
    let problems = conversations::check(&corpus);
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(
        corpus
            .people
            .iter()
            .filter(|person| person.evaluated)
            .count(),
        4
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_conversation_memory_evaluation() {
    let started = Instant::now();
    let corpus = Arc::new(conversations::generate());
    let problems = conversations::check(&corpus);
    assert!(problems.is_empty(), "the harness is unsound: {problems:#?}");
    let embeddings = Arc::new(Embeddings::from_environment().await);

    // The settings share nothing, so they run side by side, one task each, on both cores.
    let words = Pipeline::start(&corpus, None).await;
    let meaning = Pipeline::start(&corpus, Some(&embeddings)).await;
    let words = tokio::spawn(run_setting(
        Arc::clone(&corpus),
        "words only".to_owned(),
        words,
        None,
    ));
    let meaning = tokio::spawn(run_setting(
        Arc::clone(&corpus),
        embeddings.setting_name(),
        meaning,
        Some(Arc::clone(&embeddings)),
    ));
    let runs = [
        words.await.expect("the words-only run"),
        meaning.await.expect("the run with embeddings"),
    ];
    let elapsed = started.elapsed();
    let missed = missed_targets(&corpus, &runs);
    let report = report(&corpus, &runs, &embeddings, elapsed, &missed);
    println!("{report}");
    print_misses(&corpus, &runs);
    let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/target");
    std::fs::create_dir_all(directory).expect("target/");
    let file = if embeddings.real {
        let model: String = embeddings
            .model
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{directory}/long-memory-eval-real-{model}.md")
    } else {
        format!("{directory}/long-memory-eval.md")
    };
    std::fs::write(&file, &report).expect("write the report");

    for run in &runs {
        assert_eq!(run.summaries.failed, 0, "the fake model never fails");
        assert!(
            run.empty_baselines.is_empty(),
            "{}: {:#?}",
            run.name,
            run.empty_baselines
        );
        assert!(
            run.leaks.is_empty(),
            "{}: another person's material: {:#?}",
            run.name,
            run.leaks
        );
    }
    // With the fake model (CI) the targets always hold; a real model's run reports what it
    // misses unless asked to fail on it.
    let enforce = std::env::var(ENFORCE_TARGETS).ok();
    if enforce.as_deref() == Some("1") || (!embeddings.real && enforce.as_deref() != Some("0")) {
        assert!(missed.is_empty(), "targets missed: {missed:#?}\n{report}");
    }
}

/// The Markdown report: the corpus, then telemem beside the baselines per language and setting,
/// then per kind of question, then the targets missed.
fn report(
    corpus: &Corpus,
    runs: &[SettingRun; 2],
    embeddings: &Embeddings,
    elapsed: Duration,
    missed: &[String],
) -> String {
    let mut out = String::new();
    let evaluated: Vec<_> = corpus
        .people
        .iter()
        .enumerate()
        .filter(|(_, who)| who.evaluated)
        .collect();
    let turns: Vec<String> = evaluated
        .iter()
        .map(|(person, who)| format!("{} {}", who.language, corpus.turns_of(*person).count()))
        .collect();
    let _ = writeln!(
        out,
        "Long conversations: {} people in {} languages, each {} sessions from January to July \
         (turns: {}), one more person in the same database; {} questions asked on {}. \
         Embedding model: `{}`{}. {} sessions summarized per setting; {} prompts checked for \
         other people's material per setting, leaks: {}. Run time {:.1} s (settings side by \
         side: {}).\n",
        evaluated.len(),
        corpus.languages().len(),
        evaluated.first().map_or(0, |(_, who)| who.sessions),
        turns.join(", "),
        corpus.questions.len(),
        conversations::question_day(),
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
        "Baselines at telemem's median prompt of the setting: {}.\n",
        runs.iter()
            .map(|run| format!("{} {} tokens", run.name, run.budget))
            .collect::<Vec<_>>()
            .join(", ")
    );
    main_table(&mut out, corpus, runs);
    kinds_table(&mut out, corpus, runs);
    let _ = writeln!(
        out,
        "\nTargets missed ({} of the issue's; they fail the run with the fake model or {ENFORCE_TARGETS}=1):",
        missed.len()
    );
    for target in missed {
        let _ = writeln!(out, "- {target}");
    }
    out
}

/// The columns: per setting, each language and all of them.
fn columns(corpus: &Corpus, runs: &[SettingRun; 2]) -> Vec<(usize, Option<&'static str>)> {
    (0..runs.len())
        .flat_map(|run| {
            corpus
                .languages()
                .into_iter()
                .map(Some)
                .chain([None])
                .map(move |language| (run, language))
        })
        .collect()
}

fn header(out: &mut String, corpus: &Corpus, runs: &[SettingRun; 2], first: &str) {
    let columns = columns(corpus, runs);
    let _ = write!(out, "| {first} |");
    for (run, language) in &columns {
        let _ = write!(out, " {}: {} |", runs[*run].name, language.unwrap_or("all"));
    }
    let _ = write!(out, "\n|---|");
    for _ in &columns {
        let _ = write!(out, "---:|");
    }
    let _ = writeln!(out);
}

/// A cell of the main table from the scores of a column; `None` without scores.
type Metric = fn(&[&Score]) -> Option<String>;

fn main_table(out: &mut String, corpus: &Corpus, runs: &[SettingRun; 2]) {
    header(out, corpus, runs, "at the same token budget");
    let columns = columns(corpus, runs);
    let metrics: [(&str, Metric); 3] = [
        ("answering turns in the prompt", |scores| {
            shares(scores.iter().copied()).map(|(turns, _)| format!("{turns:.2}"))
        }),
        ("prompts holding the answer", |scores| {
            shares(scores.iter().copied()).map(|(_, answered)| format!("{answered:.2}"))
        }),
        ("prompt tokens, median / max", |scores| {
            (!scores.is_empty()).then(|| {
                let (median, max) =
                    median_and_max(scores.iter().map(|score| score.tokens).collect());
                format!("{median} / {max}")
            })
        }),
    ];
    for (label, metric) in metrics {
        for system in System::ALL {
            let _ = write!(out, "| {label}: {} |", system.label());
            for (run, language) in &columns {
                let scores: Vec<&Score> = runs[*run]
                    .scores_where(corpus, system, *language, None)
                    .collect();
                let _ = write!(
                    out,
                    " {} |",
                    metric(&scores).unwrap_or_else(|| "–".to_owned())
                );
            }
            let _ = writeln!(out);
        }
    }
    let _ = write!(out, "| changed facts: only the old value's turn, telemem |");
    for (run, language) in &columns {
        let stale = runs[*run]
            .scores_where(corpus, System::Telemem, *language, Some(Kind::Changed))
            .filter(|score| score.stale_only)
            .count();
        let _ = write!(out, " {stale} |");
    }
    let _ = writeln!(out, "\n");
}

fn kinds_table(out: &mut String, corpus: &Corpus, runs: &[SettingRun; 2]) {
    let _ = writeln!(
        out,
        "Per kind of question: share of answering turns in the prompt / share of prompts holding \
         the answer (questions per language: {}).\n",
        Kind::ALL
            .iter()
            .map(|kind| {
                let count = corpus
                    .questions
                    .iter()
                    .filter(|question| question.kind == *kind)
                    .count()
                    / corpus.languages().len();
                format!("{count} {}", kind.label())
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    header(out, corpus, runs, "kind");
    let columns = columns(corpus, runs);
    for kind in Kind::ALL {
        for system in System::ALL {
            let _ = write!(out, "| {}: {} |", kind.label(), system.label());
            for (run, language) in &columns {
                let cell = shares(runs[*run].scores_where(corpus, system, *language, Some(kind)))
                    .map_or_else(
                        || "–".to_owned(),
                        |(turns, answered)| format!("{turns:.2} / {answered:.2}"),
                    );
                let _ = write!(out, " {cell} |");
            }
            let _ = writeln!(out);
        }
    }
}

/// The questions telemem missed, a few per kind and setting, to show why.
fn print_misses(corpus: &Corpus, runs: &[SettingRun; 2]) {
    for run in runs {
        for kind in Kind::ALL {
            let missed: Vec<&Score> = run
                .scores_where(corpus, System::Telemem, None, Some(kind))
                .filter(|score| score.turns_found < score.turns_total)
                .collect();
            if missed.is_empty() {
                continue;
            }
            println!(
                "{}, telemem misses, {} ({}):",
                run.name,
                kind.label(),
                missed.len()
            );
            for score in missed.iter().take(MISSES_SHOWN) {
                let question = &corpus.questions[score.question];
                let needs: Vec<&str> = question
                    .answers
                    .iter()
                    .map(|&turn| corpus.turns[turn].text.as_str())
                    .collect();
                println!(
                    "  ({}) {:?} needs {needs:?}",
                    question.language, question.text
                );
            }
        }
    }
}
