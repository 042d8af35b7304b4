//! Specifications of the LLM client against the fake LLM server: both dialects, plain and
//! streamed replies, what is sent, retries, and how each kind of failure is reported.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use telemem::llm::{
    ChatMessage, ChatRequest, Completion, LlmClient, LlmConfig, LlmError, Provider,
};
use telemem::secret::Secret;
use tokio::sync::watch;

use crate::support::fake_llm::{Behaviour, FakeLlm};

const PROVIDERS: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];
const API_KEY: &str = "sk-test-very-secret-key";

fn config(fake: &FakeLlm, provider: Provider) -> LlmConfig {
    LlmConfig {
        provider,
        base_url: Some(fake.base_url().parse().expect("fake base URL")),
        api_key: None,
        model: "test-model".to_owned(),
        models: Vec::new(),
        max_tokens: 321,
        timeout_secs: 10,
        max_retries: 2,
    }
}

fn client(config: &LlmConfig) -> LlmClient {
    LlmClient::new(config).expect("client from a valid config")
}

/// Four words of prompt: "You are terse." and "Say hello".
fn request() -> ChatRequest {
    ChatRequest {
        model: None,
        system: "You are terse.".to_owned(),
        messages: vec![ChatMessage::user("Say hello")],
        ..Default::default()
    }
}

/// Streams `request()` and returns the result plus every text the progress watch showed.
async fn stream_and_watch(client: &LlmClient) -> (Result<Completion, LlmError>, Vec<String>) {
    let (progress, mut watcher) = watch::channel(String::new());
    let seen = tokio::spawn(async move {
        let mut seen = Vec::new();
        while watcher.changed().await.is_ok() {
            seen.push(watcher.borrow_and_update().clone());
        }
        seen
    });
    let result = client.stream(&request(), &progress).await;
    drop(progress);
    (result, seen.await.expect("watcher task"))
}

#[tokio::test]
async fn a_plain_reply_carries_the_text_and_the_reported_usage() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::reply("Hello there, friend"));

        let completion = client(&config(&fake, provider))
            .complete(&request())
            .await
            .expect("a reply");

        assert_eq!(
            completion,
            Completion {
                text: "Hello there, friend".to_owned(),
                tokens_in: Some(5),
                tokens_out: Some(3),
                ..Default::default()
            },
            "{provider:?}"
        );
        assert_eq!(fake.requests()[0].body["stream"], false);
    }
}

#[tokio::test]
async fn an_openai_stream_is_assembled_across_chunks_and_progress_grows_to_the_full_text() {
    let fake = FakeLlm::start().await;
    // Non-ASCII in the first word makes the fake cut a character across two TCP writes.
    fake.push(Behaviour::reply("Grüße aus Köln, wie geht's?"));

    let (result, seen) = stream_and_watch(&client(&config(&fake, Provider::OpenAi))).await;

    let completion = result.expect("a streamed reply");
    assert_eq!(completion.text, "Grüße aus Köln, wie geht's?");
    // The fake, like many real servers, reports no usage in streams: nothing may be invented.
    assert_eq!((completion.tokens_in, completion.tokens_out), (None, None));
    assert!(
        seen.len() >= 2,
        "progress should show several steps: {seen:?}"
    );
    assert!(
        seen.windows(2)
            .all(|pair| pair[1].starts_with(&pair[0]) && pair[1].len() > pair[0].len())
    );
    assert_eq!(
        seen.last().map(String::as_str),
        Some("Grüße aus Köln, wie geht's?")
    );
    let sent = &fake.requests()[0].body;
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn an_anthropic_stream_is_assembled_and_reports_usage_from_its_events() {
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::reply("Hello from the other side"));

    let (result, seen) = stream_and_watch(&client(&config(&fake, Provider::Anthropic))).await;

    let completion = result.expect("a streamed reply");
    assert_eq!(
        completion,
        Completion {
            text: "Hello from the other side".to_owned(),
            tokens_in: Some(5),
            tokens_out: Some(5),
            ..Default::default()
        }
    );
    assert!(
        seen.len() >= 2,
        "progress should show several steps: {seen:?}"
    );
    assert_eq!(
        seen.last().map(String::as_str),
        Some("Hello from the other side")
    );
    assert_eq!(fake.requests()[0].body["stream"], true);
}

