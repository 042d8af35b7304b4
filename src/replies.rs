//! Every sentence the bot says to users, for both front ends: Telegram and `telemem chat` in a
//! terminal. Each function takes the person's [`Lang`] and returns the sentence from that
//! language's file in `src/locales/` ([`crate::i18n`]), so callers never spell a message id.
//! Replies never carry internal error text or provider responses: those go to the log.

use fluent_bundle::FluentValue;

use crate::access_list::{AccessChange, AccessOverview};
use crate::clock::format_utc_ms;
use crate::conversation::{ConversationStats, MemoryOverview, PERSONA_MAX_CHARS};
use crate::i18n::{self, Lang};
use crate::llm::ModelInUse;
use crate::memory::notes::MAX_NOTES_BY_HAND;
use crate::quota::{LimitReached, LimitSource, PersonLimit};
use crate::storage::{PersonUsage, UserId};

/// A sentence without placeholders.
fn plain(lang: Lang, id: &str) -> String {
    i18n::text(lang, id, [])
}

/// A number or a text for a placeholder.
fn value<'a>(value: impl Into<FluentValue<'a>>) -> FluentValue<'a> {
    value.into()
}

/// The `/help` text's first line, above the commands.
pub fn help_intro(lang: Lang) -> String {
    plain(lang, "help-intro")
}

/// The description of the command `/name` for `/help` and the command menu; `None` when no
/// language file describes it (a command added before its translations: the caller keeps the
/// description it has).
pub fn command_description(lang: Lang, name: &str) -> Option<String> {
    i18n::text_if_any(lang, &format!("command-{name}"))
}

/// The reply to a command the bot does not know, with the list it does.
pub fn unknown_command(lang: Lang, descriptions: &str) -> String {
    i18n::text(lang, "unknown-command", [("commands", value(descriptions))])
}

pub fn not_allowed(lang: Lang) -> String {
    plain(lang, "not-allowed")
}

pub fn not_allowed_as_chat(lang: Lang) -> String {
    plain(lang, "not-allowed-as-chat")
}

/// In a group, after private material went to the person's private chat.
pub fn answered_in_private(lang: Lang) -> String {
    plain(lang, "answered-in-private")
}

/// In a group, when the bot may not write to the person's private chat.
pub fn ask_in_private(lang: Lang) -> String {
    plain(lang, "ask-in-private")
}

/// In a group, when private material was asked for as a channel or an anonymous admin.
pub fn private_needs_a_person(lang: Lang) -> String {
    plain(lang, "private-needs-a-person")
}

/// In a group, after `/persona <text>`: the text is not repeated there.
pub fn persona_saved_not_shown(lang: Lang) -> String {
    plain(lang, "persona-saved-not-shown")
}

/// Private material sent to a private chat, naming the group it was asked in.
pub fn from_group(lang: Lang, title: &str, text: &str) -> String {
    i18n::text(
        lang,
        "from-group",
        [("group", value(title)), ("answer", value(text))],
    )
}

pub fn export_caption_from_group(lang: Lang, title: &str) -> String {
    i18n::text(lang, "export-caption-from-group", [("group", value(title))])
}

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

pub fn storage_full(lang: Lang) -> String {
    plain(lang, "storage-full")
}

/// The notice for the first message past `USER_MAX_PENDING`.
pub fn too_many_waiting(lang: Lang, max: u32) -> String {
    i18n::text(lang, "too-many-waiting", [("max", value(max))])
}

/// The notice for the first message past `USER_MESSAGES_PER_MINUTE`.
pub fn too_many_per_minute(lang: Lang, max: u32) -> String {
    i18n::text(lang, "too-many-per-minute", [("max", value(max))])
}

pub fn empty_message(lang: Lang) -> String {
    plain(lang, "empty-message")
}

pub fn empty_reply(lang: Lang) -> String {
    plain(lang, "empty-reply")
}

pub fn message_too_long(lang: Lang, length: usize, max: usize) -> String {
    i18n::text(
        lang,
        "message-too-long",
        [("length", value(length)), ("max", value(max))],
    )
}

pub fn clear_confirm(lang: Lang) -> String {
    plain(lang, "clear-confirm")
}

pub fn clear_button_yes(lang: Lang) -> String {
    plain(lang, "clear-button-yes")
}

pub fn clear_button_no(lang: Lang) -> String {
    plain(lang, "clear-button-no")
}

pub fn clear_cancelled(lang: Lang) -> String {
    plain(lang, "clear-cancelled")
}

pub fn clear_not_yours(lang: Lang) -> String {
    plain(lang, "clear-not-yours")
}

pub fn cleared(lang: Lang, messages: u64, sessions: u64) -> String {
    i18n::text(
        lang,
        "cleared",
        [("messages", value(messages)), ("sessions", value(sessions))],
    )
}

pub fn reset_done(lang: Lang) -> String {
    plain(lang, "reset-done")
}

pub fn reset_nothing_open(lang: Lang) -> String {
    plain(lang, "reset-nothing-open")
}

pub fn persona_reset(lang: Lang) -> String {
    plain(lang, "persona-reset")
}

pub fn persona_none(lang: Lang) -> String {
    plain(lang, "persona-none")
}

pub fn persona_current(lang: Lang, persona: &str) -> String {
    i18n::text(lang, "persona-current", [("persona", value(persona))])
}

pub fn persona_set(lang: Lang, persona: &str) -> String {
    i18n::text(lang, "persona-saved", [("persona", value(persona))])
}

pub fn persona_too_long(lang: Lang, length: usize) -> String {
    i18n::text(
        lang,
        "persona-too-long",
        [("length", value(length)), ("max", value(PERSONA_MAX_CHARS))],
    )
}

