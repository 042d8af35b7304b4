//! Redaction: masks secrets (API keys, bot tokens, passwords in URLs, private keys...) in stored
//! text before it goes into an LLM prompt or a summary request. Users paste credentials into
//! chats; the database keeps them until the purge, but they should not be sent to a third-party
//! model over and over, nor be summarized into durable memory.
//!
//! A [`Redactor`] owns a fixed set of default patterns, always on, plus any extra patterns from
//! [`RedactionConfig`]. It is pure: it does not read storage, log what it masked, or know where
//! the text came from. Masking is conservative about ordinary text (dates, phone numbers, colour
//! codes, short commit hashes, UUIDs and words that merely contain "sk" are kept), because every
//! false positive removes something the model needed to answer.
//!
//! Most messages contain no secret, so [`Redactor::redact`] first runs one [`RegexSet`] over the
//! text and returns it borrowed, without copying, when nothing matched.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use regex::{Regex, RegexSet};

use crate::config::RedactionConfig;

/// What a masked secret is replaced with.
pub const MASK: &str = "[redacted]";

/// The most passes [`Redactor::redact`] makes over one text (see there why more than one).
const MAX_PASSES: usize = 8;

/// Why the configured extra patterns cannot be used. Each message names the variable and quotes
/// the pattern, so a bad configuration stops the program at start with a clear reason.
#[derive(Debug, thiserror::Error)]
pub enum RedactionError {
    #[error("REDACT_PATTERNS: `{pattern}` is not a valid regular expression: {reason}")]
    InvalidPattern {
        pattern: String,
        reason: regex::Error,
    },

    /// A pattern such as `foo|` or `x*` matches everywhere, so every message would take the slow
    /// path while nothing is masked; almost always a typo.
    #[error("REDACT_PATTERNS: `{pattern}` matches empty text, so it would mask nothing")]
    MatchesEmptyText { pattern: String },

    #[error("REDACT_PATTERNS: the patterns together are too large to compile: {reason}")]
    TooLarge { reason: regex::Error },
}

/// Masks secrets in text. Cloning is cheap: clones share the compiled patterns.
#[derive(Clone, Debug)]
pub struct Redactor {
    patterns: Arc<Patterns>,
}

/// The compiled patterns: `any` holds the same expressions as `each`, in the same order, so an
/// index reported by the set is an index into `each`.
#[derive(Debug)]
struct Patterns {
    any: RegexSet,
    each: Vec<Pattern>,
}

#[derive(Debug)]
struct Pattern {
    regex: Regex,
    /// Mask only capture group 1, keeping visible context such as a URL's user and host.
    masks_first_group: bool,
    /// A check on each candidate secret, for shapes that ordinary text can also take.
    accept: fn(&str) -> bool,
}

/// A default pattern before compilation.
struct DefaultPattern {
    regex: &'static str,
    accept: fn(&str) -> bool,
}

