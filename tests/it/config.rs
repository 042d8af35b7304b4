//! Configuration parsing: every value either parses within its documented range or is refused
//! with a message naming the variable, for arbitrary input, never with a panic.

use proptest::prelude::*;
use telemem::config::Config;
use telemem::storage::UserId;

use crate::support::config::try_parse_config;

fn parse(flag: &str, value: &str) -> Result<Config, String> {
    try_parse_config(&[format!("--{flag}={value}")]).map_err(|error| error.to_string())
}

/// (flag, variable, smallest, largest) of the numeric settings.
const RANGED: &[(&str, &str, u64, u64)] = &[
    ("session-idle-secs", "SESSION_IDLE_SECS", 1, 315_360_000),
    ("history-window-secs", "HISTORY_WINDOW_SECS", 1, 315_360_000),
    ("history-max-messages", "HISTORY_MAX_MESSAGES", 1, 1_000),
    ("purge-after-secs", "PURGE_AFTER_SECS", 60, 315_360_000),
    ("purge-batch-size", "PURGE_BATCH_SIZE", 1, 100_000),
    ("database-pool-size", "DATABASE_POOL_SIZE", 2, 500),
    (
        "database-statement-timeout-secs",
        "DATABASE_STATEMENT_TIMEOUT_SECS",
        1,
        3_600,
    ),
    ("replica-lease-secs", "REPLICA_LEASE_SECS", 2, 3_600),
    (
        "context-token-budget",
        "CONTEXT_TOKEN_BUDGET",
        100,
        1_000_000,
    ),
    ("recall-limit", "RECALL_LIMIT", 0, 50),
    ("llm-max-tokens", "LLM_MAX_TOKENS", 1, 200_000),
    (
        "user-daily-token-limit",
        "USER_DAILY_TOKEN_LIMIT",
        0,
        1_000_000_000_000,
    ),
    ("user-max-stored-mb", "USER_MAX_STORED_MB", 0, 16_000_000),
    ("document-max-bytes", "DOCUMENT_MAX_BYTES", 1, 20_971_520),
    (
        "document-token-budget",
        "DOCUMENT_TOKEN_BUDGET",
        100,
        1_000_000,
    ),
    ("media-timeout-secs", "MEDIA_TIMEOUT_SECS", 1, 3_600),
];

proptest! {
    #[test]
    fn numbers_parse_inside_their_range_and_are_refused_outside_it_naming_the_variable(
        index in 0..RANGED.len(),
        value in 0_u64..400_000_000,
    ) {
        let (flag, variable, min, max) = RANGED[index];
        let outcome = parse(flag, &value.to_string());
        if (min..=max).contains(&value) {
            prop_assert!(outcome.is_ok(), "{flag}={value}: {outcome:?}", outcome = outcome.err());
        } else {
            let message = outcome.err().unwrap_or_default();
            prop_assert!(message.contains(variable), "{message}");
        }
    }

    #[test]
    fn arbitrary_text_never_panics_and_errors_name_the_variable(index in 0..RANGED.len(), value in "\\PC{0,40}") {
        let (flag, variable, _, _) = RANGED[index];
        if let Err(message) = parse(flag, &value) {
            prop_assert!(message.contains(variable), "{message}");
        }
    }

    #[test]
    fn user_lists_accept_user_and_chat_ids_and_name_the_variable_otherwise(ids in proptest::collection::vec(-5_i64..1_000_000_000, 1..5)) {
        let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        match parse("allowed-users", &list) {
            Ok(config) => {
                prop_assert!(ids.iter().all(|id| *id != 0));
                let expected: Vec<UserId> = ids.iter().copied().map(UserId).collect();
                prop_assert_eq!(config.telegram.allowed_users, expected);
            }
            Err(message) => {
                prop_assert!(ids.contains(&0));
                prop_assert!(message.contains("ALLOWED_USERS"), "{message}");
            }
        }
    }
}

#[test]
fn a_database_url_of_neither_backend_is_refused_at_parse_time() {
    let message = parse("database-url", "mysql://localhost/telemem")
        .err()
        .unwrap_or_default();
    assert!(
        message.contains("DATABASE_URL")
            && message.contains("SQLite")
            && message.contains("PostgreSQL"),
        "{message}"
    );
    assert!(parse("database-url", "postgres://localhost/telemem").is_ok());
    assert!(parse("database-url", "postgresql://localhost/telemem").is_ok());
}

#[test]
fn a_malformed_webhook_secret_is_refused() {
    let message = parse("telegram-webhook-secret", "has spaces!")
        .err()
        .unwrap_or_default();
    assert!(message.contains("TELEGRAM_WEBHOOK_SECRET"), "{message}");
}

#[test]
fn every_key_and_secret_the_process_knows_is_masked_in_logs() {
    let config = crate::support::config::parse_config(&[
        "--llm-api-key=sk-chat-key-0001",
        "--embedding-api-key=sk-embedding-key-0002",
        "--transcription-api-key=sk-transcription-key-0003",
        "--tts-api-key=sk-speech-key-0004",
        "--image-api-key=sk-image-key-0005",
        "--telegram-webhook-secret=webhook-secret-0006",
    ]);
    let secrets = config.secrets();
    for secret in [
        "sk-chat-key-0001",
        "sk-embedding-key-0002",
        "sk-transcription-key-0003",
        "sk-speech-key-0004",
        "sk-image-key-0005",
        "webhook-secret-0006",
    ] {
        assert!(
            secrets.iter().any(|known| known == secret),
            "{secret} is not masked"
        );
    }
}
