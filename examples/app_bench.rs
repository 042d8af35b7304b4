//! The Mini App's load generator: the real app (its router, conversations and store, on a fresh
//! SQLite file) served on 127.0.0.1, its database filled with many people's memory (sessions of
//! messages, their summaries, notes), then many concurrent clients calling the API as the page
//! does, each signed in as one of those people. Prints each route's latency percentiles and the
//! page's weight. See docs/PERFORMANCE.md for the figures and the exact command.
//!
//! ```text
//! cargo run --release --example app_bench -- --people 200 --requests 20000 --concurrency 16
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use telemem::access_list::{AccessList, ConfiguredAccess};
use telemem::app::ChatServices;
use telemem::clock::{Clock, SystemClock};
use telemem::config::Config;
use telemem::storage::{ChatId, ConversationKey, NewMessage, Role, UserId};
use telemem::webapp::init_data::InitDataKey;
use telemem::webapp::{WebAppParts, router};
use tokio_util::sync::CancellationToken;

const BOT_TOKEN: &str = "123456:BENCH-token";

/// Load generator for the Mini App's API.
#[derive(Debug, Parser)]
struct Args {
    /// People with a memory, each calling as themselves.
    #[arg(long, default_value_t = 200)]
    people: i64,
    /// Sessions per person, each with its summary.
    #[arg(long, default_value_t = 30)]
    sessions: i64,
    /// Messages per session.
    #[arg(long, default_value_t = 10)]
    messages: i64,
    /// API calls in all.
    #[arg(long, default_value_t = 20_000)]
    requests: usize,
    /// Calls in flight at once.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
}

#[derive(Parser)]
struct BenchCli {
    #[command(flatten)]
    config: Config,
}

/// What the page calls, in the mix it calls them: opening the app reads `/me` and the memory;
/// the other views are opened less often.
const ROUTES: [&str; 6] = [
    "/app/api/me",
    "/app/api/memory",
    "/app/api/memory",
    "/app/api/search?q=lighthouse+ticket",
    "/app/api/settings",
    "/app/api/usage",
];

