//! `/export` on Telegram: the person's history in this chat, with their reminders of this chat,
//! as a JSON or Markdown file, sent where only they see it ([`send_private_material`]).

use teloxide::prelude::*;
use teloxide::types::InputFile;

use crate::commands::ExportFormat;
use crate::conversation::Conversations;
use crate::replies;
use crate::storage::{ConversationKey, Reminder, Role, StoredMessage};
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
    let messages = conversations.export(key).await?;
    let reminders = conversations.reminders_of(key).await?;
    if messages.is_empty() && reminders.is_empty() {
        return reply_privately(bot, message, &replies::export_empty(lang)).await;
    }
    let (bytes, file_name) = match format {
        ExportFormat::Json => (
            serde_json::to_vec_pretty(&Export {
                messages: &messages,
                reminders: &reminders,
            })?,
            "telemem-history.json",
        ),
        ExportFormat::Markdown => (
            export_markdown(&messages, &reminders, &replies::export_labels(lang)).into_bytes(),
            "telemem-history.md",
        ),
    };
    let caption = match group_title(message) {
        Some(title) => replies::export_caption_from_group(lang, title),
        None => replies::export_caption(lang),
    };
    send_private_material(bot, message, |chat_id| async move {
        bot.send_document(chat_id, InputFile::memory(bytes).file_name(file_name))
            .caption(caption)
            .await
            .map(|_| ())
    })
    .await
}

/// The JSON export: the messages, oldest first, and the reminders, in order of their times.
#[derive(serde::Serialize)]
struct Export<'a> {
    messages: &'a [StoredMessage],
    reminders: &'a [Reminder],
}

/// The history as a Markdown document: one heading per message with its time and author, then
/// the reminders, one line each with its time and a sign for its state; the title, authors and
/// section named by `labels` (in the person's language).
fn export_markdown(
    messages: &[StoredMessage],
    reminders: &[Reminder],
    labels: &replies::ExportLabels,
) -> String {
    let mut document = format!("# {}\n", labels.title);
    for message in messages {
        let author = match message.role {
            Role::User => &labels.user,
            Role::Assistant => &labels.bot,
            Role::System => &labels.system,
        };
        document.push_str(&format!(
            "\n## {author} — {}\n\n{}\n",
            crate::clock::format_utc_ms(message.created_at_ms),
            message.content
        ));
    }
    if !reminders.is_empty() {
        document.push_str(&format!("\n## {}\n\n", labels.reminders));
    }
    for reminder in reminders {
        let sign = match reminder.state.as_str() {
            "sent" => "✓",
            "cancelled" => "✖",
            "failed" => "⚠",
            _ => "⏳",
        };
        document.push_str(&format!(
            "- {sign} {} — {}\n",
            crate::clock::format_utc_ms(reminder.due_at_ms),
            reminder.text
        ));
    }
    document
}
