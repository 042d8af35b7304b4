//! The LoCoMo memory evaluation (Maharana et al., "Evaluating Very Long-Term Conversational
//! Memory of LLM Agents", ACL 2024): real-style long conversations, each one person's history
//! with the bot, replayed two ways through the real pipeline, then every question of categories
//! 1–4 with evidence asked through `Conversations::preview_context` (what `telemem context`
//! prints) and the prompt scored.
//!
//! 1. **Told through the chat**: every turn is a message `"<speaker>: <text>"` from the person
//!    (`begin_turn`, then `finish_turn` with the reply "Okay.", as `telemem chat` finishes a
//!    turn), one LoCoMo session one telemem session (closed as `/reset` closes it), on a clock
//!    that moves three seconds a turn; the questions are asked three days later.
//! 2. **Imported with its dates**: a JSON Lines history (`telemem import --summarize`), each turn
//!    at its session's date and time plus 20 s a turn, `speaker_a` the person and `speaker_b` the
//!    assistant; the questions are asked on 2026-12-07.
//!
//! In both, the summarizer's model (a fake on 127.0.0.1) answers a summary request with that
//! session's `session_N_summary` (at most 600 characters) and no notes.
//!
//! Scores, per question kind (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop):
//! - evidence recall: the share of a question's evidence turns whose text (letters and digits,
//!   lower case, the first 48 characters) is in the prompt, averaged over questions;
//! - answer in prompt: the share of questions whose gold answer (same normalisation) is in it;
//! - dated evidence (temporal questions): of the evidence turns in the prompt, the share whose
//!   session date (YYYY-MM-DD) is in the prompt too.
//!
//! Beside telemem, held to the same number of tokens as telemem's memory part (the median over a
//! conversation's questions, four characters a token): BM25 top-k over the turns (k1 1.2,
//! b 0.75, English stop words dropped) and, with an embedding model, cosine top-k with the same
//! model, each taking the best turns until the budget is spent.
//!
//! Usage: `cargo run --profile eval --example locomo -- DATA.json [--rebuild] [--only chat|import]`
//! (`scripts/locomo-eval` starts the embedding model and runs this). With
//! `EVAL_EMBEDDING_BASE_URL`, `EVAL_EMBEDDING_MODEL` and `EVAL_EMBEDDING_PASSAGE_MODEL` the
//! replays embed with that model and telemem is measured with and without it; otherwise by
//! words alone. telemem's own settings come from the environment as in the bot
//! (`CONTEXT_TOKEN_BUDGET`, `RECALL_LIMIT`, …). The replayed databases are kept in
//! `target/locomo/<e5|words>/` and reused unless `--rebuild` (only the questions run again: what
//! ranking and assembly change is measured in seconds); the tables go to standard output and
//! `report.md` there, every question's result (with telemem's prompt where it missed evidence) to
//! `questions-<replay>-<setting>.jsonl`. The vectors the model gave are kept in
//! `target/locomo/vectors-<model>.json` and served again from a cache between telemem and the
//! model, so a text is embedded once across runs; while the conversations are told, a turn's own
//! prompt (never scored) gets its text's passage vector instead of a query vector, sparing the
//! model a call per turn.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use axum::Json;
use axum::extract::State;
use axum::routing::post;
use clap::Parser;
use serde_json::{Value, json};
use telemem::app::ChatServices;
use telemem::clock::{Clock, ManualClock};
use telemem::config::Config;
use telemem::import::Format;
use telemem::import::command::ImportArgs;
use telemem::llm::{ChatRequest, Completion};
use telemem::memory::meaning::cosine;
use telemem::storage::{ChatId, ConversationKey, UserId};

