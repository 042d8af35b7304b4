//! What a chat turn says when it cannot answer as asked: a message it cannot take, a model or a
//! store that failed, a photo, voice note or document it cannot read, the limits; what is shown
//! above an answer (what was heard, a document cut to fit); and the Stop button and `/retry`.

use super::numbers::{human_bytes, human_duration, thousands};
use super::plain;
use crate::clock::format_utc_ms;
use crate::i18n::Lang;
use crate::quota::LimitReached;

pub fn text_only(lang: Lang) -> String {
    plain(lang, "text-only")
}

pub fn model_unavailable(lang: Lang) -> String {
    plain(lang, "model-unavailable")
}

pub fn model_rate_limited(lang: Lang) -> String {
    plain(lang, "model-rate-limited")
}

pub fn internal_error(lang: Lang) -> String {
    plain(lang, "internal-error")
}

/// The line a reply shows while a tool runs.
pub fn tool_activity(lang: Lang, activity: super::views::ToolActivity) -> String {
    use super::views::ToolActivity;
    let id = match activity {
        ToolActivity::SearchingMemory => "tool-searching-memory",
        ToolActivity::Remembering => "tool-remembering",
        ToolActivity::SettingReminder => "tool-setting-reminder",
        ToolActivity::UsingTool => "tool-using",
    };
    plain(lang, id)
}

pub fn storage_full(lang: Lang) -> String {
    plain(lang, "storage-full")
}

/// The notice for the first message past `USER_MAX_PENDING`.
pub fn too_many_waiting(lang: Lang, max: u32) -> String {
    say!(lang, "too-many-waiting", max)
}

/// The notice for the first message past `USER_MESSAGES_PER_MINUTE`.
pub fn too_many_per_minute(lang: Lang, max: u32) -> String {
    say!(lang, "too-many-per-minute", max)
}

pub fn empty_message(lang: Lang) -> String {
    plain(lang, "empty-message")
}

pub fn empty_reply(lang: Lang) -> String {
    plain(lang, "empty-reply")
}

pub fn message_too_long(lang: Lang, length: usize, max: usize) -> String {
    say!(lang, "message-too-long", length, max)
}

// --- Photos, voice notes and documents.

/// Shown above the answer to a voice note, audio file or video note: what was heard.
pub fn heard(lang: Lang, transcript: &str) -> String {
    say!(lang, "media-heard", transcript)
}

/// Shown above the answer to a document whose text was cut to fit the prompt.
pub fn document_cut(lang: Lang, shown_chars: usize, total_chars: usize) -> String {
    say!(
        lang,
        "media-document-cut",
        shown = shown_chars,
        total = total_chars
    )
}

/// A file over Telegram's 20 MB download limit for bots.
pub fn file_too_big(lang: Lang) -> String {
    plain(lang, "media-file-too-big")
}

pub fn document_too_big(lang: Lang, max_bytes: u64) -> String {
    say!(
        lang,
        "media-document-too-big",
        max = human_bytes(lang, max_bytes)
    )
}

pub fn image_too_big(lang: Lang) -> String {
    plain(lang, "media-image-too-big")
}

pub fn file_empty(lang: Lang) -> String {
    plain(lang, "media-file-empty")
}

pub fn image_unreadable(lang: Lang) -> String {
    plain(lang, "media-image-unreadable")
}

pub fn document_not_text(lang: Lang) -> String {
    plain(lang, "media-document-not-text")
}

pub fn pdf_unreadable(lang: Lang) -> String {
    plain(lang, "media-pdf-unreadable")
}

pub fn pdf_no_text(lang: Lang) -> String {
    plain(lang, "media-pdf-no-text")
}

pub fn file_unavailable(lang: Lang) -> String {
    plain(lang, "media-file-unavailable")
}

pub fn media_timeout(lang: Lang) -> String {
    plain(lang, "media-timeout")
}

pub fn voice_not_set_up(lang: Lang) -> String {
    plain(lang, "media-voice-not-set-up")
}

pub fn transcription_unavailable(lang: Lang) -> String {
    plain(lang, "media-transcription-unavailable")
}

pub fn transcription_refused(lang: Lang) -> String {
    plain(lang, "media-transcription-refused")
}

pub fn nothing_heard(lang: Lang) -> String {
    plain(lang, "media-nothing-heard")
}

pub fn vision_not_supported(lang: Lang) -> String {
    plain(lang, "media-vision-not-supported")
}

// --- Stop and /retry.

/// Ends the text of an answer that was stopped while it was being written. It is stored in the
/// history with the answer (the model reads it later, `/export` shows it), and one conversation
/// can be read in several languages (a group), so it is a sign rather than a word.
pub const STOPPED: &str = "⏹";

/// The button under an answer being written.
pub fn stop_button(lang: Lang) -> String {
    plain(lang, "stop-button")
}

pub fn nothing_to_stop(lang: Lang) -> String {
    plain(lang, "nothing-to-stop")
}

/// A press on someone else's Stop button (shown by Telegram as a short notice).
pub fn stop_not_yours(lang: Lang) -> String {
    plain(lang, "stop-not-yours")
}

/// `/cancel` in a terminal, which reads the next line only once the answer is complete.
pub fn terminal_nothing_to_stop(lang: Lang) -> String {
    plain(lang, "terminal-nothing-to-stop")
}

pub fn nothing_to_retry(lang: Lang) -> String {
    plain(lang, "nothing-to-retry")
}

pub fn retry_while_running(lang: Lang) -> String {
    plain(lang, "retry-while-running")
}

/// What an answer replaced by /retry shows when the new one comes in a message of its own.
pub fn replaced_by_newer(lang: Lang) -> String {
    plain(lang, "replaced-by-newer")
}

// --- Limits.

/// Instead of a turn, when the person's tokens for the day are used up.
pub fn daily_limit_reached(lang: Lang, reached: &LimitReached) -> String {
    let wait_secs = ((reached.resets_at_ms - reached.now_ms).max(0) / 1_000) as u64;
    say!(
        lang,
        "daily-limit-reached",
        limit = thousands(lang, reached.limit),
        used = thousands(lang, reached.used),
        resets_at = format_utc_ms(reached.resets_at_ms),
        wait = human_duration(lang, wait_secs)
    )
}

/// Told once when the person's stored history reached `USER_MAX_STORED_MB`.
pub fn stored_history_capped(lang: Lang, max_bytes: u64) -> String {
    say!(
        lang,
        "stored-history-capped",
        megabytes = max_bytes / (1024 * 1024)
    )
}

/// The title of the one result an inline query (`@bot question`) offers; `bot` is the bot's name.
pub fn inline_title(lang: Lang, bot: &str) -> String {
    say!(lang, "inline-title", bot)
}

/// What the message an inline result posts shows below the question until the answer comes.
pub fn inline_waiting(lang: Lang) -> String {
    plain(lang, "inline-waiting")
}
