//! Every sentence the bot says to users, in one place, for both front ends: Telegram and
//! `telemem chat` in a terminal. Replies never carry internal error text or provider responses:
//! those go to the log.

use crate::clock::format_utc_ms;
use crate::conversation::{ConversationStats, MemoryOverview, PERSONA_MAX_CHARS};

pub const NOT_ALLOWED: &str = "Sorry, this bot is private and you are not on its list of users. Nothing you send here is stored.";

pub const NOT_ALLOWED_AS_CHAT: &str = "Sorry, this bot is private: it answers only the people on its list of users, and a message sent as a channel or as an anonymous admin does not show who wrote it. Write as yourself to use it. Nothing you send here is stored.";

/// In a group, after private material went to the person's private chat.
pub const ANSWERED_IN_PRIVATE: &str =
    "I sent you the answer in our private chat, to keep it out of the group.";

/// In a group, when the bot may not write to the person's private chat.
pub const ASK_IN_PRIVATE: &str = "I only show this in a private chat, and I cannot write to you there yet. Open a chat with me (tap my name), press Start, and ask there.";

/// In a group, when private material was asked for as a channel or an anonymous admin.
pub const PRIVATE_NEEDS_A_PERSON: &str = "I only show this in a private chat, and a message sent as a channel or as an anonymous admin has no private chat I can write to. Ask as yourself in a private chat with me.";

/// In a group, after `/persona <text>`: the text is not repeated there.
pub const PERSONA_SAVED_NOT_SHOWN: &str =
    "Persona saved. I keep it out of the group; /persona in a private chat with me shows it.";

/// Private material sent to a private chat, naming the group it was asked in.
pub fn from_group(title: &str, text: &str) -> String {
    format!("You asked in the group “{title}”:\n\n{text}")
}

pub fn export_caption_from_group(title: &str) -> String {
    format!("Your history in the group “{title}”.")
}

/// The reply to a command the bot does not know, with the list it does.
pub fn unknown_command(descriptions: &str) -> String {
    format!("I don't know that command. These are the ones I understand:\n\n{descriptions}")
}

pub const TEXT_ONLY: &str = "I can't read this kind of message — stickers, videos, archives and other such files pass me by. I read text, photos, voice notes and text documents (and PDFs); please send it as one of those.";

/// Shown above the answer to a voice note, audio file or video note: what was heard.
pub fn heard(transcript: &str) -> String {
    format!("🎤 “{transcript}”")
}

/// Shown above the answer to a document whose text was cut to fit the prompt.
pub fn document_cut(shown_chars: usize, total_chars: usize) -> String {
    format!("📄 The document is long: I read its first {shown_chars} of {total_chars} characters.")
}

/// A file over Telegram's 20 MB download limit for bots.
pub const FILE_TOO_BIG: &str = "That file is too big for me: Telegram lets bots fetch files of up to 20 MB. Please send a smaller one.";

pub fn document_too_big(max_bytes: u64) -> String {
    format!(
        "That document is larger than the {} I read. Please send a shorter file, or paste the part that matters.",
        human_bytes(max_bytes)
    )
}

pub const IMAGE_TOO_BIG: &str = "That picture file is too large for the model (over 5 MB). Please send it as a photo instead: Telegram makes it smaller.";

pub const FILE_EMPTY: &str = "That file is empty, so there is nothing for me to read.";

pub const IMAGE_UNREADABLE: &str =
    "I could not open that picture: it is not a JPEG, PNG, GIF or WebP image, or it is damaged.";

pub const DOCUMENT_NOT_TEXT: &str =
    "I could not read that file as text: it looks binary or damaged, or it is not in UTF-8.";

pub const PDF_UNREADABLE: &str = "I could not read that PDF: it seems damaged or protected.";

pub const PDF_NO_TEXT: &str =
    "That PDF has no text I can read; it is probably a scan. Please send its pages as photos.";

pub const FILE_UNAVAILABLE: &str =
    "I could not fetch your file from Telegram just now. Please send it again in a minute.";

pub const MEDIA_TIMEOUT: &str =
    "Fetching and reading your file took too long, so I stopped. Please try again in a minute.";

pub const VOICE_NOT_SET_UP: &str = "Voice notes are not set up on this bot, so I cannot listen to them. Please type your message instead.";

pub const TRANSCRIPTION_UNAVAILABLE: &str = "I could not transcribe your recording: the transcription service is not answering right now. Please try again in a minute, or type it.";

