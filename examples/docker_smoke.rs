//! Smoke test of the Docker image: it is at most 25 MB, the container starts, answers a message
//! through the fake Telegram Bot API and a fake LLM (both on 127.0.0.1, reached with `--network
//! host`), reads a PDF document's text into the prompt, reports healthy, serves the Mini App's page (and refuses its API without a sign-in), and stops cleanly
//! on `docker stop` (SIGTERM).
//!
//! ```bash
//! ../shared/docker/setup.sh && docker build -t telemem .
//! cargo run --example docker_smoke            # or: -- --image NAME
//! ```
//!
//! It needs a Docker daemon, so it is a documented command rather than part of `cargo test`.

#[path = "../tests/it/support/fake_llm.rs"]
#[allow(dead_code)]
mod fake_llm;
#[path = "../tests/it/support/fake_telegram/mod.rs"]
#[allow(dead_code)]
mod fake_telegram;
#[path = "../tests/it/support/telegram_html.rs"]
#[allow(dead_code)]
mod telegram_html;

use std::process::Command;
use std::time::{Duration, Instant};

use fake_llm::FakeLlm;
use fake_telegram::{FakeTelegram, UserFile};

const CONTAINER: &str = "telemem-smoke";
const HTTP_PORT: u16 = 18_080;
/// The most the image may take, as `docker images` counts it (decimal megabytes).
const MAX_IMAGE_BYTES: u64 = 25_000_000;

fn docker(args: &[&str]) -> std::process::Output {
    Command::new("docker")
        .args(args)
        .output()
        .expect("run docker")
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let image = std::env::args()
        .skip_while(|arg| arg != "--image")
        .nth(1)
        .unwrap_or_else(|| "telemem".to_owned());
    let inspect = docker(&["image", "inspect", "-f", "{{.Size}}", &image]);
    let size: u64 = String::from_utf8_lossy(&inspect.stdout).trim().parse()?;
    println!("image {image}: {size} bytes");
    anyhow::ensure!(
        size <= MAX_IMAGE_BYTES,
        "the image takes {size} bytes, over {MAX_IMAGE_BYTES}"
    );
    let telegram = FakeTelegram::start().await;
    let llm = FakeLlm::start().await;
    let _ = docker(&["rm", "-f", CONTAINER]);

    let started = Instant::now();
    let env = [
        format!("TELOXIDE_TOKEN={}", telegram.token()),
        format!("TELOXIDE_API_URL={}", telegram.api_url()),
        "ALLOW_ALL_USERS=true".to_owned(),
        format!("LLM_BASE_URL={}", llm.base_url()),
        format!("HTTP_ADDR=127.0.0.1:{HTTP_PORT}"),
        "TELEGRAM_THROTTLE=false".to_owned(),
    ];
    // The image's HEALTHCHECK as Docker runs it, every second rather than every 30.
    let mut args = vec![
        "run",
        "-d",
        "--name",
        CONTAINER,
        "--network",
        "host",
        "--health-interval",
        "1s",
    ];
    for pair in &env {
        args.extend(["-e", pair.as_str()]);
    }
    args.push(&image);
    let run = docker(&args);
    anyhow::ensure!(
        run.status.success(),
        "docker run failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );

    telegram.send_text(42, 42, "Hello from the smoke test");
    telegram
        .wait_for(
            |_| {
                telegram
                    .sent_messages(42)
                    .iter()
                    .any(|text| text.contains("Hello from the smoke test"))
            },
            Duration::from_secs(60),
        )
        .await;
    // The reply streams in: the message is edited until it holds the whole answer.
    let reply = telegram.sent_messages(42).remove(0);
    println!("reply after {:.1?}: {reply}", started.elapsed());
    anyhow::ensure!(
        reply.contains("Hello from the smoke test"),
        "unexpected reply: {reply}"
    );

    let pdf = include_bytes!("../tests/data/invoice.pdf").to_vec();
    telegram.send_document(
        42,
        42,
        UserFile::new(pdf).named("invoice.pdf", "application/pdf"),
        Some("Who is this invoice for?"),
    );
    telegram
        .wait_for_message(
            42,
            |text| text.contains("Who is this invoice for?"),
            Duration::from_secs(30),
        )
        .await;
    let question = llm
        .last_request()
        .map(|request| fake_llm::last_user_message(&request.body))
        .unwrap_or_default();
    println!("the PDF's text in the prompt: {question:?}");
    anyhow::ensure!(
        question.contains("Invoice 4711 for Chemitek"),
        "the PDF's text is not in the prompt: {question}"
    );

    let health = reqwest::get(format!("http://127.0.0.1:{HTTP_PORT}/healthz")).await?;
    println!("/healthz: {} {}", health.status(), health.text().await?);
    let page = reqwest::get(format!("http://127.0.0.1:{HTTP_PORT}/app/")).await?;
    let policy = page
        .headers()
        .get("content-security-policy")
        .map(|value| value.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    println!("/app/: {} ({policy})", page.status());
    anyhow::ensure!(
        page.status().is_success() && policy.contains("default-src 'none'"),
        "the Mini App's page is not served under its policy"
    );
    let unsigned = reqwest::get(format!("http://127.0.0.1:{HTTP_PORT}/app/api/me")).await?;
    anyhow::ensure!(
        unsigned.status() == reqwest::StatusCode::UNAUTHORIZED,
        "the Mini App's API answered an unsigned call with {}",
        unsigned.status()
    );
    let check = docker(&["exec", CONTAINER, "telemem", "healthcheck"]);
    println!(
        "telemem healthcheck in the container: {}",
        String::from_utf8_lossy(&check.stdout).trim()
    );
    anyhow::ensure!(
        check.status.success(),
        "the container's health check failed"
    );

    let deadline = Instant::now() + Duration::from_secs(20);
    let health = loop {
        let inspect = docker(&["inspect", "-f", "{{.State.Health.Status}}", CONTAINER]);
        let health = String::from_utf8_lossy(&inspect.stdout).trim().to_owned();
        if health != "starting" || Instant::now() > deadline {
            break health;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    println!("Docker's health status: {health}");
    anyhow::ensure!(health == "healthy", "Docker reports the container {health}");

    let stopping = Instant::now();
    let stop = docker(&["stop", "-t", "30", CONTAINER]);
    anyhow::ensure!(stop.status.success(), "docker stop failed");
    let exit = docker(&["inspect", "-f", "{{.State.ExitCode}}", CONTAINER]);
    let exit_code = String::from_utf8_lossy(&exit.stdout).trim().to_owned();
    println!(
        "docker stop took {:.1?}, exit code {exit_code}",
        stopping.elapsed()
    );
    let logs = docker(&["logs", CONTAINER]);
    let _ = docker(&["rm", "-f", CONTAINER]);
    anyhow::ensure!(
        exit_code == "0",
        "exit code {exit_code}; logs:\n{}",
        String::from_utf8_lossy(&logs.stderr)
    );
    println!("docker smoke test passed");
    Ok(())
}
