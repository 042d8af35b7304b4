//! Session summaries and durable notes: the request the summarizer sends to the model (prompt in
//! `src/prompts/summarize.md`), parsing its answer, and the extractive fallback stored when the
//! model keeps failing, so that no session stays without a summary.

use crate::clock::format_utc_ms;
use crate::llm::{ChatMessage, ChatRequest};
use crate::storage::{MessageRole, StoredMessage};

/// The summarizer's instructions, shipped with the binary.
pub const SUMMARY_PROMPT: &str = include_str!("../prompts/summarize.md");

/// A summary is asked for in at most ~600 characters; a longer answer is cut at this length.
pub const SUMMARY_MAX_CHARS: usize = 800;

/// The extractive fallback keeps at most this many characters.
pub const EXTRACT_MAX_CHARS: usize = 600;

/// Notes kept per conversation, and the length of one.
pub const MAX_NOTES: usize = 20;
pub const NOTE_MAX_CHARS: usize = 200;

/// A session's transcript longer than this (in characters) is cut from the front: the end of a
/// session is what a later continuation most needs.
const TRANSCRIPT_MAX_CHARS: usize = 24_000;

/// What the model's answer means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedSummary {
    pub summary: String,
    /// `Some` when the answer had a NOTES section with at least one note: the complete new list.
    pub notes: Option<Vec<String>>,
}

