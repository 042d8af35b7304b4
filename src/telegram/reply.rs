//! How every endpoint answers: a handler whose reply goes out at once counts as answered from
//! the start ([`answer_once`]); plain text in the message's chat; a message with buttons; an
//! edited confirmation; and private material (the persona, notes and summaries, statistics, the
//! history, a forgotten note), which never goes into a group: asked in one, it is sent to the
//! person's private chat, and the group only hears that it was, or that the person has to ask in
//! private.

use std::future::Future;

use teloxide::prelude::*;
use teloxide::types::{
    CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ReplyParameters,
};
use teloxide::{ApiError, RequestError};

use crate::i18n::Lang;
use crate::ids::UserId;
use crate::replies;
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::{
    self, ReplyTarget, send_plain_text, send_plain_text_with_keyboard,
};
use crate::telegram::identity;
use crate::telegram::intake::Intake;

pub type HandlerResult = anyhow::Result<()>;

/// Runs a handler whose reply goes out right away: the update counts as being answered from the
/// start (after a crash it is not handled twice) and is done when the handler is.
pub(crate) async fn answer_once(
    intake: &Intake,
    update: &Update,
    handler: impl Future<Output = HandlerResult>,
) -> HandlerResult {
    let update_id = i64::from(update.id.0);
    intake.replying(update_id).await;
    let outcome = handler.await;
    intake.done(update_id).await;
    outcome
}

/// Answers in the message's chat as plain text, in as many messages as the text needs.
pub(crate) async fn reply_in_chat(
    bot: &TelegramBot,
    message: &Message,
    text: &str,
) -> HandlerResult {
    send_plain_text(bot, ReplyTarget::answering(message), text).await?;
    Ok(())
}

/// Edits a message the bot sent (a confirmation, an alert) to `text`.
pub(crate) async fn edit_confirmation(
    bot: &TelegramBot,
    chat_id: ChatId,
    message_id: MessageId,
    text: &str,
) -> HandlerResult {
    delivery::with_flood_retry(|| bot.edit_message_text(chat_id, message_id, text).send()).await?;
    Ok(())
}

