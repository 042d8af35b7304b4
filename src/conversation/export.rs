//! A conversation's history as a file (`/export` on Telegram, the Mini App's export): the
//! messages, oldest first, and the conversation's reminders, as JSON or as a Markdown document in
//! the person's language. Only the conversation's own rows are read.

use super::Conversations;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::replies;
use crate::storage::{Reminder, Role, StoredMessage};

/// The format of an export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Markdown,
    Json,
}

impl ExportFormat {
    /// `json` (any case) is JSON; anything else, including nothing, is Markdown.
    pub fn parse(argument: &str) -> Self {
        if argument.trim().eq_ignore_ascii_case("json") {
            Self::Json
        } else {
            Self::Markdown
        }
    }
}

/// An export ready to send: its bytes and the file name to give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    pub bytes: Vec<u8>,
    pub file_name: &'static str,
    /// `application/json` or `text/markdown`, with the charset.
    pub content_type: &'static str,
}

impl Conversations {
    /// The history of `key` (and its reminders) as a file in `format`, its Markdown in `lang`;
    /// `None` when there is nothing to export.
    pub async fn export_file(
        &self,
        key: ConversationKey,
        format: ExportFormat,
        lang: Lang,
    ) -> anyhow::Result<Option<ExportFile>> {
        let messages = self.export(key).await?;
        let reminders = self.reminders_of(key).await?;
        if messages.is_empty() && reminders.is_empty() {
            return Ok(None);
        }
        Ok(Some(match format {
            ExportFormat::Json => ExportFile {
                bytes: serde_json::to_vec_pretty(&Export {
                    messages: &messages,
                    reminders: &reminders,
                })?,
                file_name: "telemem-history.json",
                content_type: "application/json; charset=utf-8",
            },
            ExportFormat::Markdown => ExportFile {
                bytes: export_markdown(&messages, &reminders, &replies::export_labels(lang))
                    .into_bytes(),
                file_name: "telemem-history.md",
                content_type: "text/markdown; charset=utf-8",
            },
        }))
    }
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
