//! What a photo, a voice note or a document becomes in a conversation, free of Telegram: the text
//! stored as the person's message (a marker, the caption, the transcript, the start of a file),
//! the text the model reads for it, and the checks on a file's bytes (is this a picture, is this
//! text) that decide whether it can be read at all.
//!
//! Memory keeps text only: a picture is remembered by its marker and caption together with the
//! model's answer, a voice note by its transcript, a document by its name, caption and first
//! lines. The Telegram side fetches the files (`telegram/media.rs`); nothing here does input or
//! output.

pub mod document;
pub mod image;

/// Marks a stored message that came with a picture.
pub const PHOTO_MARKER: &str = "[photo]";

/// How a spoken message was recorded; each is stored with its own marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spoken {
    /// A voice note (held microphone).
    Voice,
    /// An audio file (music player attachment).
    Audio,
    /// A round video note; its sound is transcribed.
    VideoNote,
}

impl Spoken {
    const ALL: [Spoken; 3] = [Spoken::Voice, Spoken::Audio, Spoken::VideoNote];

    /// The marker a stored transcript starts with.
    pub fn marker(self) -> &'static str {
        match self {
            Self::Voice => "[voice]",
            Self::Audio => "[audio]",
            Self::VideoNote => "[video note]",
        }
    }
}

/// The person's message for a picture: the marker, then the caption if there is one.
pub fn photo_message(caption: &str) -> String {
    with_marker(PHOTO_MARKER, caption)
}

/// The person's message for a recording: the marker, then what was heard.
pub fn spoken_message(spoken: Spoken, transcript: &str) -> String {
    with_marker(spoken.marker(), transcript)
}

/// The transcript in a stored spoken message, as [`spoken_message`] wrote it; `None` for any
/// other message.
pub fn transcript_in(stored: &str) -> Option<&str> {
    Spoken::ALL.iter().find_map(|spoken| {
        stored
            .strip_prefix(spoken.marker())
            .map(str::trim_start)
            .filter(|transcript| !transcript.is_empty())
    })
}

fn with_marker(marker: &str, text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        marker.to_owned()
    } else {
        format!("{marker} {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_photo_is_remembered_by_its_marker_and_caption() {
        assert_eq!(photo_message("  my new bike "), "[photo] my new bike");
        assert_eq!(photo_message(""), "[photo]");
    }

    #[test]
    fn a_stored_transcript_is_found_again_behind_its_marker() {
        let stored = spoken_message(Spoken::VideoNote, "buy milk");
        assert_eq!(stored, "[video note] buy milk");
        assert_eq!(transcript_in(&stored), Some("buy milk"));
        assert_eq!(
            transcript_in(&spoken_message(Spoken::Voice, "hello")),
            Some("hello")
        );
        assert_eq!(transcript_in("[photo] a cat"), None);
        assert_eq!(transcript_in("I said [voice] once"), None);
    }
}