#[tokio::test]
async fn the_model_and_max_tokens_are_always_sent() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        let client = client(&config(&fake, provider));

        client.complete(&request()).await.expect("a reply");
        let (result, _) = stream_and_watch(&client).await;
        result.expect("a streamed reply");

        for sent in fake.requests() {
            assert_eq!(sent.body["model"], "test-model", "{provider:?}");
            assert_eq!(sent.body["max_tokens"], 321, "{provider:?}");
        }
    }
}

#[tokio::test]
async fn openai_gets_the_system_prompt_as_the_first_message() {
    let fake = FakeLlm::start().await;
    let request = ChatRequest {
        model: None,
        system: "You are terse.".to_owned(),
        messages: vec![
            ChatMessage::user("Hi"),
            ChatMessage::assistant("Hello."),
            ChatMessage::user("Bye"),
        ],
        ..Default::default()
    };

    let completion = client(&config(&fake, Provider::OpenAi))
        .complete(&request)
        .await
        .expect("a reply");

    let sent = &fake.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.body["messages"],
        serde_json::json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Bye"}
        ])
    );
    assert_eq!(completion.text, "reply to: Bye");
}

#[tokio::test]
async fn anthropic_gets_its_headers_and_the_system_prompt_as_a_field() {
    let fake = FakeLlm::start().await;
    let config = LlmConfig {
        api_key: Some(Secret::new(API_KEY)),
        ..config(&fake, Provider::Anthropic)
    };

    client(&config).complete(&request()).await.expect("a reply");

    let sent = &fake.requests()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(API_KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.body["system"], "You are terse.");
    assert_eq!(
        sent.body["messages"],
        serde_json::json!([{"role": "user", "content": "Say hello"}])
    );
}

#[tokio::test]
async fn openai_sends_a_bearer_key_only_when_one_is_configured() {
    let fake = FakeLlm::start().await;
    let without_key = config(&fake, Provider::OpenAi);
    let with_key = LlmConfig {
        api_key: Some(Secret::new(API_KEY)),
        ..without_key.clone()
    };
    let empty_key = LlmConfig {
        api_key: Some(Secret::new("")),
        ..without_key.clone()
    };

    for config in [&without_key, &with_key, &empty_key] {
        client(config).complete(&request()).await.expect("a reply");
    }

    let sent: Vec<Option<String>> = fake
        .requests()
        .iter()
        .map(|request| request.header("authorization").map(str::to_owned))
        .collect();
    assert_eq!(sent, vec![None, Some(format!("Bearer {API_KEY}")), None]);
}

#[tokio::test]
async fn a_server_error_followed_by_success_is_retried() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::Status(500, None));
        fake.push(Behaviour::Status(503, None));
        fake.push(Behaviour::reply("third time lucky"));

        let completion = client(&config(&fake, provider))
            .complete(&request())
            .await
            .expect("a reply after two retries");

        assert_eq!(completion.text, "third time lucky");
        assert_eq!(fake.requests().len(), 3, "{provider:?}");
    }
}