/// When the chat replay starts, and the "present" of the import replay's questions.
const CHAT_STARTS_MS: i64 = 1_790_000_000_000;
const PRESENT_MS: i64 = 1_796_601_600_000; // 2026-12-07 00:00 UTC
const TURN_GAP_CHAT_MS: i64 = 3_000;
const TURN_GAP_IMPORT_MS: i64 = 20_000;
const DAY_MS: i64 = 86_400_000;
const SUMMARY_MAX_CHARS: usize = 600;
const EVIDENCE_PREFIX_CHARS: usize = 48;
const K1: f64 = 1.2;
const B: f64 = 0.75;
const EN_STOP_WORDS: &str = include_str!("../src/memory/stop_words/en.txt");

#[derive(Parser)]
#[command(args_override_self = true)]
struct ConfigOnly {
    #[command(flatten)]
    config: Config,
}

struct Turn {
    id: String,
    /// `"<speaker>: <text>"`, with a shared photo's caption.
    line: String,
    text: String,
    at_ms: i64,
    session: usize,
    from_person: bool,
}

struct Question {
    text: String,
    answer: Option<String>,
    evidence: Vec<String>,
    category: u8,
}

struct Session {
    at_ms: i64,
    summary: Option<String>,
    turns: Vec<usize>,
}

struct Conversation {
    sample: String,
    user: i64,
    turns: Vec<Turn>,
    sessions: Vec<Session>,
    questions: Vec<Question>,
}

impl Conversation {
    fn key(&self) -> ConversationKey {
        ConversationKey::new(ChatId(self.user), UserId(self.user))
    }

    fn turn(&self, id: &str) -> Option<&Turn> {
        self.turns.iter().find(|turn| turn.id == id)
    }
}

fn parse_date(text: &str) -> anyhow::Result<i64> {
    let time = chrono::NaiveDateTime::parse_from_str(text.trim(), "%I:%M %p on %d %B, %Y")
        .with_context(|| format!("a session date: {text}"))?;
    Ok(time.and_utc().timestamp_millis())
}

