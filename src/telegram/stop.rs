//! Stopping an answer while it is being written: the Stop button under the streamed preview, its
//! press, and telling the updates that ask to stop (`/cancel`, a press on Stop) from all others.
//! The scheduler runs those at once, beside the conversation's queue: in the queue they would
//! wait for the very turn they mean to stop. The stopping itself is
//! [`Conversations::stop_running`]; `/cancel` is answered with the other commands.

use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, InlineKeyboardMarkup, Me, UpdateKind};
use teloxide::utils::command::BotCommands;

use crate::commands::Command;
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::replies;
use crate::storage::{ChatId, UserId};
use crate::telegram::bot::TelegramBot;
use crate::telegram::identity;
use crate::telegram::reply::{HandlerResult, button_row};

/// What a Stop button's data starts with.
const STOP_DATA: &str = "stop";

/// The Stop button under the answer to update `update_id` of the identity `owner`. Its data names
/// both: only the owner's press counts, and a button left over from an earlier answer cannot stop
/// a later one.
pub fn stop_button(lang: Lang, owner: UserId, update_id: i64) -> InlineKeyboardMarkup {
    button_row([(
        replies::stop_button(lang),
        format!("{STOP_DATA}:{owner}:{update_id}"),
    )])
}

/// The owner and the update of a Stop button's data.
fn stop_data(data: &str) -> Option<(UserId, i64)> {
    let mut fields = data.split(':');
    if fields.next() != Some(STOP_DATA) {
        return None;
    }
    let owner = fields.next()?.parse().ok()?;
    let update_id = fields.next()?.parse().ok()?;
    fields.next().is_none().then_some((owner, update_id))
}

/// Whether the press is on a Stop button.
pub fn is_stop_press(query: &CallbackQuery) -> bool {
    query.data.as_deref().and_then(stop_data).is_some()
}

/// Whether `update` asks to stop an answer: `/cancel` for this bot, or a press on Stop.
pub fn is_stop_request(update: &Update, me: &Me) -> bool {
    match &update.kind {
        UpdateKind::Message(message) => message
            .text()
            .is_some_and(|text| matches!(Command::parse(text, me.username()), Ok(Command::Cancel))),
        UpdateKind::CallbackQuery(query) => is_stop_press(query),
        _ => false,
    }
}

/// A press on a Stop button: stops the answer if it is the presser's, and says why not otherwise
/// in the short notice Telegram shows for a press.
pub(super) async fn press_stop(
    bot: TelegramBot,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let notice = stop_for(&query, &conversations);
    let mut answer = bot.answer_callback_query(query.id.clone());
    if let Some(notice) = notice {
        answer = answer.text(notice);
    }
    answer.await?;
    Ok(())
}

/// Stops the answer the pressed button is under, if it is the presser's; otherwise the notice
/// the press gets. A button press always comes from a person as themselves, so an answer to a
/// channel or to anonymous admins is stopped with `/cancel` instead.
fn stop_for(query: &CallbackQuery, conversations: &Conversations) -> Option<String> {
    let lang = identity::user_language(&query.from);
    let (owner, update_id) = query.data.as_deref().and_then(stop_data)?;
    if owner != identity::user_id(&query.from) {
        return Some(replies::stop_not_yours(lang));
    }
    let key = match &query.message {
        Some(message) => ConversationKey::new(message.chat().id.into(), owner),
        // Under an inline message: its answer is a turn of the owner's private chat.
        None => ConversationKey::new(ChatId(owner.0), owner),
    };
    if conversations.stop_running(key, Some(update_id)) {
        None
    } else {
        Some(replies::nothing_to_stop(lang))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use teloxide::types::InlineKeyboardButton;

    #[test]
    fn a_stop_button_names_its_owner_and_update() {
        let keyboard = stop_button(Lang::En, UserId(-100_123), 42);
        let InlineKeyboardButton { kind, .. } = &keyboard.inline_keyboard[0][0];
        let teloxide::types::InlineKeyboardButtonKind::CallbackData(data) = kind else {
            panic!("a callback button: {kind:?}");
        };
        assert_eq!(stop_data(data), Some((UserId(-100_123), 42)));
    }

    #[test]
    fn other_button_data_is_not_a_stop() {
        assert_eq!(stop_data("clear:yes:7"), None);
        assert_eq!(stop_data("stop:7"), None);
        assert_eq!(stop_data("stop:7:8:9"), None);
        assert_eq!(stop_data("stop:x:8"), None);
    }
}