#[tokio::test]
async fn a_stream_that_fails_before_any_text_is_retried() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::Status(502, None));
        fake.push(Behaviour::reply("streamed after all"));

        let (result, _) = stream_and_watch(&client(&config(&fake, provider))).await;

        assert_eq!(result.expect("a streamed reply").text, "streamed after all");
        assert_eq!(fake.requests().len(), 2, "{provider:?}");
    }
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_waits_that_long_then_succeeds() {
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::Status(429, Some(1)));
    fake.push(Behaviour::reply("finally"));
    let started = Instant::now();

    let completion = client(&config(&fake, Provider::OpenAi))
        .complete(&request())
        .await
        .expect("a reply after the wait");

    assert_eq!(completion.text, "finally");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn repeated_server_errors_end_in_a_server_error_after_the_configured_retries() {
    let fake = FakeLlm::start().await;
    for _ in 0..5 {
        fake.push(Behaviour::Status(500, None));
    }

    let error = client(&config(&fake, Provider::OpenAi))
        .complete(&request())
        .await
        .expect_err("the server keeps failing");

    assert!(
        matches!(error, LlmError::Server { status: 500 }),
        "{error:?}"
    );
    // One attempt plus `max_retries` (2) retries.
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test]
async fn a_rate_limit_that_outlasts_the_retries_is_reported_as_such() {
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::Status(429, None));
    fake.push(Behaviour::Status(429, None));
    let config = LlmConfig {
        max_retries: 1,
        ..config(&fake, Provider::Anthropic)
    };

    let error = client(&config)
        .complete(&request())
        .await
        .expect_err("rate limited");

    assert!(
        matches!(error, LlmError::RateLimited { retry_after: None }),
        "{error:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn a_slow_reply_within_the_budget_succeeds() {
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::delay(
        Duration::from_millis(200),
        Behaviour::reply("worth the wait"),
    ));

    let completion = client(&config(&fake, Provider::OpenAi))
        .complete(&request())
        .await
        .expect("a reply");

    assert_eq!(completion.text, "worth the wait");
}

#[tokio::test]
async fn garbage_json_is_a_bad_response_and_is_not_retried() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::Garbage);
        fake.push(Behaviour::Garbage);
        let client = client(&config(&fake, provider));

        let plain = client.complete(&request()).await.expect_err("garbage");
        let (streamed, _) = stream_and_watch(&client).await;

        assert!(
            matches!(plain, LlmError::BadResponse(_)),
            "{provider:?}: {plain:?}"
        );
        assert!(
            matches!(streamed, Err(LlmError::BadResponse(_))),
            "{provider:?}: {streamed:?}"
        );
        assert_eq!(fake.requests().len(), 2, "{provider:?}");
    }
}

#[tokio::test]
async fn a_truncated_stream_is_a_bad_response_and_never_partial_text() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::TruncatedStream(
            "This sentence is cut".to_owned(),
        ));

        let (result, seen) = stream_and_watch(&client(&config(&fake, provider))).await;

        assert!(
            matches!(result, Err(LlmError::BadResponse(_))),
            "{provider:?}: {result:?}"
        );
        // The partial text was shown as progress, but it is not passed off as the reply and,
        // having been shown, is not retried.
        assert_eq!(
            seen.last().map(String::as_str),
            Some("This sentence is cut")
        );
        assert_eq!(fake.requests().len(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn a_truncated_plain_body_is_a_bad_response() {
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::TruncatedStream(
        "This sentence is cut".to_owned(),
    ));

    let error = client(&config(&fake, Provider::OpenAi))
        .complete(&request())
        .await
        .expect_err("truncated JSON");

    assert!(matches!(error, LlmError::BadResponse(_)), "{error:?}");
}

#[tokio::test]
async fn a_hanging_server_times_out_within_the_budget() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        fake.push(Behaviour::Hang);
        let config = LlmConfig {
            timeout_secs: 1,
            ..config(&fake, provider)
        };
        let started = Instant::now();

        let error = client(&config)
            .complete(&request())
            .await
            .expect_err("no answer");

        let elapsed = started.elapsed();
        assert!(matches!(error, LlmError::Timeout), "{error:?}");
        assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
        assert!(elapsed < Duration::from_millis(1500), "{elapsed:?}");
    }
}

