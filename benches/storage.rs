//! Storage benchmarks (`cargo bench --bench storage`).
//!
//! 1. `chat_turn`: one chat turn (store the user's message, read the history, store the reply) on
//!    a database preloaded with 1,000 users and 1,000,000 messages spread over 40 days, all in
//!    the full-text index (new ones are indexed in the background, as in the bot). Criterion
//!    measures the mean; a second pass of 20,000 turns one after
//!    the other prints turns/s, p50 and p99, and a third pass runs 10,000 turns of four
//!    conversations at once, as the bot does with several users. Two more passes make the
//!    storage calls of the bot's own turn (`bot_turn`: one read at turn start, the user's message
//!    and the reply through the store's write combining, the delivery record), one after the
//!    other and with 16 conversations at once.
//! 2. `purge`: deleting the 250,000 rows older than 30 days of that database while a writer keeps
//!    running chat turns; prints the purge's duration and the writer's longest wait.
//!
//! 3. `recall_by_meaning`: the search by meaning of one conversation with 10,000 embedded
//!    messages (384 dimensions, as all-MiniLM-L6-v2), in a database where 9 other people have as
//!    many: the query the turn adds when an embedding model is configured, the embedding server's
//!    answer aside. Criterion measures the mean; a second pass prints p50 and p99.
//!
//! 4. `recall_by_words`: the full-text search recall makes for one turn (`Store::search_messages`
//!    with the terms `memory::recall` builds, 15 candidates, below the raw window) in a database
//!    of 10,000 people with 200 messages each, 2,000,000 messages all indexed, in which every
//!    message shares most of its words with everyone's. Criterion measures the mean for one
//!    person; a second pass prints p50 and p99 of 2,000 searches by people picked across all.
//!
//! The preloaded databases is built once into `target/bench-data/` and copied for each benchmark.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use telemem::memory::meaning::quantize;
use telemem::memory::recall::{QueryVector, RecallQuery, Remembered, recall_terms, recall_with};
use telemem::storage::{
    ChatId, ConversationKey, MemoryVector, NewMessage, Role, SearchTerm, Store, TurnStartLimits,
    UserId, VectorSource,
};
use tokio::runtime::Runtime;

const USERS: i64 = 1_000;
const MESSAGES: i64 = 1_000_000;
const DAYS: i64 = 40;
const DAY_MS: i64 = 24 * 3_600 * 1_000;
/// 2026-10-21 00:00 UTC: the preloaded messages run from here to `NOW_MS`.
const START_MS: i64 = 1_792_540_800_000;
const NOW_MS: i64 = START_MS + DAYS * DAY_MS;
const HISTORY_LIMIT: i64 = 30;
const PURGE_BATCH: i64 = 200;
/// Conversations taking turns at the same time in the concurrent pass of `chat_turn`.
const CONCURRENT_CONVERSATIONS: i64 = 4;

/// Whether the benchmark `name` was asked for: `cargo bench --bench storage -- FILTER` runs only
/// those whose name contains FILTER, and skips the others' set-up (preloading, extra passes) too.
fn selected(name: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|argument| !argument.starts_with('-'))
        .collect();
    filters.is_empty() || filters.iter().any(|filter| name.contains(filter.as_str()))
}

fn bench_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-data")
}