pub fn export_empty(lang: Lang) -> String {
    plain(lang, "export-empty")
}

pub fn export_caption(lang: Lang) -> String {
    plain(lang, "export-caption")
}

/// The labels of an exported Markdown history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportLabels {
    pub title: String,
    pub user: String,
    pub bot: String,
    pub system: String,
}

pub fn export_labels(lang: Lang) -> ExportLabels {
    ExportLabels {
        title: plain(lang, "export-title"),
        user: plain(lang, "export-author-user"),
        bot: plain(lang, "export-author-bot"),
        system: plain(lang, "export-author-system"),
    }
}

pub fn forget_usage(lang: Lang) -> String {
    plain(lang, "forget-usage")
}

pub fn forgot(lang: Lang, note: &str) -> String {
    i18n::text(lang, "forgot", [("note", value(note))])
}

pub fn no_such_note(lang: Lang, number: &str) -> String {
    i18n::text(lang, "no-such-note", [("number", value(number))])
}

/// The `/memory` listing: whether incognito is on, numbered notes (those the person added
/// marked) since when they hold and what they said before, with how to change them, then
/// summaries with their session times.
pub fn memory(lang: Lang, overview: &MemoryOverview) -> String {
    let mut text = String::new();
    if overview.incognito {
        text.push_str(&plain(lang, "memory-incognito"));
        text.push_str("\n\n");
    }
    if overview.notes.is_empty() {
        text.push_str(&plain(lang, "memory-no-notes"));
        text.push('\n');
    } else {
        text.push_str(&plain(lang, "memory-notes-heading"));
        text.push('\n');
        for (index, note) in overview.notes.iter().enumerate() {
            let id = if note.added_by_hand {
                "memory-note-by-hand"
            } else {
                "memory-note"
            };
            let line = i18n::text(
                lang,
                id,
                [
                    ("number", value(index + 1)),
                    ("note", value(note.note.as_str())),
                    ("since", value(format_utc_ms(note.valid_from_ms))),
                ],
            );
            text.push_str(&line);
            text.push('\n');
            // What the note said before it changed, each under it, newest first.
            for earlier in &note.earlier {
                let line = i18n::text(
                    lang,
                    "memory-note-earlier",
                    [
                        ("note", value(earlier.note.as_str())),
                        ("until", value(format_utc_ms(earlier.until_ms))),
                    ],
                );
                text.push_str("    ");
                text.push_str(&line);
                text.push('\n');
            }
        }
        text.push_str(&plain(lang, "memory-notes-how-to"));
        text.push('\n');
    }
    text.push('\n');
    if overview.summaries.is_empty() {
        text.push_str(&plain(lang, "memory-no-summaries"));
    } else {
        text.push_str(&plain(lang, "memory-summaries-heading"));
        text.push('\n');
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

/// The time windows `/start` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Greeting {
    pub history_window_secs: u64,
    pub purge_after_secs: u64,
    pub session_idle_secs: u64,
}

pub fn start(lang: Lang, greeting: &Greeting) -> String {
    i18n::text(
        lang,
        "start",
        [
            (
                "history_window",
                value(human_duration(lang, greeting.history_window_secs)),
            ),
            (
                "idle",
                value(human_duration(lang, greeting.session_idle_secs)),
            ),
            (
                "purge_after",
                value(human_duration(lang, greeting.purge_after_secs)),
            ),
        ],
    )
}

pub fn stats(lang: Lang, stats: &ConversationStats) -> String {
    let session = match stats.session_started_at_ms {
        Some(started) => i18n::text(
            lang,
            "stats-session",
            [
                (
                    "age",
                    value(human_duration(
                        lang,
                        ((stats.now_ms - started).max(0) / 1_000) as u64,
                    )),
                ),
                ("since", value(format_utc_ms(started))),
            ],
        ),
        None => plain(lang, "stats-no-session"),
    };
    let last_activity = match stats.last_activity_ms {
        Some(at) => format_utc_ms(at),
        None => plain(lang, "stats-never"),
    };
    let used = value(thousands(lang, stats.tokens_today));
    let tokens_today = match stats.daily_token_limit {
        Some(limit) => i18n::text(
            lang,
            "stats-tokens-today-limited",
            [("used", used), ("limit", value(thousands(lang, limit)))],
        ),
        None => i18n::text(lang, "stats-tokens-today", [("used", used)]),
    };
    let mut text = i18n::text(
        lang,
        "stats",
        [
            ("stored", value(stats.messages_stored)),
            ("in_context", value(stats.messages_in_context)),
            ("tokens_today", value(tokens_today)),
            ("tokens_total", value(stats.tokens_total)),
            ("session", value(session)),
            ("last_activity", value(last_activity)),
            ("model", value(stats.model.name.as_str())),
        ],
    );
    if stats.model.unavailable_choice.is_some() {
        text.push(' ');
        text.push_str(&plain(lang, "stats-model-no-longer-offered"));
    }
    if stats.incognito {
        text.push('\n');
        text.push_str(&plain(lang, "stats-incognito"));
    }
    if stats.incognito_tokens_today > 0 {
        text.push('\n');
        let tokens = thousands(lang, stats.incognito_tokens_today.max(0) as u64);
        text.push_str(&i18n::text(
            lang,
            "stats-incognito-tokens",
            [("tokens", value(tokens))],
        ));
    }
    text
}

/// `telemem chat`'s greeting.
pub fn terminal_welcome(lang: Lang, user_id: i64, chat_id: i64) -> String {
    i18n::text(
        lang,
        "terminal-welcome",
        [("user", value(user_id)), ("chat", value(chat_id))],
    )
}

/// `/clear` in a terminal: Telegram asks for the confirmation with buttons.
pub fn terminal_cannot_clear(lang: Lang) -> String {
    plain(lang, "terminal-cannot-clear")
}

/// `/export` in a terminal: Telegram sends the history as a file.
pub fn terminal_cannot_export(lang: Lang) -> String {
    plain(lang, "terminal-cannot-export")
}

/// "3 days", "1 hour 30 minutes", "45 seconds": the two largest units that are not zero.
pub fn human_duration(lang: Lang, total_secs: u64) -> String {
    let units = [
        (86_400, "duration-days"),
        (3_600, "duration-hours"),
        (60, "duration-minutes"),
        (1, "duration-seconds"),
    ];
    let mut parts = Vec::new();
    let mut rest = total_secs;
    for (size, id) in units {
        let count = rest / size;
        if count > 0 {
            parts.push(i18n::text(lang, id, [("count", value(count))]));
            rest -= count * size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    match <[String; 2]>::try_from(parts) {
        Ok([larger, smaller]) => i18n::text(
            lang,
            "duration-two-units",
            [("larger", value(larger)), ("smaller", value(smaller))],
        ),
        Err(parts) => parts
            .into_iter()
            .next()
            .unwrap_or_else(|| i18n::text(lang, "duration-seconds", [("count", value(0))])),
    }
}

/// "512 bytes", "300 KB", "1 MB", "1.5 MB" (1 KB = 1,024 bytes), with the language's decimal mark.
pub fn human_bytes(lang: Lang, bytes: u64) -> String {
    const KB: u64 = 1_024;
    const MB: u64 = KB * KB;
    if bytes >= MB {
        let tenths = (bytes * 10 + MB / 2) / MB;
        let size = if tenths.is_multiple_of(10) {
            format!("{}", tenths / 10)
        } else {
            format!("{}{}{}", tenths / 10, decimal_mark(lang), tenths % 10)
        };
        i18n::text(lang, "size-megabytes", [("size", value(size))])
    } else if bytes >= KB {
        i18n::text(
            lang,
            "size-kilobytes",
            [("size", value((bytes + KB / 2) / KB))],
        )
    } else {
        i18n::text(lang, "size-bytes", [("count", value(bytes))])
    }
}

/// The mark between a number's whole part and its tenths.
fn decimal_mark(lang: Lang) -> char {
    match lang {
        Lang::En => '.',
        Lang::De | Lang::Es | Lang::Fr | Lang::Ru => ',',
    }
}

/// The mark between groups of three digits: "1,234" in English, "1.234" in German, "1 234"
/// (a no-break space) in French and Russian.
fn thousands_separator(lang: Lang) -> char {
    match lang {
        Lang::En => ',',
        Lang::De | Lang::Es => '.',
        Lang::Fr => '\u{202f}',
        Lang::Ru => '\u{a0}',
    }
}

/// A count with thousands grouped as `lang` writes them: "1,234,567" in English.
pub fn thousands(lang: Lang, count: u64) -> String {
    let digits = count.to_string();
    let separator = thousands_separator(lang);
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(separator);
        }
        grouped.push(digit);
    }
    grouped
}

/// "1 message", "1,234 tokens": a count of messages or tokens, in the plural form it takes.
fn counted(lang: Lang, id: &str, count: i64) -> String {
    let count = count.max(0) as u64;
    i18n::text(
        lang,
        id,
        [
            ("count", value(count)),
            ("shown", value(thousands(lang, count))),
        ],
    )
}

// --- Photos, voice notes and documents.

/// Shown above the answer to a voice note, audio file or video note: what was heard.
pub fn heard(lang: Lang, transcript: &str) -> String {
    i18n::text(lang, "media-heard", [("transcript", value(transcript))])
}

/// Shown above the answer to a document whose text was cut to fit the prompt.
pub fn document_cut(lang: Lang, shown_chars: usize, total_chars: usize) -> String {
    i18n::text(
        lang,
        "media-document-cut",
        [("shown", value(shown_chars)), ("total", value(total_chars))],
    )
}

/// A file over Telegram's 20 MB download limit for bots.
pub fn file_too_big(lang: Lang) -> String {
    plain(lang, "media-file-too-big")
}

pub fn document_too_big(lang: Lang, max_bytes: u64) -> String {
    i18n::text(
        lang,
        "media-document-too-big",
        [("max", value(human_bytes(lang, max_bytes)))],
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

// --- /remember.

pub fn remember_usage(lang: Lang) -> String {
    plain(lang, "remember-usage")
}

pub fn remembered(lang: Lang, note: &str) -> String {
    i18n::text(lang, "remembered", [("note", value(note))])
}

pub fn already_remembered(lang: Lang, note: &str) -> String {
    i18n::text(lang, "already-remembered", [("note", value(note))])
}

pub fn note_replaced(lang: Lang, number: usize, old: &str, new: &str) -> String {
    i18n::text(
        lang,
        "note-replaced",
        [
            ("number", value(number)),
            ("old", value(old)),
            ("new", value(new)),
        ],
    )
}

pub fn note_too_long(lang: Lang, length: usize, max: usize) -> String {
    i18n::text(
        lang,
        "note-too-long",
        [("length", value(length)), ("max", value(max))],
    )
}

pub fn too_many_notes(lang: Lang) -> String {
    i18n::text(lang, "too-many-notes", [("max", value(MAX_NOTES_BY_HAND))])
}

// --- /model.

/// `/model`: which model answers the person, and why, when it is not the one they chose.
pub fn model_in_use(lang: Lang, model: &ModelInUse) -> String {
    match &model.unavailable_choice {
        Some(chosen) => i18n::text(
            lang,
            "model-choice-unavailable",
            [
                ("chosen", value(chosen.as_str())),
                ("model", value(model.name.as_str())),
            ],
        ),
        None => i18n::text(
            lang,
            "model-in-use",
            [("model", value(model.name.as_str()))],
        ),
    }
}

/// `/model <name>` with a name that is not on offer.
pub fn model_unknown(lang: Lang, name: &str) -> String {
    i18n::text(lang, "model-unknown", [("name", value(name))])
}

pub fn model_chosen(lang: Lang, name: &str) -> String {
    i18n::text(lang, "model-chosen", [("model", value(name))])
}

/// Below the `/model` menu's buttons.
pub fn model_choose_with_buttons(lang: Lang) -> String {
    plain(lang, "model-choose-with-buttons")
}

/// Before the `/model` menu's list where there are no buttons (a terminal).
pub fn model_choose_by_name(lang: Lang) -> String {
    plain(lang, "model-choose-by-name")
}

/// A model in the `/model` menu, marked when it is the one that answers. Model names are not
/// translated, and the mark is a sign, so this is the same in every language.
pub fn model_label(name: &str, in_use: bool) -> String {
    if in_use {
        format!("✓ {name}")
    } else {
        name.to_owned()
    }
}

/// A press on someone else's `/model` menu in a group.
pub fn model_menu_not_yours(lang: Lang) -> String {
    plain(lang, "model-menu-not-yours")
}

/// A press on a `/model` menu whose list of models has changed since.
pub fn model_menu_out_of_date(lang: Lang) -> String {
    plain(lang, "model-menu-out-of-date")
}

// --- /incognito.

/// `/incognito`: the state, and how to switch.
pub fn incognito_state(lang: Lang, on: bool) -> String {
    plain(
        lang,
        if on {
            "incognito-is-on"
        } else {
            "incognito-is-off"
        },
    )
}

/// `/incognito on` or `/incognito off`; `changed` is false when it was so already.
pub fn incognito_switched(lang: Lang, on: bool, changed: bool) -> String {
    match (on, changed) {
        (true, true) => plain(lang, "incognito-switched-on"),
        (false, true) => plain(lang, "incognito-switched-off"),
        (on, false) => incognito_state(lang, on),
    }
}

// --- Limits.

/// Instead of a turn, when the person's tokens for the day are used up.
pub fn daily_limit_reached(lang: Lang, reached: &LimitReached) -> String {
    let wait_secs = ((reached.resets_at_ms - reached.now_ms).max(0) / 1_000) as u64;
    i18n::text(
        lang,
        "daily-limit-reached",
        [
            ("limit", value(thousands(lang, reached.limit))),
            ("used", value(thousands(lang, reached.used))),
            ("resets_at", value(format_utc_ms(reached.resets_at_ms))),
            ("wait", value(human_duration(lang, wait_secs))),
        ],
    )
}

/// Told once when the person's stored history reached `USER_MAX_STORED_MB`.
pub fn stored_history_capped(lang: Lang, max_bytes: u64) -> String {
    i18n::text(
        lang,
        "stored-history-capped",
        [("megabytes", value(max_bytes / (1024 * 1024)))],
    )
}

// --- The admins' commands.

/// The heading of the admins' part of `/help`.
pub fn admin_help_heading(lang: Lang) -> String {
    plain(lang, "admin-help-heading")
}

/// An admin command asked in a group.
pub fn admin_only_in_private(lang: Lang) -> String {
    plain(lang, "admin-only-in-private")
}

pub fn allow_usage(lang: Lang) -> String {
    plain(lang, "allow-usage")
}

pub fn block_usage(lang: Lang) -> String {
    plain(lang, "block-usage")
}

pub fn unblock_usage(lang: Lang) -> String {
    plain(lang, "unblock-usage")
}

pub fn limit_usage(lang: Lang) -> String {
    plain(lang, "limit-usage")
}

pub fn usage_usage(lang: Lang) -> String {
    plain(lang, "usage-usage")
}

pub fn cannot_block_yourself(lang: Lang) -> String {
    plain(lang, "cannot-block-yourself")
}

pub fn cannot_block_admin(lang: Lang) -> String {
    plain(lang, "cannot-block-admin")
}

/// What `/allow`, `/block` or `/unblock` did to `user_id`.
pub fn access_changed(lang: Lang, user_id: UserId, change: AccessChange) -> String {
    let id = match change {
        AccessChange::Allowed => "access-allowed",
        AccessChange::AlreadyAllowed => "access-already-allowed",
        AccessChange::Blocked => "access-blocked",
        AccessChange::AlreadyBlocked => "access-already-blocked",
        AccessChange::Unblocked => "access-unblocked",
        AccessChange::NotBlocked => "access-not-blocked",
    };
    i18n::text(lang, id, [("user", value(user_id.to_string()))])
}

/// A daily token limit and where it comes from: "50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)".
fn limit_line(lang: Lang, limit: &PersonLimit) -> String {
    let amount = match limit.tokens {
        Some(tokens) => i18n::text(
            lang,
            "limit-tokens-a-day",
            [
                ("count", value(tokens)),
                ("shown", value(thousands(lang, tokens))),
            ],
        ),
        None => plain(lang, "limit-none"),
    };
    let source = match limit.source {
        LimitSource::Setting => "USER_DAILY_TOKEN_LIMIT".to_owned(),
        LimitSource::Admin { set_by } => i18n::text(
            lang,
            "limit-set-by-admin",
            [("admin", value(set_by.to_string()))],
        ),
        LimitSource::Exempt => plain(lang, "limit-admins-exempt"),
    };
    i18n::text(
        lang,
        "limit-with-source",
        [("amount", value(amount)), ("source", value(source))],
    )
}

/// `/limit <id>`, and the answer to a change.
pub fn limit_of(lang: Lang, user_id: UserId, limit: &PersonLimit) -> String {
    i18n::text(
        lang,
        "limit-of",
        [
            ("user", value(user_id.to_string())),
            ("limit", value(limit_line(lang, limit))),
        ],
    )
}

/// One person's `/usage <id>`.
pub fn usage_of(
    lang: Lang,
    user_id: UserId,
    usage: &PersonUsage,
    limit: &PersonLimit,
    days: i64,
) -> String {
    let used_today = thousands(lang, usage.tokens_today.max(0) as u64);
    let today = match limit.tokens {
        Some(tokens) => i18n::text(
            lang,
            "usage-today-of-limit",
            [
                ("used", value(used_today)),
                ("limit", value(thousands(lang, tokens))),
            ],
        ),
        None => used_today,
    };
    i18n::text(
        lang,
        "usage-of",
        [
            ("user", value(user_id.to_string())),
            ("today", value(today)),
            ("days", value(days)),
            ("tokens", value(counted(lang, "count-tokens", usage.tokens))),
            (
                "messages",
                value(counted(lang, "count-messages", usage.messages)),
            ),
            ("limit", value(limit_line(lang, limit))),
        ],
    )
}

/// Everyone's `/usage`: tokens today and over `days` days, most first.
pub fn usage_report(lang: Lang, usage: &[PersonUsage], days: i64) -> String {
    if usage.is_empty() {
        return i18n::text(lang, "usage-nobody", [("days", value(days))]);
    }
    let mut text = i18n::text(lang, "usage-report-heading", [("days", value(days))]);
    text.push('\n');
    for person in usage {
        text.push_str(&format!(
            "• {}: {} · {}\n",
            person.user_id,
            thousands(lang, person.tokens_today.max(0) as u64),
            thousands(lang, person.tokens.max(0) as u64),
        ));
    }
    text
}

/// "123, 456": ids as `/users` lists them.
fn id_list(ids: &[UserId]) -> String {
    ids.iter()
        .map(UserId::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `/users`: who may use the bot, who is blocked, and who was active in the last `days` days.
pub fn users_overview(
    lang: Lang,
    access: &AccessOverview,
    active: &[PersonUsage],
    days: i64,
) -> String {
    let mut text = i18n::text(
        lang,
        "users-admins",
        [("ids", value(id_list(&access.admins)))],
    );
    text.push('\n');
    if access.allow_all {
        text.push_str(&plain(lang, "users-allow-all"));
        text.push('\n');
    }
    if !access.configured.is_empty() {
        text.push_str(&format!("ALLOWED_USERS: {}\n", id_list(&access.configured)));
    }
    for (id, rules) in [
        ("users-allowed-by-admins", &access.allowed),
        ("users-blocked", &access.blocked),
    ] {
        let title = plain(lang, id);
        if rules.is_empty() {
            let nobody = plain(lang, "users-nobody");
            text.push_str(&format!("{title}: {nobody}\n"));
            continue;
        }
        text.push_str(&format!("{title}:\n"));
        for rule in rules {
            let line = i18n::text(
                lang,
                "users-rule",
                [
                    ("user", value(rule.user_id.to_string())),
                    ("admin", value(rule.changed_by.to_string())),
                    ("at", value(format_utc_ms(rule.changed_at_ms))),
                ],
            );
            text.push_str(&format!("• {line}\n"));
        }
    }
    text.push('\n');
    if active.is_empty() {
        text.push_str(&i18n::text(
            lang,
            "users-nobody-active",
            [("days", value(days))],
        ));
        return text;
    }
    text.push_str(&i18n::text(
        lang,
        "users-active-heading",
        [("days", value(days))],
    ));
    text.push('\n');
    for person in active {
        text.push_str(&format!(
            "• {}: {}, {}\n",
            person.user_id,
            counted(lang, "count-messages", person.messages),
            counted(lang, "count-tokens", person.tokens),
        ));
    }
    text
}

/// To every admin, once per stranger: who wrote. `name` and `username` as Telegram shows them.
pub fn stranger_alert(lang: Lang, name: &str, username: Option<&str>, id: UserId) -> String {
    let handle = username
        .map(|username| format!(" (@{username})"))
        .unwrap_or_default();
    i18n::text(
        lang,
        "stranger-alert",
        [
            ("name", value(name)),
            ("handle", value(handle)),
            ("id", value(id.to_string())),
        ],
    )
}

pub fn stranger_button_allow(lang: Lang) -> String {
    plain(lang, "stranger-button-allow")
}

pub fn stranger_button_block(lang: Lang) -> String {
    plain(lang, "stranger-button-block")
}

/// Added to the alert once an admin pressed one of its buttons.
pub fn stranger_decided(
    lang: Lang,
    change: AccessChange,
    admin_name: &str,
    admin_id: UserId,
) -> String {
    let id = match change {
        AccessChange::Allowed | AccessChange::AlreadyAllowed => "stranger-allowed-by",
        _ => "stranger-blocked-by",
    };
    i18n::text(
        lang,
        id,
        [
            ("admin", value(admin_name)),
            ("admin_id", value(admin_id.to_string())),
        ],
    )
}

/// A press on an alert's button by someone who is not an admin.
pub fn only_admins_decide(lang: Lang) -> String {
    plain(lang, "only-admins-decide")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{AccessRule, AccessRuleRecord, NoteRecord, SummaryRecord};

    #[test]
    fn durations_read_naturally() {
        let en = |secs| human_duration(Lang::En, secs);
        assert_eq!(en(86_400), "1 day");
        assert_eq!(en(30 * 86_400), "30 days");
        assert_eq!(en(5_400), "1 hour 30 minutes");
        assert_eq!(en(1_800), "30 minutes");
        assert_eq!(en(0), "0 seconds");
    }

    #[test]
    fn durations_read_naturally_in_every_language() {
        assert_eq!(human_duration(Lang::De, 2 * 86_400), "2 Tage");
        assert_eq!(human_duration(Lang::De, 3_660), "1 Stunde 1 Minute");
        assert_eq!(human_duration(Lang::Es, 5_400), "1 hora y 30 minutos");
        assert_eq!(human_duration(Lang::Fr, 30 * 86_400), "30 jours");
        assert_eq!(human_duration(Lang::Ru, 86_400), "1 день");
        assert_eq!(human_duration(Lang::Ru, 2 * 86_400), "2 дня");
        assert_eq!(human_duration(Lang::Ru, 5 * 86_400), "5 дней");
        assert_eq!(
            human_duration(Lang::Ru, 3 * 3_600 + 21 * 60),
            "3 часа 21 минута"
        );
        assert_eq!(human_duration(Lang::Ru, 0), "0 секунд");
    }

    #[test]
    fn english_sentences_read_as_before() {
        assert_eq!(
            from_group(Lang::En, "Friends", "Your persona: none"),
            "You asked in the group “Friends”:\n\nYour persona: none"
        );
        assert_eq!(
            persona_none(Lang::En),
            "You have no persona set, so I use my default behaviour.\nSet one with /persona <how I \
             should behave>, e.g. /persona Answer briefly, like a pirate."
        );
        assert_eq!(
            cleared(Lang::En, 2, 1),
            "Deleted 2 messages from 1 session. I no longer remember anything from this chat."
        );
        assert_eq!(
            persona_too_long(Lang::En, 1_001),
            "That persona is 1001 characters long; at most 1000 are allowed. Please shorten it."
        );
        let greeting = Greeting {
            history_window_secs: 86_400,
            purge_after_secs: 30 * 86_400,
            session_idle_secs: 1_800,
        };
        assert_eq!(
            start(Lang::En, &greeting),
            "Hello! I am an AI assistant with a memory.\n\nI keep our conversation in this chat: \
             the last messages of the past 1 day verbatim, and summaries of earlier sessions (a \
             session ends after 30 minutes of silence). Everything is deleted automatically after \
             30 days.\n\n/persona sets how I behave for you, /memory shows what I keep about you, \
             /remember adds a note, /incognito on stops me storing anything, /stats shows what I \
             store, /reset starts a fresh session, /export sends you your history, /clear deletes \
             it. /help lists everything."
        );
    }

    /// Every sentence of this module in `lang`, with sample values.
    fn every_sentence(lang: Lang) -> Vec<String> {
        let greeting = Greeting {
            history_window_secs: 86_400,
            purge_after_secs: 2_592_000,
            session_idle_secs: 1_800,
        };
        let empty = MemoryOverview {
            notes: Vec::new(),
            summaries: Vec::new(),
            incognito: false,
        };
        let labels = export_labels(lang);
        let mut sentences = vec![
            help_intro(lang),
            unknown_command(lang, "/help"),
            not_allowed(lang),
            not_allowed_as_chat(lang),
            answered_in_private(lang),
            ask_in_private(lang),
            private_needs_a_person(lang),
            persona_saved_not_shown(lang),
            from_group(lang, "Friends", "text"),
            export_caption_from_group(lang, "Friends"),
            text_only(lang),
            model_unavailable(lang),
            model_rate_limited(lang),
            internal_error(lang),
            storage_full(lang),
            too_many_waiting(lang, 5),
            too_many_per_minute(lang, 20),
            empty_message(lang),
            empty_reply(lang),
            message_too_long(lang, 5_000, 4_096),
            clear_confirm(lang),
            clear_button_yes(lang),
            clear_button_no(lang),
            clear_cancelled(lang),
            clear_not_yours(lang),
            cleared(lang, 3, 1),
            reset_done(lang),
            reset_nothing_open(lang),
            persona_reset(lang),
            persona_none(lang),
            persona_current(lang, "terse"),
            persona_set(lang, "terse"),
            persona_too_long(lang, 1_001),
            export_empty(lang),
            export_caption(lang),
            labels.title,
            labels.user,
            labels.bot,
            labels.system,
            forget_usage(lang),
            forgot(lang, "tea"),
            no_such_note(lang, "9"),
            memory(lang, &empty),
            start(lang, &greeting),
            stats(lang, &sample_stats(Some(50_000), true)),
            stats(lang, &sample_stats(None, false)),
            memory(lang, &sample_memory(true)),
            terminal_welcome(lang, 7, 7),
            terminal_cannot_clear(lang),
            terminal_cannot_export(lang),
            human_duration(lang, 90_061),
        ];
        sentences.extend(
            [
                "start",
                "help",
                "cancel",
                "retry",
                "persona",
                "model",
                "stats",
                "memory",
                "remember",
                "forget",
                "incognito",
                "reset",
                "clear",
                "export",
                "allow",
                "block",
                "unblock",
                "limit",
                "users",
                "usage",
            ]
            .map(|name| command_description(lang, name).unwrap_or_default()),
        );
        sentences.extend(turn_sentences(lang));
        sentences.extend(command_sentences(lang));
        sentences.extend(admin_sentences(lang));
        sentences
    }

    fn sample_stats(limit: Option<u64>, incognito: bool) -> ConversationStats {
        ConversationStats {
            messages_stored: 1,
            messages_in_context: 1,
            tokens_today: 1_234,
            daily_token_limit: limit,
            tokens_total: 1,
            session_started_at_ms: Some(0),
            last_activity_ms: None,
            now_ms: 7_200_000,
            model: ModelInUse {
                name: "small-model".to_owned(),
                unavailable_choice: incognito.then(|| "old-model".to_owned()),
            },
            incognito,
            incognito_tokens_today: if incognito { 300 } else { 0 },
        }
    }

    fn sample_memory(incognito: bool) -> MemoryOverview {
        let note = |id: i64, text: &str, added_by_hand: bool| NoteRecord {
            id,
            note: text.to_owned(),
            created_at_ms: 0,
            confirmed_at_ms: 0,
            added_by_hand,
            valid_from_ms: 0,
            earlier: Vec::new(),
        };
        let mut changed = note(2, "Isst Fisch", true);
        changed.earlier = vec![crate::storage::EarlierValue {
            note: "Isst kein Fleisch".to_owned(),
            from_ms: None,
            until_ms: 3_600_000,
        }];
        MemoryOverview {
            notes: vec![note(1, "Mag Tee", false), changed],
            summaries: vec![SummaryRecord {
                session_id: 1,
                chat_id: crate::storage::ChatId(1),
                user_id: UserId(1),
                summary: "Über Tee gesprochen".to_owned(),
                created_at_ms: 0,
                session_started_at_ms: 0,
                session_last_activity_at_ms: 0,
            }],
            incognito,
        }
    }

    /// The sentences of photos, voice notes and documents, Stop and /retry.
    fn turn_sentences(lang: Lang) -> Vec<String> {
        vec![
            heard(lang, "hello"),
            document_cut(lang, 100, 2_000),
            file_too_big(lang),
            document_too_big(lang, 1_572_864),
            image_too_big(lang),
            file_empty(lang),
            image_unreadable(lang),
            document_not_text(lang),
            pdf_unreadable(lang),
            pdf_no_text(lang),
            file_unavailable(lang),
            media_timeout(lang),
            voice_not_set_up(lang),
            transcription_unavailable(lang),
            transcription_refused(lang),
            nothing_heard(lang),
            vision_not_supported(lang),
            stop_button(lang),
            nothing_to_stop(lang),
            stop_not_yours(lang),
            terminal_nothing_to_stop(lang),
            nothing_to_retry(lang),
            retry_while_running(lang),
            replaced_by_newer(lang),
            human_bytes(lang, 512),
            human_bytes(lang, 300 * 1_024),
            daily_limit_reached(
                lang,
                &LimitReached {
                    used: 50_100,
                    limit: 50_000,
                    resets_at_ms: 86_400_000,
                    now_ms: 3_600_000,
                },
            ),
            stored_history_capped(lang, 5 * 1_048_576),
        ]
    }

    /// The sentences of /remember, /model and /incognito.
    fn command_sentences(lang: Lang) -> Vec<String> {
        let chosen_gone = ModelInUse {
            name: "small-model".to_owned(),
            unavailable_choice: Some("old-model".to_owned()),
        };
        let chosen = ModelInUse {
            name: "small-model".to_owned(),
            unavailable_choice: None,
        };
        vec![
            remember_usage(lang),
            remembered(lang, "tea"),
            already_remembered(lang, "tea"),
            note_replaced(lang, 2, "tea", "coffee"),
            note_too_long(lang, 600, 500),
            too_many_notes(lang),
            model_in_use(lang, &chosen),
            model_in_use(lang, &chosen_gone),
            model_unknown(lang, "gpt-9"),
            model_chosen(lang, "small-model"),
            model_choose_with_buttons(lang),
            model_choose_by_name(lang),
            model_menu_not_yours(lang),
            model_menu_out_of_date(lang),
            incognito_state(lang, true),
            incognito_state(lang, false),
            incognito_switched(lang, true, true),
            incognito_switched(lang, false, true),
        ]
    }

    /// The sentences of the admins' commands and alerts.
    fn admin_sentences(lang: Lang) -> Vec<String> {
        let person = UserId(42);
        let usage = PersonUsage {
            user_id: person,
            messages: 3,
            tokens: 1_500,
            tokens_today: 200,
        };
        let mut sentences = vec![
            admin_help_heading(lang),
            admin_only_in_private(lang),
            allow_usage(lang),
            block_usage(lang),
            unblock_usage(lang),
            limit_usage(lang),
            usage_usage(lang),
            cannot_block_yourself(lang),
            cannot_block_admin(lang),
            usage_report(lang, &[], 30),
            usage_report(lang, std::slice::from_ref(&usage), 30),
            users_overview(lang, &sample_access(), &[], 7),
            users_overview(lang, &sample_access(), std::slice::from_ref(&usage), 7),
            stranger_alert(lang, "Eve", Some("eve"), person),
            stranger_button_allow(lang),
            stranger_button_block(lang),
            stranger_decided(lang, AccessChange::Allowed, "Ada", UserId(1)),
            stranger_decided(lang, AccessChange::Blocked, "Ada", UserId(1)),
            only_admins_decide(lang),
        ];
        for change in [
            AccessChange::Allowed,
            AccessChange::AlreadyAllowed,
            AccessChange::Blocked,
            AccessChange::AlreadyBlocked,
            AccessChange::Unblocked,
            AccessChange::NotBlocked,
        ] {
            sentences.push(access_changed(lang, person, change));
        }
        for limit in sample_limits() {
            sentences.push(limit_of(lang, person, &limit));
            sentences.push(usage_of(lang, person, &usage, &limit, 30));
        }
        sentences
    }

    fn sample_access() -> AccessOverview {
        let rule = |rule| AccessRuleRecord {
            user_id: UserId(42),
            rule,
            changed_by: UserId(1),
            changed_at_ms: 0,
        };
        AccessOverview {
            allow_all: true,
            admins: vec![UserId(1)],
            configured: vec![UserId(2), UserId(3)],
            allowed: vec![rule(AccessRule::Allow)],
            blocked: vec![rule(AccessRule::Block)],
        }
    }

    fn sample_limits() -> [PersonLimit; 3] {
        [
            PersonLimit {
                tokens: Some(50_000),
                source: LimitSource::Setting,
            },
            PersonLimit {
                tokens: Some(1),
                source: LimitSource::Admin { set_by: UserId(1) },
            },
            PersonLimit {
                tokens: None,
                source: LimitSource::Exempt,
            },
        ]
    }

    #[test]
    fn sizes_and_counts_read_naturally_in_every_language() {
        assert_eq!(human_bytes(Lang::En, 1_048_576), "1 MB");
        assert_eq!(human_bytes(Lang::En, 1_572_864), "1.5 MB");
        assert_eq!(human_bytes(Lang::En, 300 * 1_024), "300 KB");
        assert_eq!(human_bytes(Lang::En, 512), "512 bytes");
        assert_eq!(human_bytes(Lang::De, 1_572_864), "1,5 MB");
        assert_eq!(human_bytes(Lang::Fr, 1_572_864), "1,5 Mo");
        assert_eq!(thousands(Lang::En, 0), "0");
        assert_eq!(thousands(Lang::En, 999), "999");
        assert_eq!(thousands(Lang::En, 1_234), "1,234");
        assert_eq!(thousands(Lang::En, 1_234_567), "1,234,567");
        assert_eq!(thousands(Lang::De, 50_000), "50.000");
        assert_eq!(thousands(Lang::Ru, 50_000), "50\u{a0}000");
        assert_eq!(counted(Lang::En, "count-messages", 1), "1 message");
        assert_eq!(counted(Lang::En, "count-tokens", 1_234), "1,234 tokens");
        assert_eq!(counted(Lang::Ru, "count-messages", 1), "1 сообщение");
        assert_eq!(counted(Lang::Ru, "count-messages", 3), "3 сообщения");
        assert_eq!(counted(Lang::Ru, "count-messages", 11), "11 сообщений");
        assert_eq!(
            counted(Lang::Ru, "count-tokens", 1_500),
            "1\u{a0}500 токенов"
        );
        assert_eq!(counted(Lang::Ru, "count-tokens", 22), "22 токена");
    }

    #[test]
    fn the_admins_listings_read_as_before_in_english() {
        let usage = PersonUsage {
            user_id: UserId(42),
            messages: 1,
            tokens: 1_500,
            tokens_today: 200,
        };
        let [setting, by_admin, exempt] = sample_limits();
        assert_eq!(
            usage_of(Lang::En, UserId(42), &usage, &setting, 30),
            "Usage of 42\nTokens today: 200 of 50,000\nLast 30 days: 1,500 tokens, 1 message\n\
             Limit: 50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)"
        );
        assert_eq!(
            limit_of(Lang::En, UserId(42), &by_admin),
            "Daily token limit of 42: 1 token a day (set by admin 1 with /limit)."
        );
        assert_eq!(
            limit_of(Lang::En, UserId(1), &exempt),
            "Daily token limit of 1: no limit (admins are exempt)."
        );
        assert_eq!(
            users_overview(Lang::En, &sample_access(), &[usage], 7),
            "Admins: 1\nAllowed: everyone (ALLOW_ALL_USERS)\nALLOWED_USERS: 2, 3\n\
             Allowed by admins:\n• 42 (by 1, 1970-01-01 00:00 UTC)\n\
             Blocked:\n• 42 (by 1, 1970-01-01 00:00 UTC)\n\
             \nActive in the last 7 days:\n• 42: 1 message, 1,500 tokens\n"
        );
    }

    #[test]
    fn a_russian_limit_notice_counts_in_russian() {
        let reached = LimitReached {
            used: 50_100,
            limit: 50_000,
            resets_at_ms: 86_400_000,
            now_ms: 86_400_000 - 2 * 3_600_000,
        };
        let russian = daily_limit_reached(Lang::Ru, &reached);
        assert!(russian.contains("50\u{a0}000"), "{russian}");
        assert!(russian.contains("через 2 часа"), "{russian}");
        assert!(russian.contains("1970-01-02 00:00 UTC"), "{russian}");
    }

    #[test]
    fn every_sentence_exists_and_fills_its_placeholders_in_every_language() {
        for lang in Lang::ALL {
            for sentence in every_sentence(lang) {
                assert!(
                    !sentence.trim().is_empty()
                        && !sentence.contains(i18n::MISSING_MARK)
                        && !sentence.contains("{$")
                        && !sentence.contains("{ $"),
                    "{}: {sentence:?}",
                    lang.code()
                );
            }
        }
    }

    #[test]
    fn stats_and_memory_labels_are_translated() {
        let russian = stats(Lang::Ru, &sample_stats(Some(50_000), true));
        assert!(russian.contains("Сообщений сохранено: 1"), "{russian}");
        assert!(russian.contains("2 часа (с 1970-01-01"), "{russian}");
        assert!(
            russian.contains("1\u{a0}234 из 50\u{a0}000 (во всех ваших чатах)"),
            "{russian}"
        );
        assert!(russian.contains("Инкогнито: включено"), "{russian}");
        let german = memory(Lang::De, &sample_memory(true));
        assert!(
            german.starts_with("Inkognito ist in diesem Chat an"),
            "{german}"
        );
        assert!(german.contains("1. Mag Tee (seit 1970-01-01"), "{german}");
        assert!(
            german.contains("2. Isst Fisch (von dir hinzugefügt am 1970-01-01"),
            "{german}"
        );
        assert!(
            german.contains("\n    vorher: Isst kein Fleisch (bis 1970-01-01 01:00 UTC)\n"),
            "what a note said before is listed under it: {german}"
        );
        assert!(german.contains("• 1970-01-01"), "{german}");
    }
}
