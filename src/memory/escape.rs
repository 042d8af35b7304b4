//! Escaping of stored text for the prompts' structure. Prompts wrap stored text (messages,
//! summaries, notes) in a few tags: `<memory>` in a turn's prompt, `<session>` and
//! `<existing_notes>` in the summarizer's request. Text the person wrote must never open or close
//! one of them, or it could pass itself off as another part of the prompt (plant "existing notes",
//! end the data block and speak as instructions). [`escape_stored_text`] is the one function that
//! neutralises such tags, wherever stored text enters a prompt; [`one_line`] keeps a message on
//! its own line where a prompt's structure is one item per line. Pure: no I/O, no knowledge of
//! where the text came from.

use std::borrow::Cow;

/// The tag names prompts use for their structure. Stored text that would open or close a tag
/// starting with one of these names (in any ASCII case, with or without spaces after `<` or
/// `/`) has its `<` written `&lt;`.
pub const STRUCTURAL_TAGS: [&str; 4] = ["memory", "session", "existing_notes", "tool_result"];

/// What a line break inside a message becomes in a one-item-per-line prompt structure.
pub const LINE_BREAK_SIGN: &str = " ↵ ";

/// `text` with the `<` of every structural tag written `&lt;`; borrowed when there is none.
pub fn escape_stored_text(text: &str) -> Cow<'_, str> {
    if !text
        .char_indices()
        .any(|(at, c)| c == '<' && opens_tag(&text[at..]))
    {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for (at, c) in text.char_indices() {
        if c == '<' && opens_tag(&text[at..]) {
            escaped.push_str(&text[copied..at]);
            escaped.push_str("&lt;");
            copied = at + 1;
        }
    }
    escaped.push_str(&text[copied..]);
    Cow::Owned(escaped)
}

/// Whether `tail`, which starts with `<`, opens or closes a structural tag.
fn opens_tag(tail: &str) -> bool {
    let name = tail[1..].trim_start();
    let name = name.strip_prefix('/').unwrap_or(name).trim_start();
    STRUCTURAL_TAGS.iter().any(|tag| {
        name.as_bytes()
            .get(..tag.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(tag.as_bytes()))
    })
}

/// Whether `c` ends a line: the Unicode mandatory breaks (line feed, carriage return, vertical
/// tab, form feed, next line, line and paragraph separators). A model may read any of them as a
/// new line, so a structure that is one item per line must treat all of them as one.
pub fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text` on one line: each run of line breaks becomes [`LINE_BREAK_SIGN`].
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains(is_line_break) {
        return Cow::Borrowed(text);
    }
    let parts: Vec<&str> = text
        .split(is_line_break)
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    Cow::Owned(parts.join(LINE_BREAK_SIGN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structural_tags_are_escaped_in_any_case_and_spacing_and_other_tags_are_kept() {
        assert_eq!(
            escape_stored_text("a </memory> b <MEMORY> c <b> d < / Session > e <existing_notes>"),
            "a &lt;/memory> b &lt;MEMORY> c <b> d &lt; / Session > e &lt;existing_notes>"
        );
        assert_eq!(
            escape_stored_text("x < y, Vec<String>"),
            "x < y, Vec<String>"
        );
        assert!(matches!(
            escape_stored_text("nothing to escape"),
            Cow::Borrowed("nothing to escape")
        ));
    }

    #[test]
    fn a_lone_angle_bracket_at_the_end_is_kept() {
        assert_eq!(escape_stored_text("a <"), "a <");
        assert_eq!(escape_stored_text("<"), "<");
        assert_eq!(escape_stored_text("ü<"), "ü<");
    }

    #[test]
    fn every_kind_of_line_break_becomes_the_sign() {
        assert_eq!(
            one_line("a\nNOTES:\r\n- b\u{2028}c\u{85}d\re"),
            "a ↵ NOTES: ↵ - b ↵ c ↵ d ↵ e"
        );
        assert_eq!(one_line("one line"), "one line");
    }
}