/// The request that asks the model to summarize `messages` (already redacted), given the notes
/// kept so far.
pub fn summary_request(messages: &[StoredMessage], existing_notes: &[String]) -> ChatRequest {
    let mut transcript = String::new();
    for message in messages {
        let speaker = match message.role {
            MessageRole::User => "Person",
            MessageRole::Assistant => "Assistant",
            MessageRole::System => "System",
        };
        transcript.push_str(&format!(
            "[{}] {speaker}: {}\n",
            format_utc_ms(message.created_at_ms),
            message.content.trim()
        ));
    }
    if transcript.chars().count() > TRANSCRIPT_MAX_CHARS {
        let skip = transcript.chars().count() - TRANSCRIPT_MAX_CHARS;
        transcript = format!(
            "[… earlier part cut …]\n{}",
            transcript.chars().skip(skip).collect::<String>()
        );
    }
    let notes = if existing_notes.is_empty() {
        "- none".to_owned()
    } else {
        existing_notes
            .iter()
            .map(|note| format!("- {note}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    ChatRequest {
        system: SUMMARY_PROMPT.to_owned(),
        messages: vec![ChatMessage::user(format!(
            "<session>\n{transcript}</session>\n\n<existing_notes>\n{notes}\n</existing_notes>"
        ))],
    }
}

/// Reads the model's answer. Without a `SUMMARY:` marker the whole answer is the summary.
pub fn parse_summary_answer(answer: &str) -> ParsedSummary {
    let upper = answer.to_uppercase();
    let notes_at = upper.find("NOTES:");
    let summary_part = match (upper.find("SUMMARY:"), notes_at) {
        (Some(start), Some(end)) if start < end => &answer[start + "SUMMARY:".len()..end],
        (Some(start), _) => &answer[start + "SUMMARY:".len()..],
        (None, Some(end)) => &answer[..end],
        (None, None) => answer,
    };
    let notes = notes_at
        .map(|start| parse_notes(&answer[start + "NOTES:".len()..]))
        .filter(|notes| !notes.is_empty());
    ParsedSummary {
        summary: cap_chars(summary_part.trim(), SUMMARY_MAX_CHARS),
        notes,
    }
}

fn parse_notes(section: &str) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for line in section.lines() {
        let note = line.trim().trim_start_matches(['-', '*', '•']).trim();
        let is_none = note.is_empty() || note.trim_matches('.').eq_ignore_ascii_case("none");
        if is_none || notes.iter().any(|kept| kept == note) {
            continue;
        }
        notes.push(cap_chars(note, NOTE_MAX_CHARS));
        if notes.len() == MAX_NOTES {
            break;
        }
    }
    notes
}

/// A summary made without the model: the person's most informative lines (numbers, names, long
/// words), in their original order, up to [`EXTRACT_MAX_CHARS`].
pub fn extractive_summary(messages: &[StoredMessage]) -> String {
    let mut candidates: Vec<(usize, usize, &StoredMessage)> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| {
            message.role == MessageRole::User && !message.content.trim().is_empty()
        })
        .map(|(position, message)| (information_score(&message.content), position, message))
        .collect();
    // Lines with no information at all ("hi", "ok") only if nothing better exists.
    if candidates.iter().any(|(score, _, _)| *score > 0) {
        candidates.retain(|(score, _, _)| *score > 0);
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen = Vec::new();
    let mut length = 0;
    for (_, position, message) in candidates {
        let line = cap_chars(message.content.trim(), 200).replace('\n', " ");
        if length + line.chars().count() > EXTRACT_MAX_CHARS {
            continue;
        }
        length += line.chars().count() + 3;
        chosen.push((position, line));
    }
    chosen.sort_by_key(|(position, _)| *position);
    let lines: Vec<String> = chosen.into_iter().map(|(_, line)| line).collect();
    format!("(automatic extract) {}", lines.join(" | "))
}

/// How informative a line is, for the extractive summary: more for digits, capitalised words
/// inside a sentence and long words. (The memory evaluation's fake model ranks lines with it too.)
pub fn information_score(text: &str) -> usize {
    text.split_whitespace()
        .enumerate()
        .map(|(index, word)| {
            let digits = usize::from(word.chars().any(|c| c.is_ascii_digit())) * 3;
            let capital =
                usize::from(index > 0 && word.chars().next().is_some_and(char::is_uppercase)) * 2;
            let long = usize::from(word.chars().count() >= 7);
            digits + capital + long
        })
        .sum()
}

fn cap_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut capped: String = text.chars().take(max.saturating_sub(1)).collect();
    capped.push('…');
    capped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: MessageRole, content: &str) -> StoredMessage {
        StoredMessage {
            id: 1,
            chat_id: 1,
            user_id: 1,
            session_id: 1,
            role,
            content: content.to_owned(),
            created_at_ms: 1_796_047_506_789,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id: None,
        }
    }

    #[test]
    fn an_answer_with_both_sections_gives_summary_and_notes() {
        let parsed = parse_summary_answer(
            "SUMMARY:\nAsked where the Chemitek parcel is; UPS 1Z999.\n\nNOTES:\n- Works at Chemitek\n- Always answer in English\n- Works at Chemitek\n",
        );
        assert_eq!(
            parsed.summary,
            "Asked where the Chemitek parcel is; UPS 1Z999."
        );
        assert_eq!(
            parsed.notes,
            Some(vec![
                "Works at Chemitek".to_owned(),
                "Always answer in English".to_owned()
            ])
        );
    }

    #[test]
    fn notes_saying_none_keep_the_existing_list() {
        let parsed = parse_summary_answer("SUMMARY: Small talk.\nNOTES:\n- none");
        assert_eq!(parsed.summary, "Small talk.");
        assert_eq!(parsed.notes, None);
    }

    #[test]
    fn an_answer_without_markers_is_all_summary_and_long_ones_are_cut() {
        let parsed = parse_summary_answer(&"x".repeat(2_000));
        assert_eq!(parsed.summary.chars().count(), SUMMARY_MAX_CHARS);
        assert_eq!(parsed.notes, None);
    }

    #[test]
    fn the_request_carries_the_transcript_with_times_and_the_existing_notes() {
        let request = summary_request(
            &[
                message(MessageRole::User, "Where is the parcel?"),
                message(MessageRole::Assistant, "With UPS."),
            ],
            &["Works at Chemitek".to_owned()],
        );
        let text = &request.messages[0].content;
        assert!(
            text.contains("[2026-11-30 14:05 UTC] Person: Where is the parcel?"),
            "{text}"
        );
        assert!(text.contains("Assistant: With UPS."));
        assert!(text.contains("- Works at Chemitek"));
        assert!(request.system.contains("SUMMARY:"));
    }

    #[test]
    fn the_extract_prefers_lines_with_numbers_and_names_in_their_order() {
        let messages = [
            message(MessageRole::User, "hi"),
            message(
                MessageRole::User,
                "The Chemitek parcel has tracking 1Z999AA10123456784",
            ),
            message(MessageRole::Assistant, "ok"),
            message(
                MessageRole::User,
                "It should arrive Wednesday at Building 7",
            ),
        ];
        let extract = extractive_summary(&messages);
        assert!(
            extract.starts_with("(automatic extract) The Chemitek parcel"),
            "{extract}"
        );
        assert!(
            extract.contains("| It should arrive Wednesday"),
            "{extract}"
        );
        assert!(extract.chars().count() <= EXTRACT_MAX_CHARS + 40);
    }
}
