//! What the bot's side of the Mini App says: the buttons that open it, `/settings`, the names of
//! the person's chats in it, and its one failure sentence. The page's own sentences are the
//! `app-*` messages, which the page gets whole ([`crate::i18n::app_strings`]).

use super::plain;
use crate::i18n::Lang;

/// What the Mini App says when it failed on our side.
pub fn app_failed(lang: Lang) -> String {
    plain(lang, "webapp-failed")
}

/// What the Mini App says to a person past one of its limits: when to try again.
pub fn app_too_many(lang: Lang, seconds: u64) -> String {
    say!(lang, "webapp-too-many", seconds = seconds.to_string())
}

/// The person's private chat with the bot, as the Mini App names it.
pub fn app_private_chat(lang: Lang) -> String {
    plain(lang, "webapp-private-chat")
}

/// A group the person talks to the bot in, as the Mini App names it (the bot keeps no titles).
pub fn app_group_chat(lang: Lang, chat_id: i64) -> String {
    say!(lang, "webapp-group-chat", id = chat_id.to_string())
}

/// The Mini App sent an export to the person's private chat.
pub fn app_export_sent(lang: Lang) -> String {
    plain(lang, "webapp-export-sent")
}

/// The button under `/memory` that opens the Mini App.
pub fn app_memory_button(lang: Lang) -> String {
    plain(lang, "webapp-memory-button")
}

/// The button under `/settings` that opens the Mini App's settings.
pub fn app_settings_button(lang: Lang) -> String {
    plain(lang, "webapp-settings-button")
}

/// The chat's menu button that opens the Mini App.
pub fn app_menu_button(lang: Lang) -> String {
    plain(lang, "webapp-menu-button")
}

/// What `/settings` shows.
pub struct SettingsOverview<'a> {
    pub persona: Option<&'a str>,
    pub model: &'a str,
    pub incognito: bool,
    pub time_zone: &'a str,
    pub time_zone_chosen: bool,
}

/// `/settings`: the person's persona, model, incognito in this chat and time zone, and how to
/// change them.
pub fn settings_overview(lang: Lang, settings: &SettingsOverview<'_>) -> String {
    let persona = match settings.persona {
        Some(persona) => say!(lang, "settings-persona", persona),
        None => plain(lang, "settings-persona-default"),
    };
    let model = say!(lang, "settings-model", model = settings.model);
    let incognito = if settings.incognito {
        plain(lang, "settings-incognito-on")
    } else {
        plain(lang, "settings-incognito-off")
    };
    let zone_id = if settings.time_zone_chosen {
        "settings-time-zone"
    } else {
        "settings-time-zone-default"
    };
    let zone = say!(lang, zone_id, zone = settings.time_zone);
    format!(
        "{}\n\n{persona}\n{model}\n{incognito}\n{zone}\n\n{}",
        plain(lang, "settings-heading"),
        plain(lang, "settings-how-to-change")
    )
}