fn load(path: &Path) -> anyhow::Result<Vec<Conversation>> {
    let data: Value = serde_json::from_slice(&std::fs::read(path)?)?;
    let mut conversations = Vec::new();
    for (index, item) in data.as_array().context("a JSON array")?.iter().enumerate() {
        // The release nests the turns in `conversation`; the development split has them flat.
        let conversation = if item["conversation"].is_object() {
            &item["conversation"]
        } else {
            item
        };
        let speaker_a = conversation["speaker_a"].as_str().unwrap_or("A").to_owned();
        let mut sessions = Vec::new();
        let mut turns = Vec::new();
        for number in 1..=64 {
            let Some(raw) = conversation[format!("session_{number}")].as_array() else {
                continue;
            };
            let date = conversation[format!("session_{number}_date_time")]
                .as_str()
                .unwrap_or_default();
            let at_ms = parse_date(date)?;
            let summary = item["session_summary"][format!("session_{number}_summary")]
                .as_str()
                .or_else(|| conversation[format!("session_{number}_summary")].as_str())
                .map(|s| s.chars().take(SUMMARY_MAX_CHARS).collect());
            let mut session = Session {
                at_ms,
                summary,
                turns: Vec::new(),
            };
            for (k, turn) in raw.iter().enumerate() {
                let speaker = turn["speaker"].as_str().unwrap_or_default();
                let text = turn["text"].as_str().unwrap_or_default().to_owned();
                let mut line = format!("{speaker}: {text}");
                if let Some(caption) = turn["blip_caption"].as_str() {
                    line.push_str(&format!(" [shares a photo: {caption}]"));
                }
                session.turns.push(turns.len());
                turns.push(Turn {
                    id: turn["dia_id"].as_str().unwrap_or_default().to_owned(),
                    line,
                    text,
                    at_ms: at_ms + TURN_GAP_IMPORT_MS * k as i64,
                    session: sessions.len(),
                    from_person: speaker == speaker_a,
                });
            }
            sessions.push(session);
        }
        let questions = item["qa"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|qa| {
                let category = qa["category"].as_u64()? as u8;
                let evidence: Vec<String> = qa["evidence"]
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_str)
                    .flat_map(|e| e.split([';', ' ']))
                    .map(|e| e.trim().to_owned())
                    .filter(|e| !e.is_empty())
                    .collect();
                if !(1..=4).contains(&category) || evidence.is_empty() {
                    return None;
                }
                let answer = match &qa["answer"] {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                Some(Question {
                    text: qa["question"].as_str()?.to_owned(),
                    answer,
                    evidence,
                    category,
                })
            })
            .collect();
        conversations.push(Conversation {
            sample: match &item["sample_id"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            user: 7_000 + index as i64,
            turns,
            sessions,
            questions,
        });
    }
    Ok(conversations)
}

/// The summarizer's fake model: a summary request gets the summary of the session whose turns
/// it quotes; anything else "Okay.".
#[derive(Clone)]
struct Summaries(Arc<Vec<(Vec<String>, String)>>);

impl Summaries {
    fn of(conversations: &[Conversation]) -> Self {
        let mut known = Vec::new();
        for conversation in conversations {
            for session in &conversation.sessions {
                let Some(summary) = &session.summary else {
                    continue;
                };
                let markers = session
                    .turns
                    .iter()
                    .map(|&t| normalized(&conversation.turns[t].text))
                    .filter(|text| text.chars().count() >= 24)
                    .map(|text| text.chars().take(40).collect())
                    .take(4)
                    .collect::<Vec<String>>();
                known.push((markers, summary.clone()));
            }
        }
        Self(Arc::new(known))
    }

    fn answer(&self, prompt: &str) -> String {
        let prompt = normalized(prompt);
        self.0
            .iter()
            .filter(|(markers, _)| !markers.is_empty())
            .find(|(markers, _)| markers.iter().all(|m| prompt.contains(m.as_str())))
            .map(|(_, summary)| summary.clone())
            .unwrap_or_else(|| "Okay.".to_owned())
    }
}

async fn completions(State(summaries): State<Summaries>, Json(body): Json<Value>) -> String {
    let prompt: String = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|m| m["content"].to_string())
        .collect();
    let text = summaries.answer(&prompt);
    if body["stream"].as_bool() == Some(true) {
        let chunk =
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]});
        return format!("data: {chunk}\n\ndata: [DONE]\n\n");
    }
    json!({
        "id": "locomo", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    })
    .to_string()
}

async fn start_fake_model(summaries: Summaries) -> anyhow::Result<String> {
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(summaries);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{address}/v1"))
}

type VectorsByText = HashMap<String, Vec<f32>>;

/// One vector per turn or question, per conversation.
type PerConversation = Vec<Vec<Vec<f32>>>;

/// The vectors the embedding server gave, by model and text, kept in `target/locomo/` between
/// runs: replaying the same texts never asks the model twice.
#[derive(Clone)]
struct VectorCache {
    upstream: Embedding,
    known: Arc<std::sync::Mutex<HashMap<String, VectorsByText>>>,
    /// While the conversations are told, a turn's own prompt (a query) is never scored: its
    /// text's passage vector stands in, sparing the model one call per turn.
    telling: Arc<std::sync::atomic::AtomicBool>,
}

impl VectorCache {
    fn path(model: &str) -> PathBuf {
        PathBuf::from(format!("target/locomo/vectors-{model}.json"))
    }

    fn load(upstream: Embedding) -> Self {
        let mut known = HashMap::new();
        for model in [&upstream.model, &upstream.passage_model] {
            let vectors: HashMap<String, Vec<f32>> = std::fs::read(Self::path(model))
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .unwrap_or_default();
            known.insert(model.clone(), vectors);
        }
        Self {
            upstream,
            known: Arc::new(std::sync::Mutex::new(known)),
            telling: Arc::default(),
        }
    }