// Word boundaries are written `(?-u:\b)` (ASCII): a secret glued to a non-ASCII letter ("ключsk-...")
// is still masked, and ASCII boundaries keep the regex engine on its fast path for text in any
// script (Unicode `\b` makes it fall back to a slower engine whenever the text is not ASCII).
// Digits are `[0-9]`, not `\d`, which would also match other scripts' digits.
const DEFAULT_PATTERNS: [DefaultPattern; 8] = [
    // OpenAI (`sk-...`, `sk-proj-...`) and Anthropic (`sk-ant-api03-...`) API keys: the secret a
    // user of an LLM bot is most likely to paste. The leading word boundary keeps "task-force" and
    // "desk-lamp" out; the randomness check keeps hyphenated words like "sk-learn-pipeline-steps"
    // out.
    DefaultPattern {
        regex: r"(?-u:\b)sk-[A-Za-z0-9_-]{20,}",
        accept: looks_generated,
    },
    // Telegram bot tokens, `<bot id>:<35 characters>`. They are often pasted inside a Bot API URL
    // (`/bot123456789:AA.../sendMessage`), so the id need only follow a non-digit, not a word
    // boundary. Longer tails are masked whole rather than leaving a piece visible.
    DefaultPattern {
        regex: r"(?:^|[^0-9])([0-9]{8,10}:[A-Za-z0-9_-]{35,})",
        accept: always,
    },
    // Passwords in URLs (`postgres://app:hunter2@db/`, `redis://:pw@cache`, connection strings
    // pasted while debugging). Only the password is masked: the scheme, user and host stay, so
    // the model can still talk about which database it was.
    DefaultPattern {
        regex: r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#@]+)@",
        accept: always,
    },
    // GitHub tokens: classic personal tokens (`ghp_`) and their OAuth, app and refresh siblings
    // (`gho_`, `ghu_`, `ghs_`, `ghr_`), and fine-grained personal tokens (`github_pat_`).
    DefaultPattern {
        regex: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        accept: always,
    },
    // AWS access key ids, long-lived (`AKIA`) and temporary (`ASIA`). The id alone is not enough
    // to sign requests, but it is pasted next to its secret key and identifies the account.
    DefaultPattern {
        regex: r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)",
        accept: always,
    },
    // `Authorization: Bearer <token>` values (JWTs, opaque tokens) from pasted curl commands and
    // logs. "Bearer " stays visible; the minimum length and the randomness check keep prose
    // ("the bearer of bad news") out.
    DefaultPattern {
        regex: r"(?-u:\b)(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
        accept: looks_generated,
    },
    // PEM private key blocks (PKCS#8, RSA, EC, OpenSSH, PGP), masked from BEGIN to END. A block
    // cut off before its END line (a truncated paste) is masked up to the first blank line, so
    // the key body never leaks for want of its footer. Certificates and public keys are public.
    DefaultPattern {
        regex: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[^\n]*(?:\n[ \t]*[^\s][^\n]*)*)",
        accept: always,
    },
    // Long hex secrets (HMAC and session keys, webhook secrets, 0x-prefixed wallet keys): 32 or
    // more hex digits as a whole word. Shorter hex words are everywhere in ordinary text (colour
    // codes, commit hashes of 7-12 digits, UUID groups) and are kept. Full 40-digit commit hashes
    // are masked too: telling them from a secret is guesswork, and masking one costs little.
    DefaultPattern {
        regex: r"(?-u:\b)(?:0x)?[0-9A-Fa-f]{32,}(?-u:\b)",
        accept: always,
    },
];

/// Accepts every match of a pattern whose shape is specific enough on its own.
fn always(_candidate: &str) -> bool {
    true
}

/// True when `candidate` has a digit, or an upper-case letter after its first character.
/// Generated keys almost always do (a 20-character base62 key has neither with a probability
/// of about 10⁻⁸), while hyphenated lower-case words and ordinary prose do not.
fn looks_generated(candidate: &str) -> bool {
    candidate.bytes().any(|byte| byte.is_ascii_digit())
        || candidate
            .bytes()
            .skip(1)
            .any(|byte| byte.is_ascii_uppercase())
}

impl Redactor {
    /// Compiles the default patterns and the configured extra ones. Blank lines among the extra
    /// patterns are ignored, as is whitespace around each pattern (a trailing newline or `\r` in
    /// the variable is common; write `[ ]` for a meaningful leading or trailing space).
    pub fn new(config: &RedactionConfig) -> Result<Self, RedactionError> {
        let mut each: Vec<Pattern> = DEFAULT_PATTERNS
            .iter()
            .map(|default| {
                // The default patterns are constants, and a unit test compiles them all.
                let regex = Regex::new(default.regex).expect("the default patterns are valid");
                Pattern::new(regex, default.accept)
            })
            .collect();
        for pattern in config.extra_patterns.iter().map(|pattern| pattern.trim()) {
            if pattern.is_empty() {
                continue;
            }
            let regex = Regex::new(pattern).map_err(|reason| RedactionError::InvalidPattern {
                pattern: pattern.to_owned(),
                reason,
            })?;
            if regex.is_match("") {
                return Err(RedactionError::MatchesEmptyText {
                    pattern: pattern.to_owned(),
                });
            }
            each.push(Pattern::new(regex, always));
        }
        let any = RegexSet::new(each.iter().map(|pattern| pattern.regex.as_str()))
            .map_err(|reason| RedactionError::TooLarge { reason })?;
        Ok(Self {
            patterns: Arc::new(Patterns { any, each }),
        })
    }

