//! What the admins read (their commands' answers, the alert about a stranger and its buttons)
//! and what strangers and blocked people hear.

use super::numbers::{counted, thousands};
use super::plain;
use crate::access_list::{AccessChange, AccessOverview};
use crate::clock::format_utc_ms;
use crate::i18n::Lang;
use crate::quota::{LimitSource, PersonLimit};
use crate::storage::{PersonUsage, UserId};

pub fn not_allowed(lang: Lang) -> String {
    plain(lang, "not-allowed")
}

pub fn not_allowed_as_chat(lang: Lang) -> String {
    plain(lang, "not-allowed-as-chat")
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
    say!(lang, id, user = user_id.to_string())
}

/// A daily token limit and where it comes from: "50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)".
fn limit_line(lang: Lang, limit: &PersonLimit) -> String {
    let amount = match limit.tokens {
        Some(tokens) => say!(
            lang,
            "limit-tokens-a-day",
            count = tokens,
            shown = thousands(lang, tokens)
        ),
        None => plain(lang, "limit-none"),
    };
    let source = match limit.source {
        LimitSource::Setting => "USER_DAILY_TOKEN_LIMIT".to_owned(),
        LimitSource::Admin { set_by } => {
            say!(lang, "limit-set-by-admin", admin = set_by.to_string())
        }
        LimitSource::Exempt => plain(lang, "limit-admins-exempt"),
    };
    say!(lang, "limit-with-source", amount, source)
}

/// `/limit <id>`, and the answer to a change.
pub fn limit_of(lang: Lang, user_id: UserId, limit: &PersonLimit) -> String {
    say!(
        lang,
        "limit-of",
        user = user_id.to_string(),
        limit = limit_line(lang, limit)
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
        Some(tokens) => say!(
            lang,
            "usage-today-of-limit",
            used = used_today,
            limit = thousands(lang, tokens)
        ),
        None => used_today,
    };
    let text = say!(
        lang,
        "usage-of",
        user = user_id.to_string(),
        today,
        days,
        tokens = counted(lang, "count-tokens", usage.tokens),
        messages = counted(lang, "count-messages", usage.messages),
        limit = limit_line(lang, limit)
    );
    match media_line(lang, usage) {
        Some(media) => format!("{text}\n{media}"),
        None => text,
    }
}

/// The pictures and speech a person used, when they used any.
fn media_line(lang: Lang, usage: &PersonUsage) -> Option<String> {
    (usage.images > 0 || usage.speech_seconds > 0)
        .then(|| super::usage_media(lang, usage.images, usage.speech_seconds))
}

/// Everyone's `/usage`: tokens today and over `days` days, most first.
pub fn usage_report(lang: Lang, usage: &[PersonUsage], days: i64) -> String {
    if usage.is_empty() {
        return say!(lang, "usage-nobody", days);
    }
    let mut text = say!(lang, "usage-report-heading", days);
    text.push('\n');
    for person in usage {
        text.push_str(&format!(
            "• {}: {} · {}",
            person.user_id,
            thousands(lang, person.tokens_today.max(0) as u64),
            thousands(lang, person.tokens.max(0) as u64),
        ));
        if let Some(media) = media_line(lang, person) {
            text.push_str(&format!(" · {media}"));
        }
        text.push('\n');
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
    let mut text = say!(lang, "users-admins", ids = id_list(&access.admins));
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
            let line = say!(
                lang,
                "users-rule",
                user = rule.user_id.to_string(),
                admin = rule.changed_by.to_string(),
                at = format_utc_ms(rule.changed_at_ms)
            );
            text.push_str(&format!("• {line}\n"));
        }
    }
    text.push('\n');
    if active.is_empty() {
        text.push_str(&say!(lang, "users-nobody-active", days));
        return text;
    }
    text.push_str(&say!(lang, "users-active-heading", days));
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
    say!(lang, "stranger-alert", name, handle, id = id.to_string())
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
    say!(
        lang,
        id,
        admin = admin_name,
        admin_id = admin_id.to_string()
    )
}

/// A press on an alert's button by someone who is not an admin.
pub fn only_admins_decide(lang: Lang) -> String {
    plain(lang, "only-admins-decide")
}
