//! `/export` on Telegram: the person's history in this chat, with their reminders of this chat,
//! as a JSON or Markdown file (`conversation/export.rs`), sent where only they see it
//! ([`send_private_material`]).

use teloxide::prelude::*;
use teloxide::types::InputFile;

use crate::conversation::{Conversations, ExportFormat};
use crate::ids::ConversationKey;
use crate::replies;
use crate::telegram::bot::TelegramBot;
use crate::telegram::identity;
use crate::telegram::reply::{HandlerResult, group_title, reply_privately, send_private_material};

/// Sends the history of `key` as a file in `format`.
pub(super) async fn export(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    format: ExportFormat,
    conversations: &Conversations,
) -> HandlerResult {
    let lang = identity::message_language(message);
    let Some(file) = conversations.export_file(key, format, lang).await? else {
        return reply_privately(bot, message, &replies::export_empty(lang)).await;
    };
    let caption = match group_title(message) {
        Some(title) => replies::export_caption_from_group(lang, title),
        None => replies::export_caption(lang),
    };
    send_private_material(bot, message, |chat_id| async move {
        bot.send_document(
            chat_id,
            InputFile::memory(file.bytes).file_name(file.file_name),
        )
        .caption(caption)
        .await
        .map(|_| ())
    })
    .await
}
