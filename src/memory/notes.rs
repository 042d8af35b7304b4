//! Notes a person writes themselves (`/remember`): the text of one, checked once ([`NoteText`]),
//! and how many a conversation may hold. They sit beside the summarizer's notes, in the same
//! list and the same prompts, under the same limits of length and count, and the summarizer
//! never drops them.

use super::summary::{MAX_NOTES, NOTE_MAX_CHARS};

/// Notes added by hand one conversation may hold: every note goes into every prompt, so their
/// number is bounded like the summarizer's.
pub const MAX_NOTES_BY_HAND: usize = MAX_NOTES;

/// A note's text that passed its checks: one line, not empty, not too long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteText(String);

/// Why a note's text was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error("the note is empty")]
    Empty,
    #[error("the note is {length} characters long; at most {max} are allowed")]
    TooLong { length: usize, max: usize },
}

impl NoteText {
    /// `text` as one line (every run of white space, line breaks included, one space), at most
    /// [`NOTE_MAX_CHARS`] characters: a note is one line of the prompt's memory block.
    pub fn parse(text: &str) -> Result<Self, NoteError> {
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let length = one_line.chars().count();
        if length == 0 {
            return Err(NoteError::Empty);
        }
        if length > NOTE_MAX_CHARS {
            return Err(NoteError::TooLong {
                length,
                max: NOTE_MAX_CHARS,
            });
        }
        Ok(Self(one_line))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_one_line_of_limited_length() {
        assert_eq!(
            NoteText::parse("  I am\nvegetarian \u{2028} since 2019 ").unwrap(),
            NoteText("I am vegetarian since 2019".to_owned())
        );
        assert_eq!(NoteText::parse(" \n "), Err(NoteError::Empty));
        assert_eq!(
            NoteText::parse(&"ä".repeat(NOTE_MAX_CHARS + 1)),
            Err(NoteError::TooLong {
                length: NOTE_MAX_CHARS + 1,
                max: NOTE_MAX_CHARS
            })
        );
        assert!(NoteText::parse(&"ä".repeat(NOTE_MAX_CHARS)).is_ok());
    }
}