pub const TRANSCRIPTION_REFUSED: &str = "I could not make out that recording: the transcription service could not read it. Please record it again, or type it.";

pub const NOTHING_HEARD: &str =
    "I could not hear any words in that recording. Please try again, or type it.";

pub const VISION_NOT_SUPPORTED: &str = "The model I use cannot look at pictures. Your caption is saved; describe the picture in words, or ask the operator to set VISION_MODEL to a model that can see.";

pub const MODEL_UNAVAILABLE: &str =
    "The model is not answering right now. Your message is saved; please try again in a minute.";

pub const MODEL_RATE_LIMITED: &str = "The model is busy right now (rate limited). Your message is saved; please try again in a minute.";

pub const INTERNAL_ERROR: &str = "Something went wrong on my side and I could not handle that message. Please try again in a moment.";

pub const STORAGE_FULL: &str = "I cannot save anything right now because my storage is full. The operator has been told; please try again later.";

/// The notice for the first message past `USER_MAX_PENDING`.
pub fn too_many_waiting(max: u32) -> String {
    format!(
        "You are sending messages faster than I can answer: {max} of yours are already waiting. \
         I will answer those; anything you send before then is not read, so please send it again \
         once I have replied."
    )
}

/// The notice for the first message past `USER_MESSAGES_PER_MINUTE`.
pub fn too_many_per_minute(max: u32) -> String {
    format!(
        "That is more than {max} messages in a minute, so I did not read the last one. Please wait \
         a moment and send it again."
    )
}

pub const EMPTY_MESSAGE: &str = "Your message is empty — write something and I will answer.";

pub const EMPTY_REPLY: &str = "The model returned an empty answer. Please rephrase or try again.";

pub const CLEAR_CONFIRM: &str = "Delete all your history in this chat — messages, sessions, summaries and notes? Your persona stays. This cannot be undone.";
pub const CLEAR_BUTTON_YES: &str = "Yes, delete it";
pub const CLEAR_BUTTON_NO: &str = "Cancel";
pub const CLEAR_CANCELLED: &str = "Nothing was deleted.";
pub const CLEAR_NOT_YOURS: &str = "Only the person who asked for /clear can confirm it.";

pub const RESET_DONE: &str = "Started a fresh session. I still keep our earlier conversations and can recall them when they matter.";
pub const RESET_NOTHING_OPEN: &str =
    "A fresh session starts with your next message. Earlier conversations are still remembered.";

pub const PERSONA_RESET: &str = "Persona reset: I am back to my default behaviour.";
pub const PERSONA_NONE: &str = "You have no persona set, so I use my default behaviour.\nSet one with /persona <how I should behave>, e.g. /persona Answer briefly, like a pirate.";

pub const EXPORT_EMPTY: &str =
    "There is nothing to export: no messages are stored for you in this chat.";
pub const EXPORT_CAPTION: &str = "Your history in this chat.";

pub const FORGET_USAGE: &str =
    "Tell me which note to forget by its number, e.g. /forget 2. /memory lists them.";

pub fn forgot(note: &str) -> String {
    format!("Forgotten: {note}")
}

pub fn no_such_note(number: &str) -> String {
    format!("I have no note number {number}. /memory lists the notes I keep.")
}

/// The `/memory` listing: numbered notes, then summaries with their session times.
pub fn memory(overview: &MemoryOverview) -> String {
    let mut text = String::new();
    if overview.notes.is_empty() {
        text.push_str("I keep no notes about you in this chat yet. Lasting facts and preferences you tell me are noted after a session ends.\n");
    } else {
        text.push_str("Notes I keep about you (remove one with /forget <number>):\n");
        for (index, note) in overview.notes.iter().enumerate() {
            text.push_str(&format!(
                "{}. {} (since {})\n",
                index + 1,
                note.note,
                format_utc_ms(note.created_at_ms)
            ));
        }
    }
    if overview.summaries.is_empty() {
        text.push_str("\nNo session summaries yet: a session is summarized after it ends.");
    } else {
        text.push_str("\nSummaries of our earlier sessions:\n");
        for summary in overview.summaries.iter().rev() {
            text.push_str(&format!(
                "\n• {}: {}\n",
                format_utc_ms(summary.session_started_at_ms),
                summary.summary
            ));
        }
    }
    text
}

pub fn message_too_long(length: usize, max: usize) -> String {
    format!(
        "Your message is {length} characters long; I accept at most {max}. Please shorten it or split it into parts."
    )
}

