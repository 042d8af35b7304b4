//! The admins' side of the bot in Telegram: their commands (answered in their private chat; in a
//! group, refused), the alert every admin gets about a new stranger (one per stranger, ever) with
//! its Allow and Block buttons, and what a press on those does. Everything an admin reads here is
//! in their language: the answer to a command in the language of that message, the alert in the
//! one their app last reported ([`Conversations::language`]). Their command menu is registered in
//! `menus`; what the commands do is in [`crate::commands::admin`]; who is an admin and
//! who may use the bot, in [`crate::access_list`]. Logs carry ids, never names or message text.

use std::sync::Arc;

use teloxide::payloads::SendMessageSetters;
use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, InlineKeyboardMarkup};

use crate::access_list::{AccessAction, AccessError};
use crate::commands::Command;
use crate::commands::admin::{self, AdminCommand, AdminServices};
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::replies;
use crate::storage::UserId;
use crate::telegram::access::AccessPolicy;
use crate::telegram::bot::TelegramBot;
use crate::telegram::identity;
use crate::telegram::intake::Intake;
use crate::telegram::reply::{
    HandlerResult, answer_once, button_row, edit_confirmation, reply_in_chat,
};

/// The button data of an alert's buttons: `access:allow:<id>`, `access:block:<id>`.
const ACCESS_BUTTON: &str = "access:";
const ALLOW: &str = "allow";
const BLOCK: &str = "block";

/// Filter: the message comes from an admin, as themselves.
pub fn sent_by_admin(message: Message, access: Arc<AccessPolicy>) -> bool {
    !identity::is_sent_as_chat(&message)
        && identity::sender_id(&message).is_some_and(|sender| access.is_admin(sender))
}

/// An admin's command. Like every command, it counts as answered from the start.
pub async fn admin_command(
    bot: TelegramBot,
    update: Update,
    message: Message,
    command: AdminCommand,
    access: Arc<AccessPolicy>,
    conversations: Conversations,
    intake: Intake,
) -> HandlerResult {
    answer_once(
        &intake,
        &update,
        run_admin_command(bot, message, command, access, conversations),
    )
    .await
}

async fn run_admin_command(
    bot: TelegramBot,
    message: Message,
    command: AdminCommand,
    access: Arc<AccessPolicy>,
    conversations: Conversations,
) -> HandlerResult {
    let Some(admin_id) = identity::sender_id(&message) else {
        return Ok(());
    };
    let lang = identity::message_language(&message);
    if !message.chat.is_private() {
        tracing::info!(
            admin_id = admin_id.0,
            "refused an admin command asked in a group"
        );
        let refusal = replies::admin_only_in_private(lang);
        return reply_in_chat(&bot, &message, &refusal).await;
    }
    tracing::info!(
        admin_id = admin_id.0,
        command = command_name(&command),
        "an admin command"
    );
    let services = AdminServices {
        access: access.list(),
        quota: conversations.quota(),
    };
    let text = match admin::answer(command, services, admin_id, lang).await {
        Ok(text) => text,
        Err(error) => {
            tracing::error!(error = ?error, admin_id = admin_id.0, "an admin command failed");
            replies::internal_error(lang)
        }
    };
    reply_in_chat(&bot, &message, &text).await
}

/// The command's name, for the log: never its argument.
fn command_name(command: &AdminCommand) -> &'static str {
    match command {
        AdminCommand::Allow(_) => "allow",
        AdminCommand::Block(_) => "block",
        AdminCommand::Unblock(_) => "unblock",
        AdminCommand::Limit(_) => "limit",
        AdminCommand::Users => "users",
        AdminCommand::Usage(_) => "usage",
    }
}

/// Tells every admin, the first time ever that this stranger writes, who wrote, with buttons to
/// allow or block them. Nothing the stranger sent is stored: only their id, to tell once.
pub async fn alert_admins_about_stranger(
    bot: &TelegramBot,
    message: &Message,
    access: &AccessPolicy,
    conversations: &Conversations,
) {
    let Some(stranger) = identity::sender_id(message) else {
        return;
    };
    let admins = access.list().admins();
    if admins.is_empty() {
        return;
    }
    match access.list().first_alert_about(stranger).await {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => {
            tracing::warn!(
                error = ?error,
                stranger = stranger.0,
                "cannot tell the admins about a stranger"
            );
            return;
        }
    }
    let (name, username) = sender_name(message);
    for admin_id in admins {
        let lang = recorded_language(conversations, admin_id).await;
        let text = replies::stranger_alert(lang, &name, username.as_deref(), stranger);
        let sent = bot
            .send_message(ChatId(admin_id.0), text)
            .reply_markup(access_buttons(lang, stranger))
            .await;
        match sent {
            Ok(_) => tracing::info!(
                admin_id = admin_id.0,
                stranger = stranger.0,
                "told an admin about a stranger"
            ),
            Err(error) => tracing::warn!(
                error = crate::telegram::errors::loggable(&error),
                admin_id = admin_id.0,
                stranger = stranger.0,
                "could not tell an admin about a stranger"
            ),
        }
    }
}

