//! The extractive summary: what is stored for a session when the model keeps failing, made from
//! the person's own most informative lines, so that no session stays without a summary.

use crate::storage::{Role, StoredMessage};

use super::cap_chars;

/// The extractive fallback keeps at most this many characters.
pub const EXTRACT_MAX_CHARS: usize = 600;

/// A summary made without the model: the person's most informative lines (numbers, names, long
/// words), in their original order, up to [`EXTRACT_MAX_CHARS`].
pub fn extractive_summary(messages: &[StoredMessage]) -> String {
    let mut candidates: Vec<(usize, usize, &StoredMessage)> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| message.role == Role::User && !message.content.trim().is_empty())
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::summary::test_support::message;

    #[test]
    fn the_extract_prefers_lines_with_numbers_and_names_in_their_order() {
        let messages = [
            message(Role::User, "hi"),
            message(
                Role::User,
                "The Chemitek parcel has tracking 1Z999AA10123456784",
            ),
            message(Role::Assistant, "ok"),
            message(Role::User, "It should arrive Wednesday at Building 7"),
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