/// Builds the preloaded database once (about a minute) and returns its path.
async fn preloaded_database() -> PathBuf {
    let dir = bench_data_dir();
    let path = dir.join("preloaded-v4.db");
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("bench data directory");
    let building = dir.join("building.db");
    let _ = std::fs::remove_file(&building);
    let url = format!("sqlite://{}", building.display());
    let store = Store::connect(&url).await.expect("open bench database");
    store.migrate().await.expect("migrate bench database");
    store.close().await;
    let pool = sqlx::SqlitePool::connect(&url)
        .await
        .expect("open bench database");
    let started = Instant::now();
    // One session per user and day: id = day * USERS + user + 1.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 * ?2 - 1)
         INSERT INTO sessions (id, chat_id, user_id, started_at, last_activity_at, closed_at)
         SELECT i + 1, i % ?1, i % ?1, ?3 + (i / ?1) * ?4, ?3 + (i / ?1 + 1) * ?4 - 1,
                ?3 + (i / ?1 + 1) * ?4 - 1
         FROM n",
    )
    .bind(USERS)
    .bind(DAYS)
    .bind(START_MS)
    .bind(DAY_MS)
    .execute(&pool)
    .await
    .expect("preload sessions");
    // Messages alternate user/assistant, evenly spread over the 40 days, round-robin over users.
    let spacing_ms = DAYS * DAY_MS / MESSAGES;
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at,
                               tokens_in, tokens_out)
         SELECT i % ?2, i % ?2, ((?3 + i * ?4 - ?3) / ?5) * ?2 + i % ?2 + 1,
                CASE WHEN (i / ?2) % 2 = 0 THEN 'user' ELSE 'assistant' END,
                printf('Message %d: what about order %d and parcel %d from supplier %d? '
                       || 'Tracking %x says delivery on day %d.', i, i % 9973, i % 7919,
                       i % 113, i * 2654435761 % 4294967296, i % 28 + 1),
                ?3 + i * ?4, 40, 60
         FROM n",
    )
    .bind(MESSAGES)
    .bind(USERS)
    .bind(START_MS)
    .bind(spacing_ms)
    .bind(DAY_MS)
    .execute(&pool)
    .await
    .expect("preload messages");
    // The store indexes messages in batches; the preload, stored behind its back, all at once.
    let store = Store::connect(&url).await.expect("open bench database");
    store
        .index_pending_messages()
        .await
        .expect("index the preloaded messages");
    store.close().await;
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&pool)
        .await
        .expect("checkpoint");
    pool.close().await;
    std::fs::rename(&building, &path).expect("keep the preloaded database");
    eprintln!("preloaded {MESSAGES} messages in {:.1?}", started.elapsed());
    path
}

/// A fresh copy of the preloaded database, opened as the application opens it.
async fn fresh_copy(name: &str) -> Store {
    let source = preloaded_database().await;
    let target = bench_data_dir().join(format!("{name}.db"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", target.display()));
    }
    std::fs::copy(&source, &target).expect("copy the preloaded database");
    let store = Store::connect(&format!("sqlite://{}", target.display()))
        .await
        .expect("open copy");
    store.migrate().await.expect("migrate copy");
    store
}

/// What turn number `turn` writes: a user of the preloaded database, a question and an answer.
struct TurnMessages {
    key: ConversationKey,
    now: i64,
    /// The user's open session in the preloaded database.
    session_id: i64,
    question: String,
    telegram_message_id: i64,
}

impl TurnMessages {
    fn new(turn: i64) -> Self {
        let user = turn * 7_919 % USERS;
        Self {
            key: ConversationKey::new(ChatId(user), UserId(user)),
            now: NOW_MS + turn,
            session_id: (DAYS - 1) * USERS + user + 1,
            question: format!("Turn {turn}: should arrive Wednesday, can you check the parcel?"),
            telegram_message_id: turn,
        }
    }

    fn question(&self, session_id: i64) -> NewMessage<'_> {
        NewMessage {
            key: self.key,
            session_id,
            role: Role::User,
            content: &self.question,
            created_at_ms: self.now,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id: Some(self.telegram_message_id),
        }
    }

    fn answer(&self, session_id: i64) -> NewMessage<'static> {
        NewMessage {
            key: self.key,
            session_id,
            role: Role::Assistant,
            content: "It left the depot this morning; UPS expects delivery on Wednesday by noon.",
            created_at_ms: self.now,
            tokens_in: 900,
            tokens_out: 40,
            telegram_message_id: None,
        }
    }
}

/// One chat turn as the issue defines it: store the user's message, read the history, store the
/// reply.
async fn chat_turn(store: &Store, turn: i64) -> Result<(), sqlx::Error> {
    let turn = TurnMessages::new(turn);
    store.add_message(&turn.question(turn.session_id)).await?;
    let history = store
        .history(turn.key, turn.now - DAY_MS, HISTORY_LIMIT)
        .await?;
    assert!(!history.is_empty());
    store.add_message(&turn.answer(turn.session_id)).await?;
    Ok(())
}

