//! What the tools' side says: a reminder when it is due (or late), `/reminders` with its cancel
//! buttons, `/timezone`, and `/tools`.

use super::plain;
use crate::i18n::Lang;

/// A reminder, sent at its time.
pub fn reminder_due(lang: Lang, text: &str) -> String {
    say!(lang, "reminder-due", text)
}

/// A reminder sent after its time (the bot was not running then), with the time it was due.
pub fn reminder_late(lang: Lang, text: &str, due: &str) -> String {
    say!(lang, "reminder-late", text, due)
}

/// `/reminders`: one line per waiting reminder (or a hint when there are none), and the time
/// zone they are shown in.
pub fn reminder_list(lang: Lang, lines: &[String], zone: &str, zone_chosen: bool) -> String {
    let zone_line = if zone_chosen {
        say!(lang, "reminders-zone", zone)
    } else {
        say!(lang, "reminders-zone-default", zone)
    };
    if lines.is_empty() {
        return format!("{}\n\n{zone_line}", plain(lang, "reminders-none"));
    }
    format!(
        "{}\n\n{}\n\n{zone_line}",
        plain(lang, "reminders-heading"),
        lines.join("\n")
    )
}

/// The button that cancels reminder `number` of the list.
pub fn reminder_cancel_button(lang: Lang, number: usize) -> String {
    say!(lang, "reminder-cancel-button", number)
}

pub fn reminder_cancelled(lang: Lang) -> String {
    plain(lang, "reminder-cancelled")
}

/// A cancel press on a reminder already sent or cancelled.
pub fn reminder_already_gone(lang: Lang) -> String {
    plain(lang, "reminder-already-gone")
}

/// A press on someone else's reminder list.
pub fn reminder_not_yours(lang: Lang) -> String {
    plain(lang, "reminder-not-yours")
}

/// `/timezone` without a zone: the one in use and how to change it.
pub fn timezone_current(lang: Lang, zone: &str, local_time: &str, chosen: bool) -> String {
    let id = if chosen {
        "timezone-current"
    } else {
        "timezone-default"
    };
    say!(lang, id, zone, time = local_time)
}

pub fn timezone_set(lang: Lang, zone: &str, local_time: &str) -> String {
    say!(lang, "timezone-set", zone, time = local_time)
}

pub fn timezone_reset(lang: Lang, default_zone: &str) -> String {
    say!(lang, "timezone-reset", zone = default_zone)
}

pub fn timezone_unknown(lang: Lang, name: &str) -> String {
    say!(lang, "timezone-unknown", name)
}

/// `/tools`: the tools this person's model can use, one per line.
pub fn tools_list(lang: Lang, lines: &[String]) -> String {
    format!("{}\n\n{}", plain(lang, "tools-heading"), lines.join("\n"))
}

/// `/tools` when `TOOLS` is off.
pub fn tools_off(lang: Lang) -> String {
    plain(lang, "tools-off")
}

/// `/tools` when the person's model said it cannot take tools.
pub fn tools_unsupported(lang: Lang, model: &str) -> String {
    say!(lang, "tools-unsupported", model)
}

/// `/tools` in incognito: only the tools that store nothing.
pub fn tools_incognito_note(lang: Lang) -> String {
    plain(lang, "tools-incognito-note")
}