    /// A redactor with only the default patterns, for tests and tools.
    pub fn default_only() -> Self {
        let config = RedactionConfig {
            extra_patterns: Vec::new(),
        };
        // Without extra patterns the only possible errors concern the constant defaults, which a
        // unit test compiles.
        Self::new(&config).expect("the default patterns compile")
    }

    /// `text` with every secret replaced by [`MASK`]; borrowed, not copied, when there is none.
    ///
    /// Redacting is idempotent: a mask already in the text is never masked again and passes
    /// repeat until nothing changes, so redacted text (a summary of redacted messages, say)
    /// comes back unchanged and borrowed.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(mut redacted) = self.redact_once(text) else {
            return Cow::Borrowed(text);
        };
        // Masking one secret can expose another: `AKIA...` glued to a bot token only ends at a
        // word boundary once the token is a mask. Passes repeat until nothing changes, which
        // makes redacting idempotent. With the default patterns one extra pass has sufficed for
        // every mixture the property tests generate; the bound stops an odd extra pattern (one
        // matching pieces of masks) from looping.
        for _ in 1..MAX_PASSES {
            match self.redact_once(&redacted) {
                Some(again) => redacted = again,
                None => break,
            }
        }
        Cow::Owned(redacted)
    }

    /// One pass over `text`: `None` when it has nothing to mask.
    fn redact_once(&self, text: &str) -> Option<String> {
        let matched = self.patterns.any.matches(text);
        if !matched.matched_any() {
            return None;
        }
        let mut spans = Vec::new();
        for index in matched.iter() {
            self.patterns.each[index].push_secret_spans(text, &mut spans);
        }
        let masks: Vec<Range<usize>> = text
            .match_indices(MASK)
            .map(|(start, mask)| start..start + mask.len())
            .collect();
        spans.retain(|span| !masks.iter().any(|mask| contains(mask, span)));
        if spans.is_empty() {
            return None;
        }
        Some(replace_spans(text, merge(spans)))
    }
}

impl Pattern {
    fn new(regex: Regex, accept: fn(&str) -> bool) -> Self {
        Self {
            masks_first_group: regex.captures_len() > 1,
            regex,
            accept,
        }
    }