const TOPICS: [&str; 8] = [
    "the lighthouse trip in May",
    "a train ticket to Hamburg",
    "the parcel that should arrive Wednesday",
    "my sister's birthday present",
    "the quarterly report for Chemitek",
    "learning Spanish verbs",
    "the broken bicycle chain",
    "a recipe for lentil soup",
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let directory = tempfile::tempdir()?;
    let database_url = format!("sqlite://{}", directory.path().join("bench.db").display());
    let config = BenchCli::try_parse_from([
        "telemem",
        "--database-url",
        &database_url,
        "--allow-all-users",
        "true",
        "--llm-base-url",
        "http://127.0.0.1:9/v1",
    ])?
    .config;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let services = ChatServices::build(&config, clock.clone()).await?;
    let filling = Instant::now();
    fill(&services, &args).await?;
    println!(
        "database: {} people × {} sessions × {} messages, with summaries and 10 notes each, filled in {:.1} s",
        args.people,
        args.sessions,
        args.messages,
        filling.elapsed().as_secs_f64()
    );

    let access = AccessList::load(
        ConfiguredAccess::from_config(&config.telegram),
        services.store.clone(),
        clock.clone(),
    )
    .await?;
    let app = router(WebAppParts {
        conversations: services.conversations.clone(),
        access: Arc::new(access),
        bot_token: BOT_TOKEN.to_owned(),
        max_age: Duration::from_secs(86_400),
        // The serving cost is measured here, not the per-person limits.
        limits: telemem::webapp::limits::ApiLimitSettings {
            requests_per_minute: u32::MAX,
            searches_per_minute: u32::MAX,
        },
        clock,
        bot: None,
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(telemem::http::serve(listener, app, shutdown.clone()));
    let client = reqwest::Client::builder().no_proxy().build()?;

    let mut page_bytes = 0;
    for file in ["/app/", "/app/app.js", "/app/app.css"] {
        page_bytes += client
            .get(format!("{base}{file}"))
            .send()
            .await?
            .bytes()
            .await?
            .len();
    }
    println!("page: {page_bytes} bytes (index.html, app.js and app.css together, uncompressed)");

    let init_data: Arc<Vec<String>> = Arc::new((1..=args.people).map(signed).collect());
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..args.concurrency {
        let (client, base, init_data, next) = (
            client.clone(),
            base.clone(),
            init_data.clone(),
            next.clone(),
        );
        let requests = args.requests;
        workers.push(tokio::spawn(async move {
            let mut timings: Vec<(&'static str, Duration)> = Vec::new();
            loop {
                let call = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if call >= requests {
                    return anyhow::Ok(timings);
                }
                let route = ROUTES[call % ROUTES.len()];
                let person = &init_data[call % init_data.len()];
                let asked = Instant::now();
                let response = client
                    .get(format!("{base}{route}"))
                    .header("Authorization", format!("tma {person}"))
                    .send()
                    .await?;
                let status = response.status();
                response.bytes().await?;
                anyhow::ensure!(status.is_success(), "{route} answered {status}");
                timings.push((route, asked.elapsed()));
            }
        }));
    }
    let mut by_route: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
    for worker in workers {
        for (route, took) in worker.await?? {
            by_route.entry(route).or_default().push(took);
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{} calls from {} clients in {:.2} s: {:.0} calls/s",
        args.requests,
        args.concurrency,
        elapsed.as_secs_f64(),
        args.requests as f64 / elapsed.as_secs_f64()
    );
    println!("| route | calls | p50 | p99 | max |\n|---|---|---|---|---|");
    let mut all = Vec::new();
    for (route, mut timings) in by_route {
        timings.sort();
        all.extend_from_slice(&timings);
        print_row(route, &timings);
    }
    all.sort();
    print_row("all", &all);
    shutdown.cancel();
    server.await??;
    Ok(())
}

fn print_row(route: &str, sorted: &[Duration]) {
    let at = |share: f64| sorted[((sorted.len() as f64 * share) as usize).min(sorted.len() - 1)];
    let ms = |duration: Duration| format!("{:.2} ms", duration.as_secs_f64() * 1000.0);
    println!(
        "| `{route}` | {} | {} | {} | {} |",
        sorted.len(),
        ms(at(0.50)),
        ms(at(0.99)),
        ms(*sorted.last().unwrap_or(&Duration::ZERO))
    );
}

/// Init data for person `user_id`, signed now.
fn signed(user_id: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs();
    InitDataKey::for_bot_token(BOT_TOKEN).sign(&[
        (
            "user",
            &format!(r#"{{"id":{user_id},"first_name":"P{user_id}"}}"#),
        ),
        ("auth_date", &now.to_string()),
    ])
}

/// Gives every person their sessions (one a day, ending yesterday), each with its messages and
/// summary, and ten notes.
async fn fill(services: &ChatServices, args: &Args) -> anyhow::Result<()> {
    let store = &services.store;
    let now_ms = services.clock.now_ms();
    let day_ms = 86_400_000;
    for person in 1..=args.people {
        let key = ConversationKey {
            chat_id: ChatId(person),
            user_id: UserId(person),
        };
        for session in 0..args.sessions {
            let start_ms = now_ms - (args.sessions - session) * day_ms;
            let (record, _) = store.start_session(key, start_ms).await?;
            let topic = TOPICS[((person + session) % TOPICS.len() as i64) as usize];
            for index in 0..args.messages {
                let (role, content) = if index % 2 == 0 {
                    (Role::User, format!("Question {index} about {topic}?"))
                } else {
                    (
                        Role::Assistant,
                        format!("Here is what I know about {topic}, part {index}."),
                    )
                };
                store
                    .add_message(&NewMessage {
                        key,
                        session_id: record.id,
                        role,
                        content: &content,
                        created_at_ms: start_ms + index * 60_000,
                        tokens_in: 100,
                        tokens_out: 50,
                        telegram_message_id: None,
                    })
                    .await
                    .context("cannot store a message")?;
            }
            store
                .close_session(key, start_ms + args.messages * 60_000)
                .await?;
            let summary = format!(
                "They talked about {topic}. The bot answered in {} parts.",
                args.messages / 2
            );
            store
                .add_summary(record.id, key, &summary, start_ms + day_ms / 2)
                .await?;
        }
        for note in 0..10 {
            let text = format!(
                "Note {note}: {}",
                TOPICS[(note % TOPICS.len() as i64) as usize]
            );
            store.add_note_by_hand(key, &text, now_ms).await?;
        }
    }
    Ok(())
}
