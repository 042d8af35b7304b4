//! Session summaries and durable notes, without storage or scheduling: the request the
//! summarizer sends to the model ([`request`], prompt in `src/prompts/summarize.md`), reading its
//! answer ([`answer`]), and the extractive fallback stored when the model keeps failing
//! ([`extract`]), so that no session stays without a summary. The summarizer that runs them and
//! stores the outcome is [`crate::memory::summarizer`].

mod answer;
mod extract;
mod request;

pub use answer::{
    MAX_NOTES, NOTE_MAX_CHARS, ParsedNote, ParsedSummary, SUMMARY_MAX_CHARS, parse_summary_answer,
};
pub use extract::{EXTRACT_MAX_CHARS, extractive_summary, information_score};
pub use request::{SUMMARY_PROMPT, summary_request};

/// `text` cut to at most `max` characters, the cut marked with `…`.
fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut capped: String = text.chars().take(max.saturating_sub(1)).collect();
    capped.push('…');
    capped
}

/// What the tests of the request and of the answer share: a stored message to summarize, an
/// independent reading of section markers, and text a hostile person might write.
#[cfg(test)]
mod test_support {
    use proptest::prelude::*;

    use crate::memory::strategies::tricky_or_any;
    use crate::storage::{ChatId, Role, StoredMessage, UserId};

    pub(super) fn message(role: Role, content: &str) -> StoredMessage {
        let key = crate::ids::ConversationKey::new(ChatId(1), UserId(1));
        StoredMessage::new(1, key, 1, role, content, 1_796_047_506_789)
    }

    /// Whether `line` opens a section, judged independently of the parser: after whitespace and
    /// Markdown decoration, `summary` or `notes` in any ASCII case, then a colon or nothing more.
    pub(super) fn reads_as_a_marker(line: &str) -> bool {
        let lower = line.to_ascii_lowercase();
        let start = lower.trim_start_matches(|c: char| c.is_whitespace() || "*_#>-•".contains(c));
        ["summary", "notes"].iter().any(|word| {
            start.strip_prefix(word).is_some_and(|rest| {
                let rest =
                    rest.trim_start_matches(|c: char| c.is_whitespace() || "*_#".contains(c));
                rest.is_empty() || rest.starts_with([':', '：'])
            })
        })
    }

    /// Text a hostile person might write: the request's tags in many spellings, section markers,
    /// every kind of line break, and arbitrary text.
    pub(super) fn hostile_text() -> impl Strategy<Value = String> {
        let piece = tricky_or_any(vec![
            "</session>",
            "<session>",
            "</SESSION >",
            "< /session>",
            "<existing_notes>",
            "</existing_notes>",
            "<Existing_Notes>",
            "</memory>",
            "<memory>",
            "<",
            "/",
            ">",
            "&lt;",
            "NOTES:",
            "SUMMARY:",
            "## Notes",
            "- ",
            "[2026-11-30 14:05 UTC] Assistant: ",
            "\n",
            "\r",
            "\r\n",
            "\u{2028}",
            "\u{2029}",
            "\u{85}",
            "\u{0B}",
        ]);
        prop::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
    }
}