/// One chat turn with the storage calls the bot makes (`Conversations::begin_turn`,
/// `finish_turn`, `reply_delivered`).
async fn bot_turn(store: &Store, turn: i64) -> Result<(), sqlx::Error> {
    let turn = TurnMessages::new(turn);
    let start = store
        .turn_start(
            turn.key,
            TurnStartLimits {
                summaries_since_ms: turn.now - 7 * DAY_MS,
                summary_count: 3,
                history_since_ms: turn.now - DAY_MS,
                history_max_messages: HISTORY_LIMIT,
            },
        )
        .await?;
    let session_id = start.open_session.map_or(turn.session_id, |open| open.id);
    store
        .add_user_message_once(&turn.question(session_id))
        .await?;
    let reply_id = store.add_reply(&turn.answer(session_id), None).await?;
    store
        .set_telegram_message_id(reply_id, turn.telegram_message_id)
        .await
}

/// Runs `turns` turns of `conversations` conversations at once, each conversation's turns one
/// after the other, and reports turns/s and latencies.
async fn run_turns<F, Fut>(
    store: &Store,
    label: &str,
    conversations: i64,
    turns: i64,
    first_turn: i64,
    turn: F,
) -> String
where
    F: Fn(Store, i64) -> Fut + Copy + Send + 'static,
    Fut: std::future::Future<Output = Result<(), sqlx::Error>> + Send,
{
    let per_conversation = turns / conversations;
    let started = Instant::now();
    let tasks: Vec<_> = (0..conversations)
        .map(|conversation| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(per_conversation as usize);
                for index in 0..per_conversation {
                    let number = first_turn + index * conversations + conversation;
                    let begun = Instant::now();
                    turn(store.clone(), number).await.expect("chat turn");
                    latencies.push(begun.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("turn task"));
    }
    let elapsed = started.elapsed();
    latencies.sort();
    format!(
        "{label}, {conversations} at once: {} turns in {elapsed:.2?} = {:.0} turns/s, p50 {:?}, p99 {:?}, max {:?}",
        latencies.len(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1],
    )
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index]
}

fn chat_turn_benchmark(criterion: &mut Criterion) {
    if !selected("chat_turn") {
        return;
    }
    let runtime = Runtime::new().expect("tokio runtime");
    let store = runtime.block_on(fresh_copy("chat-turn"));
    let mut turn = 0_i64;
    criterion.bench_function("chat_turn", |bencher| {
        bencher.to_async(&runtime).iter(|| {
            turn += 1;
            let store = store.clone();
            async move { chat_turn(&store, turn).await.expect("chat turn") }
        })
    });

    // One after the other, then several conversations at once as the bot runs them: the
    // database threads then have the next statement waiting instead of sleeping in between.
    for (conversations, turns, first_turn) in [
        (1, 20_000, 1_000_000),
        (CONCURRENT_CONVERSATIONS, 10_000, 3_000_000),
    ] {
        let report = runtime.block_on(run_turns(
            &store,
            "chat_turn",
            conversations,
            turns,
            first_turn,
            |store, turn| async move { chat_turn(&store, turn).await },
        ));
        println!("{report}");
    }
    for conversations in [1, 16] {
        let report = runtime.block_on(run_turns(
            &store,
            "bot_turn",
            conversations,
            10_000,
            4_000_000 + conversations * 100_000,
            |store, turn| async move { bot_turn(&store, turn).await },
        ));
        println!("{report}");
    }
    runtime.block_on(store.close());
}

fn purge_benchmark(_criterion: &mut Criterion) {
    if !selected("purge") {
        return;
    }
    let runtime = Runtime::new().expect("tokio runtime");
    let report = runtime.block_on(async {
        let store = fresh_copy("purge").await;
        let cutoff = NOW_MS - 30 * DAY_MS;
        let purgeable = store.count_purgeable(cutoff).await.expect("count");
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let store = store.clone();
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut waits = Vec::new();
                let mut turn = 0;
                while !stop.load(Ordering::Relaxed) {
                    let begun = Instant::now();
                    chat_turn(&store, 2_000_000 + turn).await.expect("chat turn during purge");
                    waits.push(begun.elapsed());
                    turn += 1;
                }
                waits
            })
        };
        let started = Instant::now();
        let counts = store.purge_older_than(cutoff, PURGE_BATCH).await.expect("purge");
        let purge_time = started.elapsed();
        stop.store(true, Ordering::Relaxed);
        let mut waits = writer.await.expect("writer");
        waits.sort();
        assert_eq!(counts.messages, purgeable.messages);
        format!(
            "purge: {} messages + {} sessions in {purge_time:.2?} (batch {PURGE_BATCH}) while a writer ran {} turns; \
             writer turn p50 {:?}, p99 {:?}, longest {:?}",
            counts.messages,
            counts.sessions,
            waits.len(),
            percentile(&waits, 0.50),
            percentile(&waits, 0.99),
            waits[waits.len() - 1],
        )
    });
    println!("{report}");
}

