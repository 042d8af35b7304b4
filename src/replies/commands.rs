//! What everyone's commands answer: `/help`, `/start`, `/persona`, `/memory`, `/remember` and
//! `/forget`, `/model`, `/incognito`, `/stats`, `/reset`, `/clear` and `/export`, what a group
//! hears when the answer went to a private chat, and what `telemem chat` says instead of the
//! commands a terminal cannot do.

use super::numbers::{human_duration, thousands};
use super::plain;
use super::views::{ConversationStats, MemoryOverview};
use crate::clock::format_utc_ms;
use crate::i18n::{self, Lang};
use crate::llm::ModelInUse;
use crate::memory::notes::MAX_NOTES_BY_HAND;

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
    say!(lang, "unknown-command", commands = descriptions)
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
    say!(lang, "from-group", group = title, answer = text)
}

pub fn export_caption_from_group(lang: Lang, title: &str) -> String {
    say!(lang, "export-caption-from-group", group = title)
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
    say!(lang, "cleared", messages, sessions)
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
    say!(lang, "persona-current", persona)
}

pub fn persona_set(lang: Lang, persona: &str) -> String {
    say!(lang, "persona-saved", persona)
}

pub fn persona_too_long(lang: Lang, length: usize, max: usize) -> String {
    say!(lang, "persona-too-long", length, max)
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
    /// The heading of the reminders' section.
    pub reminders: String,
}

pub fn export_labels(lang: Lang) -> ExportLabels {
    ExportLabels {
        title: plain(lang, "export-title"),
        user: plain(lang, "export-author-user"),
        bot: plain(lang, "export-author-bot"),
        system: plain(lang, "export-author-system"),
        reminders: plain(lang, "export-reminders"),
    }
}

pub fn forget_usage(lang: Lang) -> String {
    plain(lang, "forget-usage")
}

pub fn forgot(lang: Lang, note: &str) -> String {
    say!(lang, "forgot", note)
}

pub fn no_such_note(lang: Lang, number: &str) -> String {
    say!(lang, "no-such-note", number)
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
            let line = say!(
                lang,
                id,
                number = index + 1,
                note = note.note.as_str(),
                since = format_utc_ms(note.valid_from_ms)
            );
            text.push_str(&line);
            text.push('\n');
            // What the note said before it changed, each under it, newest first.
            for earlier in &note.earlier {
                let line = say!(
                    lang,
                    "memory-note-earlier",
                    note = earlier.note.as_str(),
                    until = format_utc_ms(earlier.until_ms)
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
    say!(
        lang,
        "start",
        history_window = human_duration(lang, greeting.history_window_secs),
        idle = human_duration(lang, greeting.session_idle_secs),
        purge_after = human_duration(lang, greeting.purge_after_secs)
    )
}

pub fn stats(lang: Lang, stats: &ConversationStats) -> String {
    let session = match stats.session_started_at_ms {
        Some(started) => say!(
            lang,
            "stats-session",
            age = human_duration(lang, ((stats.now_ms - started).max(0) / 1_000) as u64,),
            since = format_utc_ms(started)
        ),
        None => plain(lang, "stats-no-session"),
    };
    let last_activity = match stats.last_activity_ms {
        Some(at) => format_utc_ms(at),
        None => plain(lang, "stats-never"),
    };
    let used = thousands(lang, stats.tokens_today);
    let tokens_today = match stats.daily_token_limit {
        Some(limit) => say!(
            lang,
            "stats-tokens-today-limited",
            used,
            limit = thousands(lang, limit)
        ),
        None => say!(lang, "stats-tokens-today", used),
    };
    let mut text = say!(
        lang,
        "stats",
        stored = stats.messages_stored,
        in_context = stats.messages_in_context,
        tokens_today,
        tokens_total = stats.tokens_total,
        session,
        last_activity,
        model = stats.model.name.as_str()
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
        text.push_str(&say!(lang, "stats-incognito-tokens", tokens));
    }
    text
}

/// `telemem chat`'s greeting.
pub fn terminal_welcome(lang: Lang, user_id: i64, chat_id: i64) -> String {
    say!(lang, "terminal-welcome", user = user_id, chat = chat_id)
}

/// `/clear` in a terminal: Telegram asks for the confirmation with buttons.
pub fn terminal_cannot_clear(lang: Lang) -> String {
    plain(lang, "terminal-cannot-clear")
}

/// `/export` in a terminal: Telegram sends the history as a file.
pub fn terminal_cannot_export(lang: Lang) -> String {
    plain(lang, "terminal-cannot-export")
}

// --- /remember.

pub fn remember_usage(lang: Lang) -> String {
    plain(lang, "remember-usage")
}

pub fn remembered(lang: Lang, note: &str) -> String {
    say!(lang, "remembered", note)
}

pub fn already_remembered(lang: Lang, note: &str) -> String {
    say!(lang, "already-remembered", note)
}

pub fn note_replaced(lang: Lang, number: usize, old: &str, new: &str) -> String {
    say!(lang, "note-replaced", number, old, new)
}

pub fn note_too_long(lang: Lang, length: usize, max: usize) -> String {
    say!(lang, "note-too-long", length, max)
}

pub fn too_many_notes(lang: Lang) -> String {
    say!(lang, "too-many-notes", max = MAX_NOTES_BY_HAND)
}

// --- /model.

/// `/model`: which model answers the person, and why, when it is not the one they chose.
pub fn model_in_use(lang: Lang, model: &ModelInUse) -> String {
    match &model.unavailable_choice {
        Some(chosen) => say!(
            lang,
            "model-choice-unavailable",
            chosen = chosen.as_str(),
            model = model.name.as_str()
        ),
        None => say!(lang, "model-in-use", model = model.name.as_str()),
    }
}

/// `/model <name>` with a name that is not on offer.
pub fn model_unknown(lang: Lang, name: &str) -> String {
    say!(lang, "model-unknown", name)
}

pub fn model_chosen(lang: Lang, name: &str) -> String {
    say!(lang, "model-chosen", model = name)
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
