//! telemem's JSON Lines history format: one object per line,
//! `{"time": "2024-05-01T09:30:00Z", "who": "user", "text": "I moved to Leipzig"}`.
//!
//! - `time`: an RFC 3339 string (with its offset), or an integer of UTC milliseconds.
//! - `who`: `user` (also `person`, `human`, `me`) or `assistant` (also `bot`, `ai`, `model`).
//! - `text`: what was said, not empty.
//!
//! Other fields are ignored; blank lines are skipped. Read line by line, so the file is never in
//! memory as a whole beside the messages read from it.

use std::collections::HashMap;
use std::io::BufRead;

use super::{History, ImportError, content_key, storable_text};
use crate::storage::{ImportMessage, Role};

/// Integer times below this (3 March 1973 in milliseconds) are taken for seconds, a common
/// mistake, and refused rather than stored 50 years too early.
const SMALLEST_MS: i64 = 100_000_000_000;

#[derive(serde::Deserialize)]
struct Line {
    time: Time,
    who: String,
    text: String,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Time {
    Millis(i64),
    Text(String),
}

/// Reads every line of `input`; the first fault refuses the whole file.
pub fn read(input: impl BufRead, latest_ms: i64) -> Result<History, ImportError> {
    let mut history = History::default();
    // How many messages with the same time, sender and text came before (see `content_key`).
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, line) in input.lines().enumerate() {
        let number = index + 1;
        let line = line.map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidData => ImportError::Line {
                line: number,
                reason: "not UTF-8 text".to_owned(),
            },
            _ => ImportError::Io(error),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let at_fault = |reason: String| ImportError::Line {
            line: number,
            reason,
        };
        let (time_ms, role, text) = parse_line(&line, latest_ms).map_err(at_fault)?;
        let twins = seen
            .entry(content_key(time_ms, role, &text, 0))
            .or_insert(0);
        history.messages.push(ImportMessage {
            import_key: content_key(time_ms, role, &text, *twins),
            role,
            created_at_ms: time_ms,
            content: text,
        });
        *twins += 1;
    }
    Ok(history)
}

/// One line as (time, sender, text), or what is wrong with it.
fn parse_line(line: &str, latest_ms: i64) -> Result<(i64, Role, String), String> {
    let parsed: Line = serde_json::from_str(line).map_err(|error| {
        // serde_json says "at line 1 column N"; the line is ours to name.
        let column = error.column();
        let reason = error.to_string();
        let reason = reason
            .rsplit_once(" at line ")
            .map_or(reason.as_str(), |(reason, _)| reason);
        format!("column {column}: {reason} (expected {{\"time\": …, \"who\": …, \"text\": …}})")
    })?;
    let time_ms = parse_time(&parsed.time)?;
    if time_ms > latest_ms {
        return Err(format!("time {time_ms} ms is in the future"));
    }
    let role = parse_role(&parsed.who)?;
    let text = storable_text(&parsed.text);
    if text.is_empty() {
        return Err("text is empty".to_owned());
    }
    Ok((time_ms, role, text))
}

fn parse_time(time: &Time) -> Result<i64, String> {
    match time {
        Time::Millis(ms) if *ms < SMALLEST_MS => Err(format!(
            "time {ms} is not UTC milliseconds (seconds? multiply by 1000)"
        )),
        Time::Millis(ms) => Ok(*ms),
        Time::Text(text) => chrono::DateTime::parse_from_rfc3339(text)
            .map(|time| time.timestamp_millis())
            .map_err(|error| {
                format!("time \"{text}\" is not RFC 3339 like 2024-05-01T09:30:00Z ({error})")
            }),
    }
}

fn parse_role(who: &str) -> Result<Role, String> {
    match who.trim().to_lowercase().as_str() {
        "user" | "person" | "human" | "me" => Ok(Role::User),
        "assistant" | "bot" | "ai" | "model" => Ok(Role::Assistant),
        _ => Err(format!(
            "who is \"{who}\": expected \"user\" or \"assistant\""
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn read_str(text: &str) -> Result<History, ImportError> {
        read(text.as_bytes(), NOW)
    }

    #[test]
    fn lines_become_messages_with_their_times_and_senders() {
        let history = read_str(
            "{\"time\": \"2024-05-01T09:30:00+02:00\", \"who\": \"me\", \"text\": \" hi \"}\n\
             \n\
             {\"time\": 1714548660000, \"who\": \"Bot\", \"text\": \"hello\", \"extra\": 1}\n",
        )
        .unwrap();
        let messages = &history.messages;
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].created_at_ms, 1_714_548_600_000);
        assert_eq!(
            (messages[0].role, &*messages[0].content),
            (Role::User, "hi")
        );
        assert_eq!(messages[1].created_at_ms, 1_714_548_660_000);
        assert_eq!(messages[1].role, Role::Assistant);
    }

    #[test]
    fn the_same_file_gives_the_same_keys_and_twins_differ() {
        let line = "{\"time\": 1714548600000, \"who\": \"user\", \"text\": \"ok\"}\n";
        let twice = read_str(&line.repeat(2)).unwrap();
        let again = read_str(&line.repeat(2)).unwrap();
        assert_ne!(twice.messages[0].import_key, twice.messages[1].import_key);
        assert_eq!(twice, again);
    }

    #[test]
    fn a_bad_line_is_named_with_its_column_and_fault() {
        let good = "{\"time\": 1714548600000, \"who\": \"user\", \"text\": \"ok\"}\n";
        let cases = [
            (
                "{\"time\": 1714548600000, \"who\": \"user\"}",
                "missing field `text`",
            ),
            (
                "{\"time\": 1714548600, \"who\": \"user\", \"text\": \"a\"}",
                "seconds?",
            ),
            (
                "{\"time\": \"yesterday\", \"who\": \"user\", \"text\": \"a\"}",
                "RFC 3339",
            ),
            (
                "{\"time\": 1714548600000, \"who\": \"cat\", \"text\": \"a\"}",
                "\"cat\"",
            ),
            (
                "{\"time\": 1714548600000, \"who\": \"user\", \"text\": \"  \"}",
                "empty",
            ),
            (
                "{\"time\": 1900000000000, \"who\": \"user\", \"text\": \"a\"}",
                "future",
            ),
            (
                "{\"time\": 1714548600000, \"who\": \"user\", \"text\": \"a\"",
                "column",
            ),
        ];
        for (bad, expected) in cases {
            let error = read_str(&format!("{good}{good}{bad}\n{good}"))
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("line 3: "), "{error}");
            assert!(error.contains(expected), "{error} should say {expected}");
        }
    }
}