/// Messages (and vectors) per conversation, and conversations, in `recall_by_meaning`.
const MEANING_MESSAGES: i64 = 10_000;
/// Older messages a turn recalls at most: `RECALL_LIMIT`'s default.
const DEFAULT_RECALL_LIMIT: i32 = 30;
const MEANING_CONVERSATIONS: i64 = 10;
const MEANING_DIMENSIONS: usize = 384;

/// The words the messages of `recall_by_meaning` and `recall_turn` are about.
const MEANING_TOPICS: [&str; 50] = [
    "parcel",
    "delivery",
    "garden",
    "kitchen",
    "holiday",
    "train",
    "doctor",
    "invoice",
    "school",
    "concert",
    "recipe",
    "bicycle",
    "weather",
    "meeting",
    "birthday",
    "insurance",
    "flat",
    "car",
    "museum",
    "football",
    "tax",
    "dentist",
    "printer",
    "laptop",
    "budget",
    "wedding",
    "flight",
    "hotel",
    "plumber",
    "painting",
    "novel",
    "piano",
    "salary",
    "vaccine",
    "passport",
    "market",
    "coffee",
    "cinema",
    "harbour",
    "library",
    "bakery",
    "tennis",
    "camera",
    "ticket",
    "bridge",
    "forest",
    "river",
    "island",
    "jacket",
    "lantern",
];

/// A deterministic pseudo-random vector (SplitMix64), as an embedding model's output.
fn pseudo_embedding(seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..MEANING_DIMENSIONS)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) % 2_000) as f32 / 1_000.0 - 1.0
        })
        .collect()
}

/// A fresh database with `MEANING_CONVERSATIONS` conversations of `MEANING_MESSAGES` embedded
/// messages each.
async fn embedded_conversations() -> Store {
    let path = bench_data_dir().join("meaning.db");
    std::fs::create_dir_all(bench_data_dir()).expect("bench data directory");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let url = format!("sqlite://{}", path.display());
    let store = Store::connect(&url).await.expect("open bench database");
    store.migrate().await.expect("migrate bench database");
    store.use_embedding_model("bench").await.expect("model");
    for user in 0..MEANING_CONVERSATIONS {
        let key = ConversationKey::new(ChatId(user), UserId(user));
        let (session, _) = store.start_session(key, START_MS).await.expect("session");
        let session_id = session.id;
        let mut vectors = Vec::new();
        for index in 0..MEANING_MESSAGES {
            // Each topic word in one message of 25, as words spread in a real conversation
            // (a word in every message would make every search read them all).
            let content = format!(
                "Message {index} of person {user} about the {} and the {}",
                MEANING_TOPICS[(index % 50) as usize],
                MEANING_TOPICS[((index * 7 + 3) % 50) as usize]
            );
            let message = NewMessage {
                key,
                session_id,
                role: Role::User,
                content: &content,
                created_at_ms: START_MS + index * 60_000,
                tokens_in: 0,
                tokens_out: 0,
                telegram_message_id: None,
            };
            let id = store.add_message(&message).await.expect("message");
            vectors.push(MemoryVector {
                source: VectorSource::Message,
                source_id: id,
                text: String::new(),
                vector: quantize(&pseudo_embedding((user * MEANING_MESSAGES + index) as u64)),
            });
        }
        for batch in vectors.chunks(1_000) {
            store.store_vectors(batch, None).await.expect("vectors");
        }
    }
    store
}