#[tokio::test]
async fn retries_stop_at_the_time_budget() {
    let fake = FakeLlm::start().await;
    // Each attempt would take longer than the whole budget if it were allowed to finish.
    fake.push(Behaviour::Status(503, None));
    fake.push(Behaviour::delay(
        Duration::from_secs(5),
        Behaviour::reply("too late"),
    ));
    let config = LlmConfig {
        timeout_secs: 1,
        ..config(&fake, Provider::OpenAi)
    };
    let started = Instant::now();

    let (result, _) = stream_and_watch(&client(&config)).await;

    assert!(matches!(result, Err(LlmError::Timeout)), "{result:?}");
    assert!(started.elapsed() < Duration::from_millis(1500));
}

#[tokio::test]
async fn the_api_key_never_appears_in_errors() {
    for provider in PROVIDERS {
        let fake = FakeLlm::start().await;
        // The fake echoes the key in its error body, as some providers do.
        fake.push(Behaviour::Status(401, None));
        let config = LlmConfig {
            api_key: Some(Secret::new(API_KEY)),
            ..config(&fake, provider)
        };

        let error = client(&config)
            .complete(&request())
            .await
            .expect_err("bad key");

        assert!(
            matches!(error, LlmError::Rejected { status: 401 }),
            "{error:?}"
        );
        assert!(!format!("{error}").contains(API_KEY));
        assert!(!format!("{error:?}").contains(API_KEY));
        assert!(
            !format!("{error}").contains("fake failure"),
            "no provider body: {error}"
        );
        assert_eq!(
            fake.requests().len(),
            1,
            "a rejected request is not retried"
        );
    }
}

#[tokio::test]
async fn an_unreachable_server_is_a_connect_error_without_the_key() {
    // Take a free port and release it, so nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    drop(listener);
    let config = LlmConfig {
        provider: Provider::OpenAi,
        base_url: Some(format!("http://{address}/v1").parse().expect("URL")),
        api_key: Some(Secret::new(API_KEY)),
        model: "test-model".to_owned(),
        models: Vec::new(),
        max_tokens: 10,
        timeout_secs: 5,
        max_retries: 1,
    };

    let error = client(&config)
        .complete(&request())
        .await
        .expect_err("nobody listens");

    assert!(matches!(error, LlmError::Connect(_)), "{error:?}");
    assert!(!format!("{error}").contains(API_KEY));
    assert!(!format!("{error:?}").contains(API_KEY));
}

#[tokio::test]
async fn logs_show_retries_and_error_bodies_but_never_the_key() {
    let logs = CapturedLogs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(logs.clone())
        .finish();
    // This test runs on a current-thread runtime, so a thread-local subscriber sees the client.
    let _guard = tracing::subscriber::set_default(subscriber);
    let fake = FakeLlm::start().await;
    fake.push(Behaviour::Status(500, None));
    fake.push(Behaviour::Status(401, None));
    let config = LlmConfig {
        api_key: Some(Secret::new(API_KEY)),
        ..config(&fake, Provider::OpenAi)
    };

    let error = client(&config)
        .complete(&request())
        .await
        .expect_err("bad key");

    assert!(
        matches!(error, LlmError::Rejected { status: 401 }),
        "{error:?}"
    );
    let logs = logs.text();
    assert!(logs.contains("WARN") && logs.contains("retrying"), "{logs}");
    assert!(
        logs.contains("fake failure"),
        "bodies are logged at debug level: {logs}"
    );
    assert!(!logs.contains(API_KEY), "{logs}");
    assert!(
        logs.contains("Bearer [redacted]"),
        "the echoed key is masked: {logs}"
    );
    assert!(
        !logs.contains("Say hello"),
        "no prompt text in logs: {logs}"
    );
}

/// A log sink the test can read back.
#[derive(Clone, Default)]
struct CapturedLogs(Arc<Mutex<Vec<u8>>>);

impl CapturedLogs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("log lock")).into_owned()
    }
}

impl std::io::Write for CapturedLogs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for CapturedLogs {
    type Writer = Self;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}
