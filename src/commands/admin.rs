//! The admins' commands (`ADMIN_USERS` only) and what each answers. They are an enum of their own,
//! [`AdminCommand`], not part of [`super::Command`]: for everyone else they do not exist, so they
//! are not in their `/help` or command menu, and typed anyway they get the answer any unknown
//! command gets. [`AdminCommand`]'s doc comments are the admins' part of `/help` and of the menu
//! registered for their private chats. Like the rest of [`super`], nothing here knows Telegram:
//! the Telegram side lets only admins' commands in private chats reach [`answer`], and logs
//! nothing of their text; the changes themselves are logged, with ids only, where they are made
//! ([`AccessList`], [`Quota`]).

use teloxide::utils::command::BotCommands;

use crate::access_list::{AccessAction, AccessError, AccessList};
use crate::i18n::Lang;
use crate::quota::{LimitChange, Quota};
use crate::replies;
use crate::storage::{PersonUsage, UserId};

/// How far back `/users` looks for active people.
pub const ACTIVE_DAYS: i64 = 7;

/// How far back `/usage` counts.
pub const USAGE_DAYS: i64 = 30;

#[derive(BotCommands, Clone, Debug, PartialEq, Eq)]
#[command(
    rename_rule = "lowercase",
    description = "Admin commands (only admins see these):"
)]
pub enum AdminCommand {
    /// Let someone use the bot, lifting a block: /allow <id>.
    Allow(String),
    /// Shut someone out, even if ALLOWED_USERS or ALLOW_ALL_USERS let them in: /block <id>.
    Block(String),
    /// Lift a block (ALLOWED_USERS and ALLOW_ALL_USERS decide again): /unblock <id>.
    Unblock(String),
    /// Show or set a daily token limit: /limit <id> [<tokens>|off|default].
    Limit(String),
    /// Who is allowed, who is blocked, who was active in the last 7 days.
    Users,
    /// Tokens per person today and in the last 30 days: /usage [<id>].
    Usage(String),
}

/// What the admin commands work on.
#[derive(Clone, Copy)]
pub struct AdminServices<'a> {
    pub access: &'a AccessList,
    pub quota: &'a Quota,
}

/// `/help` for an admin, in `lang`: everyone's commands, then the admins'.
pub fn help_for_admins(lang: Lang) -> String {
    let lines: Vec<String> = super::described::<AdminCommand>(lang)
        .into_iter()
        .map(|command| format!("{} — {}", command.command, command.description))
        .collect();
    format!(
        "{}\n\n{}\n\n{}",
        super::help_text(lang),
        replies::admin_help_heading(lang),
        lines.join("\n")
    )
}

/// Does the admin `admin_id`'s `command` and says what to answer, in `lang`.
pub async fn answer(
    command: AdminCommand,
    services: AdminServices<'_>,
    admin_id: UserId,
    lang: Lang,
) -> anyhow::Result<String> {
    match command {
        AdminCommand::Allow(argument) => {
            change_access(services, admin_id, lang, AccessAction::Allow, &argument).await
        }
        AdminCommand::Block(argument) => {
            change_access(services, admin_id, lang, AccessAction::Block, &argument).await
        }
        AdminCommand::Unblock(argument) => {
            change_access(services, admin_id, lang, AccessAction::Unblock, &argument).await
        }
        AdminCommand::Limit(argument) => limit(services.quota, admin_id, lang, &argument).await,
        AdminCommand::Users => {
            let active = services.quota.usage(ACTIVE_DAYS, None).await?;
            let overview = services.access.overview();
            Ok(replies::users_overview(
                lang,
                &overview,
                &active,
                ACTIVE_DAYS,
            ))
        }
        AdminCommand::Usage(argument) => usage(services.quota, lang, &argument).await,
    }
}

/// `/allow <id>`, `/block <id>` or `/unblock <id>`: the change and its answer, or how to use the
/// command when `argument` is not a Telegram id.
async fn change_access(
    services: AdminServices<'_>,
    admin_id: UserId,
    lang: Lang,
    action: AccessAction,
    argument: &str,
) -> anyhow::Result<String> {
    let Some(user_id) = parse_person(argument) else {
        return Ok(match action {
            AccessAction::Allow => replies::allow_usage(lang),
            AccessAction::Block => replies::block_usage(lang),
            AccessAction::Unblock => replies::unblock_usage(lang),
        });
    };
    let outcome = services.access.change(admin_id, user_id, action).await;
    changed(lang, user_id, outcome)
}