fn recall_by_meaning_benchmark(criterion: &mut Criterion) {
    if !selected("recall_by_meaning") {
        return;
    }
    let runtime = Runtime::new().expect("tokio runtime");
    let store = runtime.block_on(embedded_conversations());
    let key = ConversationKey::new(ChatId(3), UserId(3));
    let query = quantize(&pseudo_embedding(u64::MAX));
    let search = || async {
        store
            .nearest_messages(key, &query, i64::MAX, 15)
            .await
            .expect("search by meaning")
    };
    // The first search reads the conversation's vectors into memory; the others rank those.
    let started = Instant::now();
    assert_eq!(runtime.block_on(search()).len(), 15);
    println!(
        "recall_by_meaning: the first search, reading the vectors: {:?}",
        started.elapsed()
    );
    criterion.bench_function("recall_by_meaning_10k", |bencher| {
        bencher.to_async(&runtime).iter(search);
    });
    let mut times: Vec<Duration> = (0..500)
        .map(|_| {
            let started = Instant::now();
            runtime.block_on(search());
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "recall_by_meaning: {MEANING_MESSAGES} vectors of {MEANING_DIMENSIONS} dimensions in the \
         conversation, {MEANING_CONVERSATIONS} conversations: p50 {:?}, p99 {:?}",
        percentile(&times, 0.50),
        percentile(&times, 0.99)
    );
    runtime.block_on(store.close());
}

/// A turn's whole recall with an embedding model (the embedding server's answer aside): the
/// search by words, by meaning (messages, summaries, notes), the summaries read and the
/// ranking on one scale, among one conversation's 10,000 embedded and indexed messages.
fn recall_turn_benchmark(criterion: &mut Criterion) {
    if !selected("recall_turn") {
        return;
    }
    let runtime = Runtime::new().expect("tokio runtime");
    let store = runtime.block_on(async {
        let store = embedded_conversations().await;
        store.index_pending_messages().await.expect("index");
        store
    });
    let key = ConversationKey::new(ChatId(3), UserId(3));
    // As in a turn, whose new message is the newest: the search looks below it.
    let newest = runtime.block_on(store.all_messages(key)).expect("messages");
    let before_id = newest.last().map_or(i64::MAX, |message| message.id + 1);
    let vector = quantize(&pseudo_embedding(u64::MAX));
    let text = "Did the supplier send the parcel tracking and the delivery day?";
    let query = RecallQuery {
        key,
        text,
        masked_text: text,
        now_ms: START_MS + MEANING_MESSAGES * 60_000,
        history: &[],
        before_id,
        limit: i64::from(DEFAULT_RECALL_LIMIT),
        path: "turn",
    };
    let recall = || async {
        let vector = std::future::ready(Some(QueryVector {
            vector: vector.clone(),
            floor: -1.0,
        }));
        recall_with(&store, vector, &query, Remembered::default())
            .await
            .expect("recall")
    };
    assert!(!runtime.block_on(recall()).ranked.is_empty());
    criterion.bench_function("recall_turn_10k", |bencher| {
        bencher.to_async(&runtime).iter(recall);
    });
    let mut times: Vec<Duration> = (0..500)
        .map(|_| {
            let started = Instant::now();
            runtime.block_on(recall());
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "recall_turn: {MEANING_MESSAGES} embedded messages in the conversation, \
         {MEANING_CONVERSATIONS} conversations: p50 {:?}, p99 {:?}",
        percentile(&times, 0.50),
        percentile(&times, 0.99)
    );
    runtime.block_on(store.close());
}

/// People and their messages in `recall_by_words`.
const RECALL_USERS: i64 = 10_000;
const RECALL_MESSAGES: i64 = 2_000_000;
/// Messages recall leaves to the raw history: the search looks below the newest 30.
const RAW_WINDOW: i64 = 30;

/// Builds the database of `recall_by_words` once (a few minutes) and returns its path.
async fn recall_database() -> PathBuf {
    let dir = bench_data_dir();
    let path = dir.join("recall-v2.db");
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("bench data directory");
    let building = dir.join("building-recall.db");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", building.display()));
    }
    let url = format!("sqlite://{}", building.display());
    let store = Store::connect(&url).await.expect("open bench database");
    store.migrate().await.expect("migrate bench database");
    store.close().await;
    let pool = sqlx::SqlitePool::connect(&url)
        .await
        .expect("open bench database");
    let started = Instant::now();
    // One session per person (id = user + 1); messages round-robin over people, user and
    // assistant in turn, each person's in turn one of the same four sentences as everyone's,
    // with numbers of their own.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO sessions (id, chat_id, user_id, started_at, last_activity_at)
         SELECT i + 1, i, i, ?2, ?2 FROM n",
    )
    .bind(RECALL_USERS)
    .bind(START_MS)
    .execute(&pool)
    .await
    .expect("preload sessions");
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at,
                               tokens_in, tokens_out)
         SELECT i % ?2, i % ?2, i % ?2 + 1,
                CASE WHEN (i / ?2) % 2 = 0 THEN 'user' ELSE 'assistant' END,
                CASE (i / ?2) % 4
                    WHEN 0 THEN printf('Can you check the parcel %d from supplier %d? '
                                       || 'The tracking says delivery on day %d.',
                                       i % 7919, i % 113, i % 28 + 1)
                    WHEN 1 THEN printf('The parcel left the depot; the supplier expects '
                                       || 'delivery by Wednesday, order %d.', i % 9973)
                    WHEN 2 THEN printf('Remind me about the dentist appointment at %d, '
                                       || 'and the invoice %x for the plumber.',
                                       i % 24, i * 2654435761 % 4294967296)
                    ELSE printf('My sister visits on day %d; we cook dinner and watch '
                                || 'the football match.', i % 28 + 1)
                END,
                ?3 + i * 1000, 40, 60
         FROM n",
    )
    .bind(RECALL_MESSAGES)
    .bind(RECALL_USERS)
    .bind(START_MS)
    .execute(&pool)
    .await
    .expect("preload messages");
    let store = Store::connect(&url).await.expect("open bench database");
    store
        .index_pending_messages()
        .await
        .expect("index the preloaded messages");
    store.close().await;
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
        .execute(&pool)
        .await
        .expect("checkpoint");
    pool.close().await;
    std::fs::rename(&building, &path).expect("keep the recall database");
    eprintln!(
        "preloaded and indexed {RECALL_MESSAGES} messages of {RECALL_USERS} people in {:.1?}",
        started.elapsed()
    );
    path
}