/// The alert's Allow and Block buttons about `stranger`, labelled in `lang`.
fn access_buttons(lang: Lang, stranger: UserId) -> InlineKeyboardMarkup {
    button_row([
        (
            replies::stranger_button_allow(lang),
            format!("{ACCESS_BUTTON}{ALLOW}:{stranger}"),
        ),
        (
            replies::stranger_button_block(lang),
            format!("{ACCESS_BUTTON}{BLOCK}:{stranger}"),
        ),
    ])
}

/// The language `admin_id`'s app last reported; English when none is recorded or it cannot be
/// read (an alert in English beats no alert).
pub(super) async fn recorded_language(conversations: &Conversations, admin_id: UserId) -> Lang {
    conversations
        .language(admin_id)
        .await
        .inspect_err(|error| {
            tracing::warn!(error = ?error, admin_id = admin_id.0, "cannot read an admin's language");
        })
        .unwrap_or_default()
}

/// The sender's name and @username as Telegram shows them: the chat's for a message sent as one.
fn sender_name(message: &Message) -> (String, Option<String>) {
    if let Some(chat) = &message.sender_chat {
        let name = chat.title().unwrap_or_default().to_owned();
        return (name, chat.username().map(str::to_owned));
    }
    match &message.from {
        Some(user) => (user.full_name(), user.username.clone()),
        None => (String::new(), None),
    }
}

/// An alert's button data: the decision and whom it is about.
fn parse_access_button(data: &str) -> Option<(AccessAction, UserId)> {
    let (action, id) = data.strip_prefix(ACCESS_BUTTON)?.split_once(':')?;
    let decision = match action {
        ALLOW => AccessAction::Allow,
        BLOCK => AccessAction::Block,
        _ => return None,
    };
    Some((decision, admin::parse_person(id)?))
}

/// Filter: a press on the Allow or Block button of an alert about a stranger.
pub fn is_access_button(query: CallbackQuery) -> bool {
    query
        .data
        .as_deref()
        .is_some_and(|data| data.starts_with(ACCESS_BUTTON))
}

/// A press on an alert's button: an admin allows or blocks the stranger at once, and the alert
/// says who did.
pub async fn access_button(
    bot: TelegramBot,
    update: Update,
    query: CallbackQuery,
    access: Arc<AccessPolicy>,
    intake: Intake,
) -> HandlerResult {
    answer_once(&intake, &update, press_access_button(bot, query, access)).await
}

async fn press_access_button(
    bot: TelegramBot,
    query: CallbackQuery,
    access: Arc<AccessPolicy>,
) -> HandlerResult {
    let admin_id = identity::user_id(&query.from);
    let lang = identity::user_language(&query.from);
    let decision = query.data.as_deref().and_then(parse_access_button);
    let (Some((decision, stranger)), true) = (decision, access.is_admin(admin_id)) else {
        bot.answer_callback_query(query.id.clone())
            .text(replies::only_admins_decide(lang))
            .await?;
        return Ok(());
    };
    let outcome = access.list().change(admin_id, stranger, decision).await;
    let note = match outcome {
        Ok(change) => replies::stranger_decided(lang, change, &query.from.full_name(), admin_id),
        Err(AccessError::Yourself) => replies::cannot_block_yourself(lang),
        Err(AccessError::Admin) => replies::cannot_block_admin(lang),
        Err(AccessError::Storage(error)) => return Err(error),
    };
    bot.answer_callback_query(query.id.clone()).await?;
    let Some(alert) = query.regular_message() else {
        return Ok(());
    };
    let text = format!("{}\n\n{note}", alert.text().unwrap_or_default());
    edit_confirmation(&bot, alert.chat.id, alert.id, &text).await
}

/// Filter: `/help` from an admin in their private chat, which lists their commands too.
pub fn asks_for_admin_help(message: Message, command: Command, access: Arc<AccessPolicy>) -> bool {
    command == Command::Help && message.chat.is_private() && sent_by_admin(message, access)
}

/// `/help` for an admin: everyone's commands, then the admins'.
pub async fn admin_help(
    bot: TelegramBot,
    update: Update,
    message: Message,
    intake: Intake,
) -> HandlerResult {
    let help = admin::help_for_admins(identity::message_language(&message));
    answer_once(&intake, &update, reply_in_chat(&bot, &message, &help)).await
}

/// The admins' part of the handler tree for messages: their commands, before everyone's.
pub fn admin_commands() -> teloxide::dispatching::UpdateHandler<anyhow::Error> {
    use teloxide::dispatching::HandlerExt;
    dptree::filter(sent_by_admin)
        .filter_command::<AdminCommand>()
        .endpoint(admin_command)
}