    fn save(&self) -> anyhow::Result<()> {
        let known = self.known.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
        for (model, vectors) in known.iter() {
            std::fs::write(Self::path(model), serde_json::to_vec(vectors)?)?;
        }
        Ok(())
    }

    fn cached(&self, model: &str, text: &str) -> Option<Vec<f32>> {
        let known = self.known.lock().ok()?;
        if let Some(vector) = known.get(model).and_then(|m| m.get(text)) {
            return Some(vector.clone());
        }
        if self.telling.load(std::sync::atomic::Ordering::Relaxed) && model == self.upstream.model {
            return known
                .get(&self.upstream.passage_model)
                .and_then(|m| m.get(text))
                .cloned();
        }
        None
    }

    async fn vectors(&self, model: &str, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        let missing: Vec<String> = texts
            .iter()
            .filter(|text| self.cached(model, text).is_none())
            .cloned()
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        if !missing.is_empty() {
            let computed = self.upstream.ask_server(model, &missing).await?;
            let mut known = self.known.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
            known
                .entry(model.to_owned())
                .or_default()
                .extend(missing.into_iter().zip(computed));
        }
        texts
            .iter()
            .map(|text| self.cached(model, text).context("a vector"))
            .collect()
    }
}

async fn embeddings(State(cache): State<VectorCache>, Json(body): Json<Value>) -> String {
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let texts: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let vectors = cache.vectors(&model, &texts).await.unwrap_or_default();
    let data: Vec<Value> = vectors
        .into_iter()
        .enumerate()
        .map(|(index, embedding)| json!({"object": "embedding", "index": index, "embedding": embedding}))
        .collect();
    json!({"object": "list", "model": model, "data": data}).to_string()
}

async fn start_vector_cache(cache: VectorCache) -> anyhow::Result<String> {
    let app = axum::Router::new()
        .route("/v1/embeddings", post(embeddings))
        .with_state(cache);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{address}/v1"))
}

#[derive(Clone)]
struct Embedding {
    base_url: String,
    model: String,
    passage_model: String,
}

impl Embedding {
    fn from_environment() -> Option<Self> {
        let setting = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let base_url = setting("EVAL_EMBEDDING_BASE_URL")?;
        let model = setting("EVAL_EMBEDDING_MODEL")?;
        let passage_model = setting("EVAL_EMBEDDING_PASSAGE_MODEL").unwrap_or(model.clone());
        Some(Self {
            base_url,
            model,
            passage_model,
        })
    }

    async fn ask_server(&self, model: &str, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        let client = reqwest::Client::new();
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(32) {
            let answer: Value = client
                .post(format!("{}/embeddings", self.base_url))
                .json(&json!({"model": model, "input": batch}))
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            for item in answer["data"].as_array().context("embeddings")? {
                let vector = item["embedding"]
                    .as_array()
                    .context("a vector")?
                    .iter()
                    .map(|x| x.as_f64().unwrap_or(0.0) as f32)
                    .collect();
                vectors.push(vector);
            }
        }
        Ok(vectors)
    }
}

fn config(database: &Path, llm_url: &str, embedding: Option<&Embedding>) -> Config {
    let database = format!("sqlite://{}", database.display());
    let mut args: Vec<String> = [
        "telemem",
        "--database-url",
        &database,
        "--llm-base-url",
        llm_url,
        "--llm-max-retries",
        "0",
        "--purge-after-secs",
        "315360000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Some(embedding) = embedding {
        args.extend(
            [
                "--embedding-base-url",
                &embedding.base_url,
                "--embedding-model",
                &embedding.model,
                "--embedding-passage-model",
                &embedding.passage_model,
                "--embedding-timeout-ms",
                "20000",
            ]
            .map(str::to_owned),
        );
    }
    ConfigOnly::parse_from(args).config
}

async fn catch_up(services: &ChatServices) -> anyhow::Result<()> {
    loop {
        let report = services.summarizer.summarize_pending_once().await?;
        if report.summarized + report.extracted + report.empty == 0 || report.failed > 0 {
            break;
        }
    }
    if let Some(embedder) = &services.embedder {
        embedder.embed_waiting().await?;
    }
    Ok(())
}