    /// Appends the byte range of every secret this pattern finds in `text`.
    fn push_secret_spans(&self, text: &str, spans: &mut Vec<Range<usize>>) {
        let accepted =
            |secret: &regex::Match<'_>| !secret.is_empty() && (self.accept)(secret.as_str());
        if self.masks_first_group {
            // When group 1 took no part in a match (it is optional) the whole match is masked:
            // masking too much is the safe side.
            let secrets = self
                .regex
                .captures_iter(text)
                .filter_map(|captures| captures.get(1).or_else(|| captures.get(0)));
            spans.extend(secrets.filter(accepted).map(|secret| secret.range()));
        } else {
            let secrets = self.regex.find_iter(text);
            spans.extend(secrets.filter(accepted).map(|secret| secret.range()));
        }
    }
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Sorts spans and joins those that overlap or touch, so that a secret two patterns both find
/// (`Bearer sk-...`) is masked once.
fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_unstable_by_key(|span| (span.start, span.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// `text` with each of the sorted, disjoint `spans` replaced by [`MASK`].
fn replace_spans(text: &str, spans: Vec<Range<usize>>) -> String {
    let mut redacted = String::with_capacity(text.len());
    let mut kept_from = 0;
    // Every span comes from a regex match on `text`, so its ends are char boundaries and the
    // slicing below cannot panic.
    for span in spans {
        redacted.push_str(&text[kept_from..span.start]);
        redacted.push_str(MASK);
        kept_from = span.end;
    }
    redacted.push_str(&text[kept_from..]);
    redacted
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use clap::Parser;
    use proptest::prelude::*;

    use super::*;
    use crate::memory::strategies::separated;

    static REDACTOR: LazyLock<Redactor> = LazyLock::new(Redactor::default_only);

    fn redact(text: &str) -> Cow<'_, str> {
        REDACTOR.redact(text)
    }

    fn with_extra(patterns: &[&str]) -> Result<Redactor, RedactionError> {
        Redactor::new(&RedactionConfig {
            extra_patterns: patterns.iter().map(|pattern| pattern.to_string()).collect(),
        })
    }

    fn assert_redacted(text: &str, expected: &str) {
        assert_eq!(redact(text), expected, "{text:?}");
    }

    fn assert_kept(text: &str) {
        let redacted = redact(text);
        assert!(
            matches!(redacted, Cow::Borrowed(_)),
            "{text:?} was changed to {redacted:?}"
        );
    }

    const OPENAI_KEY: &str = "sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVwXyZ0123";
    const OPENAI_PROJECT_KEY: &str = "sk-proj-Ab12_cD34-eF56gH78iJ90kL12mN34oP56qR78sT90uV12wX34";
    const ANTHROPIC_KEY: &str = "sk-ant-api03-Xy9_Zw8-Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa9876543210-AA";
    const BOT_TOKEN: &str = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ";

    #[test]
    fn every_default_pattern_compiles() {
        for default in &DEFAULT_PATTERNS {
            Regex::new(default.regex).expect(default.regex);
        }
        RegexSet::new(DEFAULT_PATTERNS.iter().map(|default| default.regex))
            .expect("the set compiles");
    }

    #[test]
    fn openai_and_anthropic_keys_are_masked() {
        for key in [OPENAI_KEY, OPENAI_PROJECT_KEY, ANTHROPIC_KEY] {
            let text = format!("my key is {key}, keep it safe");
            assert_redacted(&text, "my key is [redacted], keep it safe");
        }
    }

    #[test]
    fn an_api_key_in_an_assignment_or_quotes_is_masked() {
        assert_redacted(
            &format!("OPENAI_API_KEY={OPENAI_KEY}\napi_key = \"{ANTHROPIC_KEY}\""),
            "OPENAI_API_KEY=[redacted]\napi_key = \"[redacted]\"",
        );
    }

    #[test]
    fn words_containing_sk_and_short_sk_prefixes_are_kept() {
        assert_kept("The task-force met by the desk-lamp; ask-me-anything threads; risk-free.");
        assert_kept("Try sk-learn, or sk-learn-pipeline-preprocessing-steps for the long form.");
        assert_kept("The prefix sk-abc123 is too short to be a key.");
    }

    #[test]
    fn telegram_bot_tokens_are_masked() {
        assert_redacted(&format!("token: {BOT_TOKEN}"), "token: [redacted]");
        assert_redacted(BOT_TOKEN, "[redacted]");
    }

    #[test]
    fn a_bot_token_inside_a_bot_api_url_is_masked() {
        assert_redacted(
            &format!("curl https://api.telegram.org/bot{BOT_TOKEN}/getMe"),
            "curl https://api.telegram.org/bot[redacted]/getMe",
        );
    }

    #[test]
    fn digits_and_a_colon_without_a_token_tail_are_kept() {
        assert_kept("Order 123456789: arrives Wednesday; call 12345678901:00 later.");
        assert_kept("Meeting 2024-05-01 12:30:45, ticket 123456789:short");
    }

    #[test]
    fn a_password_in_a_url_is_masked_and_user_and_host_are_kept() {
        assert_redacted(
            "connect to https://user:hunter2@host/ now",
            "connect to https://user:[redacted]@host/ now",
        );
        assert_redacted(
            "DATABASE_URL=postgres://app:p%40ss:w0rd@db.internal:5432/app",
            "DATABASE_URL=postgres://app:[redacted]@db.internal:5432/app",
        );
        assert_redacted(
            "redis://:s3cret@cache:6379/0",
            "redis://:[redacted]@cache:6379/0",
        );
    }

    #[test]
    fn urls_without_a_password_are_kept() {
        assert_kept(
            "See https://example.com:8080/path?mail=a@b.org#top and ssh://git@github.com/o/r",
        );
        assert_kept("Write to user@example.com or visit http://localhost:3000/");
    }

    #[test]
    fn long_hex_secrets_are_masked() {
        let hex32 = "0123456789abcdef0123456789ABCDEF";
        let hex64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_redacted(
            &format!("secret={hex32} digest {hex64}."),
            "secret=[redacted] digest [redacted].",
        );
        assert_redacted(&format!("wallet key 0x{hex64}"), "wallet key [redacted]");
    }

    #[test]
    fn short_hex_colours_commit_hashes_and_uuids_are_kept() {
        assert_kept("Paint it #ff00aa or #FFF; fixed in a1b2c3d and 4f9d2c1e8b7a.");
        assert_kept("Request 550e8400-e29b-41d4-a716-446655440000 failed.");
        assert_kept("31 hex digits: 0123456789abcdef0123456789abcde");
    }

    #[test]
    fn tracking_numbers_dates_and_phone_numbers_are_kept() {
        assert_kept("UPS 1Z999AA10123456784 ships on 2024-05-01 (01.05.2024).");
        assert_kept("Call +1 (555) 123-4567 or +44 20 7946 0958 or 8 800 555 35 35.");
        assert_kept("Timestamp 1714557600000, order #123456789012.");
    }

    #[test]
    fn github_tokens_are_masked() {
        for token in [
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        ] {
            assert_redacted(
                &format!("token {token}, then text"),
                "token [redacted], then text",
            );
        }
    }

    #[test]
    fn aws_access_key_ids_are_masked() {
        assert_redacted(
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "aws_access_key_id = [redacted]",
        );
        assert_kept("AKIA alone, or AKIAIOSFODNN7 cut short, is not a key id.");
    }

    #[test]
    fn bearer_tokens_are_masked_and_the_scheme_is_kept() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_redacted(
            &format!("-H 'Authorization: Bearer {jwt}'"),
            "-H 'Authorization: Bearer [redacted]'",
        );
        assert_redacted(
            "authorization: bearer AbCdEf0123456789xyz==",
            "authorization: bearer [redacted]",
        );
    }

    #[test]
    fn the_word_bearer_in_prose_is_kept() {
        assert_kept("The Bearer of bad news; a bearer bond; bearer internationalization.");
    }

    #[test]
    fn pem_private_key_blocks_are_masked_whole() {
        let text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n\
                    /ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n-----END RSA PRIVATE KEY-----\nthanks";
        assert_redacted(text, "key:\n[redacted]\nthanks");
        let openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjE=\r\n\
                       -----END OPENSSH PRIVATE KEY-----";
        assert_redacted(openssh, "[redacted]");
    }

    #[test]
    fn a_truncated_pem_private_key_is_masked_up_to_the_first_blank_line() {
        let text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAo\n\n\
                    Why does ssh refuse it?";
        assert_redacted(text, "[redacted]\n\nWhy does ssh refuse it?");
    }

    #[test]
    fn certificates_and_public_keys_are_kept() {
        assert_kept("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----");
        assert_kept("-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----");
    }

    #[test]
    fn a_secret_found_by_two_patterns_is_masked_once() {
        assert_redacted(
            &format!("Authorization: Bearer {OPENAI_KEY}"),
            "Authorization: Bearer [redacted]",
        );
        assert_redacted(
            &format!("https://me:{OPENAI_KEY}@proxy.example/"),
            "https://me:[redacted]@proxy.example/",
        );
    }

    #[test]
    fn text_without_secrets_is_returned_borrowed() {
        let text = "Where is the Chemitek parcel? It should arrive on Wednesday.";
        assert!(matches!(redact(text), Cow::Borrowed(same) if same == text));
    }

    #[test]
    fn text_where_every_match_is_rejected_is_returned_borrowed() {
        assert!(matches!(
            redact("sk-learn-pipeline-preprocessing-steps"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn redacting_twice_equals_redacting_once() {
        let text = format!(
            "{OPENAI_KEY} https://u:pw@h/ Bearer {ANTHROPIC_KEY} bot{BOT_TOKEN} \
             -----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----"
        );
        let once = redact(&text).into_owned();
        let twice = redact(&once);
        assert!(matches!(twice, Cow::Borrowed(_)), "{twice:?}");
        assert_eq!(twice, once);
    }

    #[test]
    fn emoji_and_right_to_left_text_around_secrets_are_kept() {
        assert_redacted(&format!("🔑{OPENAI_KEY}🔑 👩‍👩‍👧"), "🔑[redacted]🔑 👩‍👩‍👧");
        assert_redacted(
            &format!("המפתח שלי: {BOT_TOKEN} תודה! مفتاحي {OPENAI_KEY}."),
            "המפתח שלי: [redacted] תודה! مفتاحي [redacted].",
        );
    }

    #[test]
    fn a_secret_glued_to_a_non_latin_word_is_masked() {
        assert_redacted(&format!("ключ{OPENAI_KEY}ещё"), "ключ[redacted]ещё");
    }

    #[test]
    fn extra_patterns_from_the_config_are_masked_too() {
        let redactor = with_extra(&["ACME-[0-9]{6}", "", "  "]).expect("valid patterns");

        assert_eq!(
            redactor.redact(&format!("badge ACME-123456, key {OPENAI_KEY}")),
            "badge [redacted], key [redacted]"
        );
    }

    #[test]
    fn an_extra_pattern_with_a_group_masks_only_the_group() {
        let redactor = with_extra(&[r"(?i)password[:=]\s*(\S+)"]).expect("a valid pattern");

        assert_eq!(
            redactor.redact("wifi Password: correct-horse, ok"),
            "wifi Password: [redacted] ok"
        );
    }

    #[test]
    fn an_invalid_extra_pattern_is_an_error_naming_the_variable_and_the_pattern() {
        let error = with_extra(&["fine", "(unclosed"]).expect_err("an invalid pattern");

        let message = error.to_string();
        assert!(matches!(error, RedactionError::InvalidPattern { .. }));
        assert!(message.contains("REDACT_PATTERNS"), "{message}");
        assert!(message.contains("`(unclosed`"), "{message}");
        assert!(message.contains("unclosed group"), "{message}");
    }

    #[test]
    fn an_extra_pattern_matching_empty_text_is_an_error() {
        let error = with_extra(&["secret|"]).expect_err("a pattern matching empty text");

        let message = error.to_string();
        assert!(matches!(error, RedactionError::MatchesEmptyText { .. }));
        assert!(message.contains("REDACT_PATTERNS") && message.contains("`secret|`"));
    }

    #[derive(Debug, Parser)]
    struct TestCli {
        #[command(flatten)]
        redaction: RedactionConfig,
    }

    #[test]
    fn the_flag_repeats_and_splits_on_newlines() {
        let cli = TestCli::try_parse_from([
            "telemem",
            "--redact-pattern",
            "one\ntwo",
            "--redact-pattern",
            "three",
        ])
        .expect("the flags parse");

        assert_eq!(cli.redaction.extra_patterns, ["one", "two", "three"]);
    }

    // --- Property tests ---------------------------------------------------------------------

    /// Pieces of ordinary text that resemble secrets in some way but are not.
    const LOOKALIKES: &[&str] = &[
        "1Z999AA10123456784",
        "2024-05-01",
        "01.05.2024 12:30:45",
        "+1 (555) 123-4567",
        "+44 20 7946 0958",
        "#ff00aa",
        "#FFF",
        "a1b2c3d",
        "4f9d2c1e8b7a",
        "deadbeef",
        "550e8400-e29b-41d4-a716-446655440000",
        "task-force",
        "desk-lamp",
        "sk-",
        "sk-learn",
        "sk-learn-pipeline-preprocessing-steps",
        "ghp_",
        "AKIA",
        "the bearer of bad news",
        "https://example.com:8080/path?q=1",
        "ssh://git@github.com/owner/repo.git",
        "user@example.com",
        "-----BEGIN CERTIFICATE-----",
        "123456789:",
        "[redacted]",
    ];

    /// Text made of lookalikes, lower-case words, numbers and non-ASCII runs (emoji, CJK,
    /// right-to-left scripts...), always separated, so no secret can form across pieces.
    fn secret_free_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            prop::sample::select(LOOKALIKES).prop_map(str::to_owned),
            "[a-z]{1,8}".prop_filter("an auth scheme before a lookalike", |word| {
                word != "bearer"
            }),
            "[0-9]{1,7}",
            "[^\\x00-\\x7F]{1,6}",
        ];
        separated(piece, vec![" ", "\n", ", ", ". ", " — ", "\t"], 0..24)
    }

    /// An OpenAI- or Anthropic-style key (with the digit a real key all but surely has), or a
    /// Telegram bot token.
    fn generated_secret() -> impl Strategy<Value = String> {
        prop_oneof![
            (
                prop::sample::select(&["sk-", "sk-proj-", "sk-ant-api03-"][..]),
                "[A-Za-z0-9_-]{0,30}[0-9][A-Za-z0-9_-]{19,60}",
            )
                .prop_map(|(prefix, body)| format!("{prefix}{body}")),
            "[1-9][0-9]{7,9}:[A-Za-z0-9_-]{35}",
        ]
    }

    /// Secrets, their fragments, lookalikes and arbitrary characters, sometimes glued together.
    fn mixed_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            generated_secret(),
            prop::sample::select(LOOKALIKES).prop_map(str::to_owned),
            prop::sample::select(
                &[
                    "https://u:",
                    "pw@host/",
                    "Bearer ",
                    "0123456789abcdef0123456789abcdef",
                    "AKIAIOSFODNN7EXAMPLE",
                    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                    "-----BEGIN PRIVATE KEY-----\n",
                    "-----END PRIVATE KEY-----",
                    "\n\n",
                    "bot",
                    MASK,
                ][..]
            )
            .prop_map(str::to_owned),
            "\\PC{0,6}",
        ];
        let separator = prop::sample::select(&["", " ", "\n", ":", "@", "-"][..]);
        prop::collection::vec((piece, separator), 0..12).prop_map(|pieces| {
            pieces
                .into_iter()
                .map(|(piece, separator)| piece + separator)
                .collect()
        })
    }

    /// The char boundaries of `text`, its end included.
    fn char_boundaries(text: &str) -> Vec<usize> {
        text.char_indices()
            .map(|(index, _)| index)
            .chain([text.len()])
            .collect()
    }

    proptest! {
        #[test]
        fn text_without_secrets_comes_back_unchanged_and_borrowed(text in secret_free_text()) {
            let redacted = redact(&text);
            prop_assert!(matches!(redacted, Cow::Borrowed(_)), "changed to {:?}", redacted);
        }

        #[test]
        fn an_inserted_secret_is_masked_and_the_text_around_it_is_kept(
            text in secret_free_text(),
            at in any::<prop::sample::Index>(),
            secret in generated_secret(),
        ) {
            let boundaries = char_boundaries(&text);
            let (before, after) = text.split_at(boundaries[at.index(boundaries.len())]);
            let with_secret = format!("{before} {secret} {after}");

            let redacted = redact(&with_secret);

            prop_assert!(!redacted.contains(&secret));
            prop_assert_eq!(redacted, format!("{before} {MASK} {after}"));
        }

        #[test]
        fn redacting_twice_equals_redacting_once_for_any_mixture(text in mixed_text()) {
            let once = redact(&text).into_owned();
            let twice = redact(&once);
            prop_assert_eq!(&twice, &once);
            prop_assert!(matches!(twice, Cow::Borrowed(_)));
        }

        #[test]
        fn arbitrary_unicode_never_panics(text in any::<String>()) {
            let redacted = redact(&text);
            prop_assert_eq!(&redact(&redacted), &redacted);
        }
    }
}
