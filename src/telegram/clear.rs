//! `/clear` on Telegram: the confirmation with its Yes and No buttons, and what a press does.
//! The button data names who asked, so that in a group only they can confirm.

use teloxide::prelude::*;
use teloxide::types::CallbackQuery;

use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::replies;
use crate::storage::UserId;
use crate::telegram::bot::TelegramBot;
use crate::telegram::identity;
use crate::telegram::reply::{HandlerResult, button_row, edit_confirmation, send_with_buttons};

const CLEAR_YES: &str = "clear:yes";
const CLEAR_NO: &str = "clear:no";

/// Asks the person to confirm `/clear`, with the buttons only they can press.
pub(super) async fn ask_to_clear(
    bot: &TelegramBot,
    message: &Message,
    owner: UserId,
    lang: Lang,
) -> HandlerResult {
    let keyboard = button_row([
        (
            replies::clear_button_yes(lang),
            format!("{CLEAR_YES}:{owner}"),
        ),
        (
            replies::clear_button_no(lang),
            format!("{CLEAR_NO}:{owner}"),
        ),
    ]);
    send_with_buttons(bot, message, replies::clear_confirm(lang), keyboard).await
}

/// A press on one of the /clear confirmation buttons: only the asker's counts.
pub(super) async fn press_clear_button(
    bot: TelegramBot,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let data = query.data.as_deref().unwrap_or_default();
    let (action, owner) = data.rsplit_once(':').unwrap_or((data, ""));
    let presser = identity::user_id(&query.from);
    let lang = identity::user_language(&query.from);
    if owner.parse::<UserId>().ok() != Some(presser) {
        bot.answer_callback_query(query.id.clone())
            .text(replies::clear_not_yours(lang))
            .await?;
        return Ok(());
    }
    let Some(message) = query.regular_message() else {
        bot.answer_callback_query(query.id.clone()).await?;
        return Ok(());
    };
    let key = ConversationKey::new(message.chat.id.into(), presser);
    let outcome = match action {
        CLEAR_YES => {
            let counts = conversations.clear(key).await?;
            tracing::info!(
                chat_id = key.chat_id.0,
                user_id = key.user_id.0,
                messages = counts.messages,
                "cleared a conversation"
            );
            replies::cleared(lang, counts.messages, counts.sessions)
        }
        _ => replies::clear_cancelled(lang),
    };
    bot.answer_callback_query(query.id.clone()).await?;
    edit_confirmation(&bot, message.chat.id, message.id, &outcome).await
}
