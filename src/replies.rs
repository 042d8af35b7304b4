//! Every sentence the bot says to users, for both front ends: Telegram and `telemem chat` in a
//! terminal. Each function takes the person's [`Lang`] and returns the sentence from that
//! language's file in `src/locales/` ([`crate::i18n`]), so callers never spell a message id.
//! Replies never carry internal error text or provider responses: those go to the log.

use fluent_bundle::FluentValue;

use crate::clock::format_utc_ms;
use crate::conversation::{ConversationStats, MemoryOverview, PERSONA_MAX_CHARS};
use crate::i18n::{self, Lang};

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

/// The `/memory` listing: numbered notes, then summaries with their session times.
pub fn memory(lang: Lang, overview: &MemoryOverview) -> String {
    let mut text = String::new();
    if overview.notes.is_empty() {
        text.push_str(&plain(lang, "memory-no-notes"));
        text.push('\n');
    } else {
        text.push_str(&plain(lang, "memory-notes-heading"));
        text.push('\n');
        for (index, note) in overview.notes.iter().enumerate() {
            let line = i18n::text(
                lang,
                "memory-note",
                [
                    ("number", value(index + 1)),
                    ("note", value(note.note.as_str())),
                    ("since", value(format_utc_ms(note.created_at_ms))),
                ],
            );
            text.push_str(&line);
            text.push('\n');
        }
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
    i18n::text(
        lang,
        "stats",
        [
            ("stored", value(stats.messages_stored)),
            ("in_context", value(stats.messages_in_context)),
            ("tokens_today", value(stats.tokens_today)),
            ("tokens_total", value(stats.tokens_total)),
            ("session", value(session)),
            ("last_activity", value(last_activity)),
        ],
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{NoteRecord, SummaryRecord};

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
             /stats what I store, /reset starts a fresh session, /export sends you your history, \
             /clear deletes it. /help lists everything."
        );
    }

    /// Every sentence of this module in `lang`, with sample values.
    fn every_sentence(lang: Lang) -> Vec<String> {
        let greeting = Greeting {
            history_window_secs: 86_400,
            purge_after_secs: 2_592_000,
            session_idle_secs: 1_800,
        };
        let stats_now = ConversationStats {
            messages_stored: 1,
            messages_in_context: 1,
            tokens_today: 1,
            tokens_total: 1,
            session_started_at_ms: None,
            last_activity_ms: None,
            now_ms: 0,
        };
        let empty = MemoryOverview {
            notes: Vec::new(),
            summaries: Vec::new(),
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
            stats(lang, &stats_now),
            terminal_welcome(lang, 7, 7),
            terminal_cannot_clear(lang),
            terminal_cannot_export(lang),
            human_duration(lang, 90_061),
        ];
        sentences.extend(
            [
                "start", "help", "persona", "stats", "memory", "forget", "reset", "clear", "export",
            ]
            .map(|name| command_description(lang, name).unwrap_or_default()),
        );
        sentences
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
        let stats_now = ConversationStats {
            messages_stored: 4,
            messages_in_context: 2,
            tokens_today: 120,
            tokens_total: 900,
            session_started_at_ms: Some(0),
            last_activity_ms: None,
            now_ms: 2 * 3_600_000,
        };
        let russian = stats(Lang::Ru, &stats_now);
        assert!(russian.contains("Сообщений сохранено: 4"), "{russian}");
        assert!(russian.contains("2 часа (с 1970-01-01"), "{russian}");
        let overview = MemoryOverview {
            notes: vec![NoteRecord {
                id: 1,
                note: "Mag Tee".to_owned(),
                created_at_ms: 0,
                confirmed_at_ms: 0,
            }],
            summaries: vec![SummaryRecord {
                session_id: 1,
                chat_id: 1,
                user_id: 1,
                summary: "Über Tee gesprochen".to_owned(),
                created_at_ms: 0,
                session_started_at_ms: 0,
                session_last_activity_at_ms: 0,
            }],
        };
        let german = memory(Lang::De, &overview);
        assert!(german.contains("1. Mag Tee (seit 1970-01-01"), "{german}");
        assert!(german.contains("• 1970-01-01"), "{german}");
    }
}