/// Tells every conversation through the chat; returns when the questions are asked.
async fn replay_by_chat(conversations: &[Conversation], config: &Config) -> anyhow::Result<i64> {
    let clock = ManualClock::starting_at(CHAT_STARTS_MS);
    let services = ChatServices::build(config, Arc::new(clock.clone())).await?;
    if let Some(embedder) = &services.embedder {
        embedder.start().await?;
    }
    for conversation in conversations {
        eprintln!(
            "telling conversation {} through the chat",
            conversation.sample
        );
        for session in &conversation.sessions {
            for &turn in &session.turns {
                clock.advance_ms(TURN_GAP_CHAT_MS);
                let line = &conversation.turns[turn].line;
                let begun = services
                    .conversations
                    .begin_turn(conversation.key(), line, None)
                    .await?;
                let reply = Completion {
                    text: "Okay.".to_owned(),
                    tokens_in: None,
                    tokens_out: None,
                    tool_calls: Vec::new(),
                };
                services
                    .conversations
                    .finish_turn(&begun, &reply, None)
                    .await?;
            }
            clock.advance_ms(TURN_GAP_CHAT_MS);
            services
                .conversations
                .reset_session(conversation.key())
                .await?;
            catch_up(&services).await?;
        }
    }
    let asked_at = clock.now_ms() + 3 * DAY_MS;
    clock.set_ms(asked_at);
    catch_up(&services).await?;
    services.store.close().await;
    Ok(asked_at)
}

/// Imports every conversation with its dates; returns when the questions are asked.
async fn replay_by_import(
    conversations: &[Conversation],
    config: &Config,
    directory: &Path,
) -> anyhow::Result<i64> {
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::starting_at(PRESENT_MS));
    for conversation in conversations {
        let path = directory.join(format!("import-{}.jsonl", conversation.sample));
        let mut lines = String::new();
        for turn in &conversation.turns {
            let who = if turn.from_person {
                "user"
            } else {
                "assistant"
            };
            let line = json!({"time": turn.at_ms, "who": who, "text": turn.line});
            lines.push_str(&format!("{line}\n"));
        }
        std::fs::write(&path, lines)?;
        let args = ImportArgs {
            user: UserId(conversation.user),
            chat: None,
            format: Format::Jsonl,
            me: None,
            assistant: None,
            skip_old: false,
            dry_run: false,
            summarize: true,
            file: path,
        };
        telemem::import::command::run(config, Arc::clone(&clock), args).await?;
    }
    Ok(PRESENT_MS)
}

