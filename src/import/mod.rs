//! `telemem import`: a history from elsewhere brought into one person's memory. A file is read
//! whole and checked before anything is written ([`read_history`]): Telegram Desktop's chat
//! export (`result.json`, [`telegram`]) or telemem's JSON Lines format ([`jsonl`]). Any fault
//! refuses the file with the line (and column, or the export's message) at fault. The messages
//! keep their original times; [`sessions`] cuts them into sessions by the same idle gap as live
//! chat, around the conversation's existing sessions, and the store writes them in one
//! transaction (`Store::import_sessions`). Each message carries a key derived from its source,
//! so importing the same file again stores nothing twice. Summaries and vectors are the
//! summarizer's and the embedder's work, as for any closed session; [`command`] is the command
//! line around it, with its progress bars.
//!
//! Nothing here knows about Telegram's Bot API; the export is a file like any other.

pub mod command;
pub mod jsonl;
pub mod sessions;
pub mod telegram;

use std::io::BufRead;

use sha2::{Digest, Sha256};

use crate::storage::{ImportMessage, Role};

/// The file formats `telemem import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Decided by the file's first line: a whole JSON object with `who` or `text` is JSON
    /// Lines, anything else a Telegram export.
    Auto,
    /// Telegram Desktop's chat export (`result.json`).
    Telegram,
    /// One JSON object per line: `time`, `who`, `text`.
    Jsonl,
}

/// Whose messages are the person's in a Telegram export (JSON Lines says it on every line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Senders {
    /// The `from_id` of the person (`user<id>`).
    pub person: String,
    /// The `from_id` of the assistant side; `None`: the one other sender, if there is only one.
    pub assistant: Option<String>,
}

/// A file read and checked, ready to be planned into sessions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Oldest first (equal times in the file's order).
    pub messages: Vec<ImportMessage>,
    /// Entries read but not imported, each kind with its count (service messages, messages of a
    /// third sender, messages with nothing to remember).
    pub skipped: Vec<(String, usize)>,
}

impl History {
    fn skip(&mut self, reason: &str) {
        match self.skipped.iter_mut().find(|(kind, _)| kind == reason) {
            Some((_, count)) => *count += 1,
            None => self.skipped.push((reason.to_owned(), 1)),
        }
    }

    /// Orders the messages by time, keeping the file's order among equal times.
    fn sort(&mut self) {
        self.messages.sort_by_key(|message| message.created_at_ms);
    }
}

/// Why a file cannot be imported; says where in the file, for the operator to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    #[error("line {line}: {reason}")]
    Line { line: usize, reason: String },
    #[error("{0}")]
    Telegram(String),
}

/// Reads and checks the whole history in `input` as `format`, with no message after `now_ms`
/// (plus a minute of clock skew): nothing is returned unless every entry is valid.
pub fn read_history(
    input: impl BufRead,
    format: Format,
    senders: &Senders,
    now_ms: i64,
) -> Result<History, ImportError> {
    let mut input = input;
    let format = match format {
        Format::Auto => detect_format(&mut input)?,
        chosen => chosen,
    };
    let latest_ms = now_ms + 60_000;
    let mut history = match format {
        Format::Telegram => telegram::read(input, senders, latest_ms)?,
        _ => jsonl::read(input, latest_ms)?,
    };
    history.sort();
    Ok(history)
}

/// A Telegram export is one JSON object over many lines whose first key is not `time`, `who` or
/// `text`; a JSON Lines file has a whole object on its first line. Looks at the first line only.
fn detect_format(input: &mut impl BufRead) -> Result<Format, ImportError> {
    let buffered = input.fill_buf()?;
    let start = buffered.iter().position(|byte| !byte.is_ascii_whitespace());
    let first_line_end = buffered.iter().position(|&byte| byte == b'\n');
    let Some(start) = start else {
        return Ok(Format::Jsonl);
    };
    let first_line = &buffered[start..first_line_end.unwrap_or(buffered.len())];
    let whole_object = serde_json::from_slice::<serde_json::Value>(first_line)
        .map(|value| value.get("who").is_some() || value.get("text").is_some())
        .unwrap_or(false);
    Ok(if whole_object {
        Format::Jsonl
    } else {
        Format::Telegram
    })
}

/// Text as every backend stores it: PostgreSQL's TEXT cannot hold NUL, so it becomes U+FFFD
/// here, before the import key is derived from it.
fn storable_text(text: &str) -> String {
    text.trim().replace('\0', "\u{FFFD}")
}

/// The import key of a message known only by its content: its time, sender and text, and how
/// many identical ones (same time, sender and text) came before it in the same file, so that
/// "ok" said twice in one second stays two messages.
fn content_key(time_ms: i64, role: Role, text: &str, earlier_twins: usize) -> String {
    let mut hash = Sha256::new();
    hash.update(time_ms.to_le_bytes());
    hash.update(match role {
        Role::User => b"u",
        Role::Assistant => b"a",
        Role::System => b"s",
    });
    hash.update((earlier_twins as u64).to_le_bytes());
    hash.update(text.as_bytes());
    let digest = hash.finalize();
    let hex: String = digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("line:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_object_on_the_first_line_is_json_lines() {
        let mut jsonl: &[u8] = b"{\"time\": 1, \"who\": \"user\", \"text\": \"hi\"}\n";
        let mut export: &[u8] = b"{\n \"name\": \"Bot\",\n \"messages\": []\n}\n";
        let mut minified: &[u8] = b"{\"name\":\"Bot\",\"type\":\"bot_chat\",\"messages\":[]}";
        assert_eq!(detect_format(&mut jsonl).unwrap(), Format::Jsonl);
        assert_eq!(detect_format(&mut export).unwrap(), Format::Telegram);
        assert_eq!(detect_format(&mut minified).unwrap(), Format::Telegram);
    }

    #[test]
    fn the_same_words_at_the_same_time_twice_get_two_keys() {
        let first = content_key(1_000, Role::User, "ok", 0);
        let second = content_key(1_000, Role::User, "ok", 1);
        assert_ne!(first, second);
        assert_eq!(first, content_key(1_000, Role::User, "ok", 0));
        assert_ne!(first, content_key(1_000, Role::Assistant, "ok", 0));
    }
}