/// One turn's search by words for person `user`: the terms of a question that shares its
/// words with most messages, below that person's raw window.
async fn recall_by_words(store: &Store, user: i64, terms: &[SearchTerm]) -> usize {
    let key = ConversationKey::new(ChatId(user), UserId(user));
    // The person's messages have ids user + 1 + k * RECALL_USERS; the newest RAW_WINDOW stay.
    let per_person = RECALL_MESSAGES / RECALL_USERS;
    let before_id = user + 1 + (per_person - RAW_WINDOW) * RECALL_USERS;
    store
        .search_messages(key, terms, before_id, 15)
        .await
        .expect("search by words")
        .len()
}

fn recall_by_words_benchmark(criterion: &mut Criterion) {
    if !selected("recall_by_words") {
        return;
    }
    let runtime = Runtime::new().expect("tokio runtime");
    let store = runtime.block_on(async {
        let source = recall_database().await;
        let target = bench_data_dir().join("recall.db");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", target.display()));
        }
        std::fs::copy(&source, &target).expect("copy the recall database");
        let store = Store::connect(&format!("sqlite://{}", target.display()))
            .await
            .expect("open copy");
        store.migrate().await.expect("migrate copy");
        store
    });
    let terms = recall_terms("Did the supplier send the parcel tracking and the delivery day?");
    assert_eq!(runtime.block_on(recall_by_words(&store, 4_321, &terms)), 15);
    criterion.bench_function("recall_by_words_2m", |bencher| {
        bencher
            .to_async(&runtime)
            .iter(|| recall_by_words(&store, 4_321, &terms));
    });
    let mut times: Vec<Duration> = (0..2_000)
        .map(|search| {
            let user = search * 7_919 % RECALL_USERS;
            let started = Instant::now();
            runtime.block_on(recall_by_words(&store, user, &terms));
            started.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "recall_by_words: {RECALL_MESSAGES} messages of {RECALL_USERS} people, {} terms: \
         p50 {:?}, p99 {:?}, max {:?}",
        terms.len(),
        percentile(&times, 0.50),
        percentile(&times, 0.99),
        times[times.len() - 1]
    );
    runtime.block_on(store.close());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(10));
    targets = chat_turn_benchmark, purge_benchmark, recall_by_meaning_benchmark,
        recall_turn_benchmark, recall_by_words_benchmark
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