/// Letters and digits of `text`, lower case.
fn normalized(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn evidence_key(text: &str) -> String {
    normalized(text)
        .chars()
        .take(EVIDENCE_PREFIX_CHARS)
        .collect()
}

fn prompt_text(request: &ChatRequest) -> String {
    let mut text = request.system.clone();
    for message in &request.messages {
        text.push('\n');
        text.push_str(&message.content);
    }
    text
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum System {
    Telemem,
    Bm25,
    Cosine,
}

impl System {
    fn label(self) -> &'static str {
        match self {
            System::Telemem => "telemem",
            System::Bm25 => "BM25 top-k",
            System::Cosine => "cosine top-k",
        }
    }
}

#[derive(Clone, Debug)]
struct Score {
    category: u8,
    recall: f64,
    answered: bool,
    /// Temporal questions: evidence turns in the prompt, and those of them with their date.
    evidence_in_prompt: usize,
    dated: usize,
    memory_tokens: usize,
    total_tokens: usize,
}

fn score(
    conversations: &[Conversation],
    (c, q): (usize, usize),
    prompt: &str,
    tokens: (usize, usize),
) -> Score {
    let conversation = &conversations[c];
    let question = &conversation.questions[q];
    let normal = normalized(prompt);
    let turns: Vec<&Turn> = question
        .evidence
        .iter()
        .filter_map(|id| conversation.turn(id))
        .collect();
    let found: Vec<&&Turn> = turns
        .iter()
        .filter(|turn| normal.contains(&evidence_key(&turn.text)))
        .collect();
    let dated = found
        .iter()
        .filter(|turn| {
            let day = conversation.sessions[turn.session].at_ms;
            prompt.contains(&format_day(day))
        })
        .count();
    Score {
        category: question.category,
        recall: if turns.is_empty() {
            0.0
        } else {
            found.len() as f64 / turns.len() as f64
        },
        answered: question
            .answer
            .as_deref()
            .map(normalized)
            .is_some_and(|answer| !answer.is_empty() && normal.contains(&answer)),
        evidence_in_prompt: found.len(),
        dated,
        memory_tokens: tokens.0,
        total_tokens: tokens.1,
    }
}

fn format_day(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

fn median(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// Four characters a token, as the baselines are held to.
fn tokens_of(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

struct Bm25 {
    documents: Vec<HashMap<String, usize>>,
    lengths: Vec<usize>,
    frequencies: HashMap<String, usize>,
    average: f64,
}

impl Bm25 {
    fn new(texts: &[&str]) -> Self {
        let mut documents = Vec::new();
        let mut lengths = Vec::new();
        let mut frequencies: HashMap<String, usize> = HashMap::new();
        for text in texts {
            let words = words(text);
            lengths.push(words.len());
            let mut counts: HashMap<String, usize> = HashMap::new();
            for word in words {
                *counts.entry(word).or_default() += 1;
            }
            for word in counts.keys() {
                *frequencies.entry(word.clone()).or_default() += 1;
            }
            documents.push(counts);
        }
        let average = lengths.iter().sum::<usize>() as f64 / lengths.len().max(1) as f64;
        Self {
            documents,
            lengths,
            frequencies,
            average,
        }
    }

    fn ranking(&self, query: &str) -> Vec<usize> {
        let stop: HashSet<&str> = EN_STOP_WORDS.lines().map(str::trim).collect();
        let terms: HashSet<String> = words(query)
            .into_iter()
            .filter(|w| !stop.contains(w.as_str()))
            .collect();
        let total = self.documents.len() as f64;
        let mut scored: Vec<(f64, usize)> = self
            .documents
            .iter()
            .enumerate()
            .map(|(index, counts)| {
                let norm = 1.0 - B + B * self.lengths[index] as f64 / self.average;
                let score = terms
                    .iter()
                    .filter_map(|term| {
                        let count = *counts.get(term)? as f64;
                        let holding = self.frequencies[term] as f64;
                        let idf = ((total - holding + 0.5) / (holding + 0.5) + 1.0).ln();
                        Some(idf * count * (K1 + 1.0) / (count + K1 * norm))
                    })
                    .sum::<f64>();
                (score, index)
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.into_iter().map(|(_, index)| index).collect()
    }
}

/// The prompt of the best turns of `ranking` while they fit in `budget`, with their dates.
fn baseline_prompt(conversation: &Conversation, ranking: &[usize], budget: usize) -> String {
    let mut used = 0;
    let mut prompt = String::new();
    for &index in ranking {
        let turn = &conversation.turns[index];
        let line = format!("[{}] {}\n", format_day(turn.at_ms), turn.line);
        let cost = tokens_of(&turn.line);
        if used + cost > budget {
            break;
        }
        used += cost;
        prompt.push_str(&line);
    }
    prompt
}

struct Setting {
    replay: &'static str,
    name: &'static str,
    scores: HashMap<System, Vec<Score>>,
}

async fn ask(
    conversations: &[Conversation],
    config: &Config,
    asked_at: i64,
    out: &Path,
    setting: (&'static str, &'static str),
    query_vectors: Option<&(PerConversation, PerConversation)>,
) -> anyhow::Result<Setting> {
    let clock = ManualClock::starting_at(asked_at);
    let services = ChatServices::build(config, Arc::new(clock)).await?;
    let mut scores: HashMap<System, Vec<Score>> = HashMap::new();
    let mut dump = String::new();
    for (c, conversation) in conversations.iter().enumerate() {
        let mut telemem = Vec::new();
        let mut prompts = Vec::new();
        for (q, question) in conversation.questions.iter().enumerate() {
            let context = services
                .conversations
                .preview_context(conversation.key(), &question.text)
                .await?;
            let prompt = prompt_text(&context.request);
            let result = score(
                conversations,
                (c, q),
                &prompt,
                (context.memory_tokens, context.total_tokens),
            );
            prompts.push(prompt);
            telemem.push(result);
        }
        let budget = median(telemem.iter().map(|s| s.memory_tokens).collect());
        let texts: Vec<&str> = conversation.turns.iter().map(|t| t.line.as_str()).collect();
        let bm25 = Bm25::new(&texts);
        for (q, question) in conversation.questions.iter().enumerate() {
            let ranking = bm25.ranking(&question.text);
            let prompt = baseline_prompt(conversation, &ranking, budget);
            let bm25_score = score(conversations, (c, q), &prompt, (budget, budget));
            let mut line = json!({
                "sample": conversation.sample, "question": question.text,
                "category": question.category, "evidence": question.evidence,
                "answer": question.answer,
                "telemem": telemem[q].recall, "bm25": bm25_score.recall,
                "memory_tokens": telemem[q].memory_tokens,
            });
            if let Some((turn_vectors, question_vectors)) = query_vectors {
                let query = &question_vectors[c][q];
                let mut ranked: Vec<(f64, usize)> = turn_vectors[c]
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (cosine(query, v), i))
                    .collect();
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
                let ranking: Vec<usize> = ranked.into_iter().map(|(_, i)| i).collect();
                let prompt = baseline_prompt(conversation, &ranking, budget);
                let cosine_score = score(conversations, (c, q), &prompt, (budget, budget));
                line["cosine"] = json!(cosine_score.recall);
                scores.entry(System::Cosine).or_default().push(cosine_score);
            }
            if telemem[q].recall < 1.0 {
                line["prompt"] = json!(prompts[q]);
            }
            dump.push_str(&format!("{line}\n"));
            scores.entry(System::Bm25).or_default().push(bm25_score);
        }
        scores.entry(System::Telemem).or_default().extend(telemem);
    }
    services.store.close().await;
    std::fs::write(
        out.join(format!("questions-{}-{}.jsonl", setting.0, setting.1)),
        dump,
    )?;
    Ok(Setting {
        replay: setting.0,
        name: setting.1,
        scores,
    })
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

fn report(settings: &[Setting]) -> String {
    let mut out = String::from(
        "| replay | setting | system | evidence recall | multi-hop | temporal | open-domain | single-hop | answer in prompt | dated evidence (temporal) | memory tokens (median) | prompt tokens (median) |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for setting in settings {
        let mut systems: Vec<&System> = setting.scores.keys().collect();
        systems.sort();
        for system in systems {
            let scores = &setting.scores[system];
            let kind = |k: u8| mean(scores.iter().filter(|s| s.category == k).map(|s| s.recall));
            let temporal: Vec<&Score> = scores.iter().filter(|s| s.category == 2).collect();
            let found: usize = temporal.iter().map(|s| s.evidence_in_prompt).sum();
            let dated: usize = temporal.iter().map(|s| s.dated).sum();
            out.push_str(&format!(
                "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} |\n",
                setting.replay,
                setting.name,
                system.label(),
                mean(scores.iter().map(|s| s.recall)),
                kind(1),
                kind(2),
                kind(3),
                kind(4),
                mean(scores.iter().map(|s| f64::from(u8::from(s.answered)))),
                dated as f64 / found.max(1) as f64,
                median(scores.iter().map(|s| s.memory_tokens).collect()),
                median(scores.iter().map(|s| s.total_tokens).collect()),
            ));
        }
    }
    out
}

/// The vectors of every turn (as passages) and question (as queries), per conversation.
async fn baseline_vectors(
    conversations: &[Conversation],
    cache: &VectorCache,
) -> anyhow::Result<(PerConversation, PerConversation)> {
    let embedding = &cache.upstream;
    let mut turns = Vec::new();
    let mut questions = Vec::new();
    for conversation in conversations {
        let lines: Vec<String> = conversation.turns.iter().map(|t| t.line.clone()).collect();
        turns.push(cache.vectors(&embedding.passage_model, &lines).await?);
        let asked: Vec<String> = conversation
            .questions
            .iter()
            .map(|q| q.text.clone())
            .collect();
        questions.push(cache.vectors(&embedding.model, &asked).await?);
    }
    Ok((turns, questions))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let data = args
        .iter()
        .find(|a| !a.starts_with("--") && Path::new(a).exists())
        .context("usage: locomo DATA.json [--rebuild] [--only chat|import]")?;
    let rebuild = args.iter().any(|a| a == "--rebuild");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let conversations = load(Path::new(data))?;
    let turns: usize = conversations.iter().map(|c| c.turns.len()).sum();
    let questions: usize = conversations.iter().map(|c| c.questions.len()).sum();
    eprintln!(
        "{} conversations, {turns} turns, {questions} questions of categories 1-4 with evidence",
        conversations.len()
    );
    let embedding = Embedding::from_environment();
    let out = PathBuf::from("target/locomo").join(if embedding.is_some() { "e5" } else { "words" });
    std::fs::create_dir_all(&out)?;
    let llm_url = start_fake_model(Summaries::of(&conversations)).await?;
    let cache = embedding.clone().map(VectorCache::load);
    let vectors = match &cache {
        Some(cache) => Some(baseline_vectors(&conversations, cache).await?),
        None => None,
    };
    // telemem asks the cache, which asks the model only for texts it has not seen.
    let embedding = match &cache {
        Some(cache) => Some(Embedding {
            base_url: start_vector_cache(cache.clone()).await?,
            ..cache.upstream.clone()
        }),
        None => None,
    };
    let mut settings = Vec::new();
    for replay in ["chat", "import"] {
        if only.as_deref().is_some_and(|o| o != replay) {
            continue;
        }
        let database = out.join(format!("{replay}.db"));
        let asked_file = out.join(format!("{replay}.asked_at"));
        let build_config = config(&database, &llm_url, embedding.as_ref());
        if rebuild || !database.exists() || !asked_file.exists() {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", database.display()));
            }
            if let Some(cache) = &cache {
                cache
                    .telling
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let asked_at = if replay == "chat" {
                replay_by_chat(&conversations, &build_config).await?
            } else {
                replay_by_import(&conversations, &build_config, &out).await?
            };
            if let Some(cache) = &cache {
                cache
                    .telling
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                cache.save()?;
            }
            std::fs::write(&asked_file, asked_at.to_string())?;
        }
        let asked_at: i64 = std::fs::read_to_string(&asked_file)?.trim().parse()?;
        if embedding.is_some() {
            settings.push(
                ask(
                    &conversations,
                    &build_config,
                    asked_at,
                    &out,
                    (replay, "e5"),
                    vectors.as_ref(),
                )
                .await?,
            );
        }
        let words_config = config(&database, &llm_url, None);
        settings.push(
            ask(
                &conversations,
                &words_config,
                asked_at,
                &out,
                (replay, "words"),
                None,
            )
            .await?,
        );
    }
    if let Some(cache) = &cache {
        cache.save()?;
    }
    let table = report(&settings);
    println!("{table}");
    std::fs::write(out.join("report.md"), &table)?;
    Ok(())
}