/// Replaces a message's text and buttons (a menu after a press). The same text and buttons again
/// is no error: the message shows them already.
pub(crate) async fn edit_with_buttons(
    bot: &TelegramBot,
    message: &Message,
    text: String,
    buttons: InlineKeyboardMarkup,
) -> HandlerResult {
    let (chat_id, message_id) = (message.chat.id, message.id);
    let edited = delivery::with_flood_retry(|| {
        bot.edit_message_text(chat_id, message_id, text.clone())
            .reply_markup(buttons.clone())
            .send()
    })
    .await;
    match edited {
        Ok(_) | Err(RequestError::Api(ApiError::MessageNotModified)) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// A press on a button of a message the bot sent for one person: the presser, their language and
/// the button `read` from the press's data, when the button is the presser's (`owner` says whose
/// it is). Anyone else's press, or data that is not such a button, is answered with the short
/// notice `not_yours` and gives `None`.
pub(crate) async fn own_press<B>(
    bot: &TelegramBot,
    query: &CallbackQuery,
    read: impl FnOnce(&str) -> Option<B>,
    owner: impl FnOnce(&B) -> UserId,
    not_yours: impl FnOnce(Lang) -> String,
) -> Result<Option<(UserId, Lang, B)>, RequestError> {
    let presser = identity::user_id(&query.from);
    let lang = identity::user_language(&query.from);
    let button = query.data.as_deref().and_then(read);
    match button.filter(|button| owner(button) == presser) {
        Some(button) => Ok(Some((presser, lang, button))),
        None => {
            bot.answer_callback_query(query.id.clone())
                .text(not_yours(lang))
                .await?;
            Ok(None)
        }
    }
}

/// One row of buttons, each its label and the data a press on it sends.
pub(crate) fn button_row<const N: usize>(buttons: [(String, String); N]) -> InlineKeyboardMarkup {
    InlineKeyboardMarkup::new([
        buttons.map(|(label, data)| InlineKeyboardButton::callback(label, data))
    ])
}

/// Sends `text` with `buttons` in `message`'s chat; in a group, as a reply to `message`, so that
/// the asker sees which buttons are theirs.
pub(crate) async fn send_with_buttons(
    bot: &TelegramBot,
    message: &Message,
    text: String,
    buttons: InlineKeyboardMarkup,
) -> HandlerResult {
    let mut request = bot
        .send_message(message.chat.id, text)
        .reply_markup(buttons);
    if !message.chat.is_private() {
        request = request
            .reply_parameters(ReplyParameters::new(message.id).allow_sending_without_reply());
    }
    request.await?;
    Ok(())
}

/// Where an answer with private material goes.
enum PrivateDestination {
    /// Asked in a private chat: answer there.
    ThisChat,
    /// Asked in a group by a person: their private chat with the bot.
    PrivateChat(ChatId),
    /// Asked in a group as a channel or anonymously: there is nobody to write to in private.
    Nobody,
}

fn private_destination(message: &Message) -> PrivateDestination {
    if message.chat.is_private() {
        return PrivateDestination::ThisChat;
    }
    match &message.from {
        Some(user) if !identity::is_sent_as_chat(message) => {
            PrivateDestination::PrivateChat(user.id.into())
        }
        _ => PrivateDestination::Nobody,
    }
}

/// The group's title for a message asked in a group; `None` in a private chat.
pub(crate) fn group_title(message: &Message) -> Option<&str> {
    if message.chat.is_private() {
        return None;
    }
    Some(message.chat.title().unwrap_or_default())
}

/// Sends private material with `send` where only its owner sees it: here in a private chat;
/// from a group to the person's private chat, with a short notice in the group that it went
/// there, or, when the bot may not write there, a notice asking them to ask in private.
pub(crate) async fn send_private_material<F, Fut>(
    bot: &TelegramBot,
    message: &Message,
    send: F,
) -> HandlerResult
where
    F: FnOnce(ChatId) -> Fut,
    Fut: Future<Output = Result<(), RequestError>>,
{
    let lang = identity::message_language(message);
    let chat_id = match private_destination(message) {
        PrivateDestination::ThisChat => return Ok(send(message.chat.id).await?),
        PrivateDestination::Nobody => {
            let notice = replies::private_needs_a_person(lang);
            return reply_in_chat(bot, message, &notice).await;
        }
        PrivateDestination::PrivateChat(chat_id) => chat_id,
    };
    match send(chat_id).await {
        Ok(()) => reply_in_chat(bot, message, &replies::answered_in_private(lang)).await,
        Err(error) if cannot_write_to(&error) => {
            tracing::info!(
                error = crate::telegram::errors::loggable(&error),
                chat_id = chat_id.0,
                "cannot write to a private chat"
            );
            reply_in_chat(bot, message, &replies::ask_in_private(lang)).await
        }
        Err(error) => Err(error.into()),
    }
}

/// [`send_private_material`] for a text, which names the group it was asked in when it goes to a
/// private chat from there.
pub(crate) async fn reply_privately(
    bot: &TelegramBot,
    message: &Message,
    text: &str,
) -> HandlerResult {
    reply_privately_with_keyboard(bot, message, text, None).await
}

/// [`reply_privately`], with `keyboard` under the answer.
pub(crate) async fn reply_privately_with_keyboard(
    bot: &TelegramBot,
    message: &Message,
    text: &str,
    keyboard: Option<InlineKeyboardMarkup>,
) -> HandlerResult {
    let text = match group_title(message) {
        Some(title) => replies::from_group(identity::message_language(message), title, text),
        None => text.to_owned(),
    };
    send_private_material(bot, message, |chat_id| {
        let target = ReplyTarget {
            chat_id,
            reply_to: None,
        };
        send_plain_text_with_keyboard(bot, target, &text, keyboard.as_ref())
    })
    .await
}

/// Tells the sender of `message` something about themselves: in their private chat, which keeps
/// it out of a group; in the chat of `message` when there is no private chat to write to.
pub(crate) async fn tell_sender_privately(
    bot: &TelegramBot,
    message: &Message,
    notice: &str,
) -> Result<(), RequestError> {
    if let PrivateDestination::PrivateChat(chat_id) = private_destination(message) {
        let target = ReplyTarget {
            chat_id,
            reply_to: None,
        };
        match send_plain_text(bot, target, notice).await {
            Err(error) if cannot_write_to(&error) => {}
            sent => return sent,
        }
    }
    send_plain_text(bot, ReplyTarget::answering(message), notice).await
}

/// Whether Telegram refused because the bot may not write to that private chat: the person
/// never started the bot, blocked it, or is gone.
fn cannot_write_to(error: &RequestError) -> bool {
    match error {
        RequestError::Api(
            ApiError::BotBlocked
            | ApiError::CantInitiateConversation
            | ApiError::UserDeactivated
            | ApiError::ChatNotFound,
        ) => true,
        // Telegram words these refusals "Forbidden: …" (403); teloxide knows some of them only
        // by older wordings and reports the rest as unknown.
        RequestError::Api(ApiError::Unknown(description)) => description.starts_with("Forbidden:"),
        _ => false,
    }
}