/// The answer to an access change, or to its refusal.
fn changed(
    lang: Lang,
    user_id: UserId,
    outcome: Result<crate::access_list::AccessChange, AccessError>,
) -> anyhow::Result<String> {
    match outcome {
        Ok(change) => Ok(replies::access_changed(lang, user_id, change)),
        Err(AccessError::Yourself) => Ok(replies::cannot_block_yourself(lang)),
        Err(AccessError::Admin) => Ok(replies::cannot_block_admin(lang)),
        Err(AccessError::Storage(error)) => Err(error),
    }
}

/// A Telegram id as an admin types it: a whole number other than 0 (negative for a channel).
pub fn parse_person(argument: &str) -> Option<UserId> {
    argument
        .trim()
        .parse::<UserId>()
        .ok()
        .filter(|id| id.0 != 0)
}

/// What `/limit <argument>` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitRequest {
    Show(UserId),
    Change(UserId, LimitChange),
}

impl LimitRequest {
    /// `<id>`, `<id> <tokens>` (digits, with `,` or `_` between groups if you like), `<id> off`
    /// or `<id> default`; `None` for anything else.
    pub fn parse(argument: &str) -> Option<Self> {
        let mut words = argument.split_whitespace();
        let user_id = parse_person(words.next()?)?;
        let Some(setting) = words.next() else {
            return Some(Self::Show(user_id));
        };
        if words.next().is_some() {
            return None;
        }
        let change = if setting.eq_ignore_ascii_case("off") {
            LimitChange::Off
        } else if setting.eq_ignore_ascii_case("default") {
            LimitChange::Default
        } else {
            let digits: String = setting
                .chars()
                .filter(|c| !matches!(c, ',' | '_'))
                .collect();
            let tokens = digits.parse::<u64>().ok().filter(|tokens| *tokens > 0)?;
            LimitChange::Tokens(tokens)
        };
        Some(Self::Change(user_id, change))
    }
}

async fn limit(
    quota: &Quota,
    admin_id: UserId,
    lang: Lang,
    argument: &str,
) -> anyhow::Result<String> {
    Ok(match LimitRequest::parse(argument) {
        None => replies::limit_usage(lang),
        Some(LimitRequest::Show(user_id)) => {
            replies::limit_of(lang, user_id, &quota.limit_of(user_id).await?)
        }
        Some(LimitRequest::Change(user_id, change)) => {
            let limit = quota.set_limit(admin_id, user_id, change).await?;
            replies::limit_of(lang, user_id, &limit)
        }
    })
}

/// `/usage` (everyone) or `/usage <id>` (one person).
async fn usage(quota: &Quota, lang: Lang, argument: &str) -> anyhow::Result<String> {
    if argument.trim().is_empty() {
        let usage = quota.usage(USAGE_DAYS, None).await?;
        return Ok(replies::usage_report(lang, &usage, USAGE_DAYS));
    }
    let Some(user_id) = parse_person(argument) else {
        return Ok(replies::usage_usage(lang));
    };
    let usage = quota
        .usage(USAGE_DAYS, Some(user_id))
        .await?
        .into_iter()
        .next()
        .unwrap_or(PersonUsage {
            user_id,
            messages: 0,
            tokens: 0,
            tokens_today: 0,
            images: 0,
            speech_seconds: 0,
        });
    let limit = quota.limit_of(user_id).await?;
    Ok(replies::usage_of(lang, user_id, &usage, &limit, USAGE_DAYS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_commands_are_not_everyones_commands() {
        let everyone = super::super::Command::descriptions().to_string();
        for name in ["/allow", "/block", "/unblock", "/limit", "/users", "/usage"] {
            assert!(!everyone.contains(name), "{name} in {everyone}");
            assert!(
                AdminCommand::descriptions().to_string().contains(name),
                "{name}"
            );
        }
        assert_eq!(
            AdminCommand::parse("/allow 42", "bot").ok(),
            Some(AdminCommand::Allow("42".to_owned()))
        );
        assert!(super::super::Command::parse("/allow 42", "bot").is_err());
    }

    #[test]
    fn limit_arguments_show_set_lift_or_reset_a_limit() {
        assert_eq!(
            LimitRequest::parse("42"),
            Some(LimitRequest::Show(UserId(42)))
        );
        assert_eq!(
            LimitRequest::parse(" 42  50,000 "),
            Some(LimitRequest::Change(
                UserId(42),
                LimitChange::Tokens(50_000)
            ))
        );
        assert_eq!(
            LimitRequest::parse("42 OFF"),
            Some(LimitRequest::Change(UserId(42), LimitChange::Off))
        );
        assert_eq!(
            LimitRequest::parse("-100123 default"),
            Some(LimitRequest::Change(UserId(-100_123), LimitChange::Default))
        );
        for refused in ["", "x", "0 100", "42 0", "42 lots", "42 100 more", "42 -5"] {
            assert_eq!(LimitRequest::parse(refused), None, "{refused:?}");
        }
    }
}