pub fn start(history_window_secs: u64, purge_after_secs: u64, idle_secs: u64) -> String {
    format!(
        "Hello! I am an AI assistant with a memory.\n\n\
         I keep our conversation in this chat: the last messages of the past {} verbatim, and \
         summaries of earlier sessions (a session ends after {} of silence). Everything is deleted \
         automatically after {}.\n\n\
         /persona sets how I behave for you, /memory shows what I keep about you, /stats what I \
         store, /reset starts a fresh session, /export sends you your history, /clear deletes it. \
         /help lists everything.",
        human_duration(history_window_secs),
        human_duration(idle_secs),
        human_duration(purge_after_secs),
    )
}

pub fn persona_current(persona: &str) -> String {
    format!(
        "Your persona:\n\n{persona}\n\nChange it with /persona <text>, or go back to the default with /persona reset."
    )
}

pub fn persona_set(persona: &str) -> String {
    format!("Persona saved. From now on:\n\n{persona}")
}

pub fn persona_too_long(length: usize) -> String {
    format!(
        "That persona is {length} characters long; at most {PERSONA_MAX_CHARS} are allowed. Please shorten it."
    )
}

pub fn cleared(messages: u64, sessions: u64) -> String {
    format!(
        "Deleted {messages} messages from {sessions} sessions. I no longer remember anything from this chat."
    )
}

pub fn stats(stats: &ConversationStats) -> String {
    let session = match stats.session_started_at_ms {
        Some(started) => format!(
            "{} (since {})",
            human_duration(((stats.now_ms - started).max(0) / 1_000) as u64),
            format_utc_ms(started)
        ),
        None => "none open".to_owned(),
    };
    let last = stats
        .last_activity_ms
        .map(format_utc_ms)
        .unwrap_or_else(|| "never".to_owned());
    format!(
        "Your statistics in this chat\n\
         Messages stored: {}\n\
         Messages in the current context: {}\n\
         Tokens today: {}\n\
         Tokens in total: {}\n\
         Current session: {session}\n\
         Last activity: {last}",
        stats.messages_stored, stats.messages_in_context, stats.tokens_today, stats.tokens_total,
    )
}

/// `telemem chat`'s greeting.
pub fn terminal_welcome(user_id: i64, chat_id: i64) -> String {
    format!(
        "telemem chat as user {user_id} in chat {chat_id}. Type a message and press Enter; /help \
         lists the commands, /quit leaves."
    )
}

/// `/clear` in a terminal: Telegram asks for the confirmation with buttons.
pub const TERMINAL_CANNOT_CLEAR: &str = "/clear asks for a confirmation with buttons, which a terminal cannot show, so nothing was deleted.";

/// `/export` in a terminal: Telegram sends the history as a file.
pub const TERMINAL_CANNOT_EXPORT: &str =
    "/export sends your history as a file, which a terminal cannot receive.";

/// "512 bytes", "300 KB", "1 MB", "1.5 MB" (1 KB = 1,024 bytes).
pub fn human_bytes(bytes: u64) -> String {
    const KB: u64 = 1_024;
    const MB: u64 = KB * KB;
    if bytes >= MB {
        let tenths = (bytes * 10 + MB / 2) / MB;
        if tenths.is_multiple_of(10) {
            format!("{} MB", tenths / 10)
        } else {
            format!("{}.{} MB", tenths / 10, tenths % 10)
        }
    } else if bytes >= KB {
        format!("{} KB", (bytes + KB / 2) / KB)
    } else {
        format!("{bytes} bytes")
    }
}

/// "3 days", "1 hour 30 minutes", "45 seconds".
pub fn human_duration(total_secs: u64) -> String {
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let mut parts = Vec::new();
    let mut rest = total_secs;
    for (size, name) in units {
        let count = rest / size;
        if count > 0 {
            parts.push(format!(
                "{count} {name}{}",
                if count == 1 { "" } else { "s" }
            ));
            rest -= count * size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    if parts.is_empty() {
        "0 seconds".to_owned()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(1_048_576), "1 MB");
        assert_eq!(human_bytes(1_572_864), "1.5 MB");
        assert_eq!(human_bytes(300 * 1_024), "300 KB");
        assert_eq!(human_bytes(512), "512 bytes");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(86_400), "1 day");
        assert_eq!(human_duration(30 * 86_400), "30 days");
        assert_eq!(human_duration(5_400), "1 hour 30 minutes");
        assert_eq!(human_duration(1_800), "30 minutes");
        assert_eq!(human_duration(0), "0 seconds");
    }
}
