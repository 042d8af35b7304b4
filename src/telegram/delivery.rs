//! Getting a reply onto Telegram: the `typing` action while the model thinks, the streamed
//! preview (one message edited at most once a second), and the final reply rendered from
//! Markdown to Telegram HTML, split into messages of at most 4,096 characters, with a plain-text
//! fallback if Telegram still rejects the HTML. Flood control (`retry_after`) is honoured, and
//! "message is not modified" is not an error.

use std::future::Future;
use std::time::Duration;

use teloxide::payloads::{EditMessageTextSetters, SendMessageSetters};
use teloxide::prelude::*;
use teloxide::types::{ChatAction, MessageId, ParseMode, ReplyParameters};
use teloxide::{ApiError, RequestError};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::telegram::TelegramApi;
use crate::telegram::render::{markdown_to_telegram_html, split_for_telegram, split_plain_text};

/// Telegram's limit on one message's text, in UTF-16 code units after entity parsing.
pub const TELEGRAM_MAX_CHARS: usize = 4_096;

/// At most one edit of the streamed message per second per chat.
const EDIT_INTERVAL: Duration = Duration::from_secs(1);

/// Telegram shows `typing` for about five seconds; repeat a little sooner.
const TYPING_INTERVAL: Duration = Duration::from_secs(4);

/// How long the model may take before `typing` is shown.
const TYPING_DELAY: Duration = Duration::from_millis(300);

/// How often one request is retried after flood control before giving up.
const MAX_ATTEMPTS: u32 = 4;

/// Pause before the one retry after a dropped connection.
const NETWORK_RETRY_DELAY: Duration = Duration::from_millis(300);

/// The longest flood-control wait honoured; anything longer is treated as a failure.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Where a reply goes.
#[derive(Clone, Copy, Debug)]
pub struct ReplyTarget {
    pub chat_id: ChatId,
    /// In groups the bot replies to the user's message so it is clear whom it answers.
    pub reply_to: Option<MessageId>,
}

/// What the progress display leaves for the final delivery.
#[derive(Clone, Copy, Debug)]
pub struct Preview {
    pub message_id: Option<MessageId>,
    /// The earliest moment the preview message may be edited again.
    pub next_edit_at: Instant,
}

/// Shows `typing` until the first text arrives and, when `stream` is on, a preview message edited
/// with the text so far, until the model's sender side of `progress` is dropped.
pub async fn show_progress<B: TelegramApi>(
    bot: B,
    target: ReplyTarget,
    mut progress: watch::Receiver<String>,
    stream: bool,
) -> Preview {
    let mut preview = Preview {
        message_id: None,
        next_edit_at: Instant::now(),
    };
    // A fast model answers before anyone would notice: only a reply that takes a moment gets
    // the `typing` indicator, which saves a Telegram call on most turns.
    let mut typing = tokio::time::interval_at(Instant::now() + TYPING_DELAY, TYPING_INTERVAL);
    loop {
        tokio::select! {
            _ = typing.tick(), if preview.message_id.is_none() => {
                if let Err(error) = bot.send_chat_action(target.chat_id, ChatAction::Typing).await {
                    tracing::debug!(error = %error, "typing action failed");
                }
            }
            changed = progress.changed() => {
                if changed.is_err() {
                    break;
                }
                if !stream {
                    continue;
                }
                tokio::time::sleep_until(preview.next_edit_at).await;
                if progress.has_changed().is_err() {
                    break; // the model finished meanwhile: the final delivery shows the whole text
                }
                let text = progress.borrow_and_update().clone();
                update_preview(&bot, target, &mut preview, &text).await;
            }
        }
    }
    preview
}

async fn update_preview<B: TelegramApi>(
    bot: &B,
    target: ReplyTarget,
    preview: &mut Preview,
    markdown: &str,
) {
    let html = markdown_to_telegram_html(markdown);
    let Some(first_part) = split_for_telegram(&html, TELEGRAM_MAX_CHARS)
        .into_iter()
        .next()
    else {
        return;
    };
    let result = match preview.message_id {
        None => send_part(bot, target, &first_part, Some(ParseMode::Html))
            .await
            .map(Some),
        Some(message_id) => edit_part(
            bot,
            target.chat_id,
            message_id,
            &first_part,
            Some(ParseMode::Html),
        )
        .await
        .map(|()| None),
    };
    preview.next_edit_at = Instant::now() + EDIT_INTERVAL;
    match result {
        Ok(Some(message_id)) => preview.message_id = Some(message_id),
        Ok(None) => {}
        Err(RequestError::RetryAfter(wait)) => {
            preview.next_edit_at = Instant::now() + wait.duration()
        }
        // A failed preview is not fatal: the final delivery shows the whole reply.
        Err(error) => tracing::debug!(error = %error, "streamed preview update failed"),
    }
}

/// Delivers the final reply: HTML rendered from `markdown`, split into parts; the first part
/// replaces the preview if there is one. Falls back to plain text if Telegram rejects the HTML.
/// Returns the ids of the messages that hold the reply.
pub async fn deliver_reply<B: TelegramApi>(
    bot: &B,
    target: ReplyTarget,
    preview: Preview,
    markdown: &str,
) -> Result<Vec<MessageId>, RequestError> {
    tokio::time::sleep_until(preview.next_edit_at).await;
    let mut message_ids: Vec<MessageId> = preview.message_id.into_iter().collect();
    let html_parts = visible_parts(split_for_telegram(
        &markdown_to_telegram_html(markdown),
        TELEGRAM_MAX_CHARS,
    ));
    match put_parts(
        bot,
        target,
        &mut message_ids,
        &html_parts,
        Some(ParseMode::Html),
    )
    .await
    {
        Err(RequestError::Api(ApiError::CantParseEntities(description))) => {
            tracing::warn!(%description, "Telegram rejected the rendered HTML; sending plain text");
            let plain_parts = visible_parts(split_plain_text(markdown, TELEGRAM_MAX_CHARS));
            put_parts(bot, target, &mut message_ids, &plain_parts, None).await?;
        }
        other => other?,
    }
    Ok(message_ids)
}

/// Drops parts that are only whitespace (Telegram rejects an empty message text).
fn visible_parts(parts: Vec<String>) -> Vec<String> {
    parts
        .into_iter()
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// Sends a short notice (an error, a refusal), replacing the preview if there is one.
pub async fn deliver_notice<B: TelegramApi>(
    bot: &B,
    target: ReplyTarget,
    preview: Preview,
    text: &str,
) -> Result<(), RequestError> {
    match preview.message_id {
        Some(message_id) => {
            tokio::time::sleep_until(preview.next_edit_at).await;
            edit_part(bot, target.chat_id, message_id, text, None).await
        }
        None => send_part(bot, target, text, None).await.map(|_| ()),
    }
}

/// Makes `message_ids` hold exactly `parts`: edits the messages that exist, sends the rest, and
/// deletes any left over from an earlier, longer attempt.
async fn put_parts<B: TelegramApi>(
    bot: &B,
    target: ReplyTarget,
    message_ids: &mut Vec<MessageId>,
    parts: &[String],
    parse_mode: Option<ParseMode>,
) -> Result<(), RequestError> {
    for (index, part) in parts.iter().enumerate() {
        match message_ids.get(index) {
            Some(&message_id) => {
                edit_part(bot, target.chat_id, message_id, part, parse_mode).await?
            }
            None => {
                // Only the first message replies to the user's; the rest follow it.
                let target = if index == 0 {
                    target
                } else {
                    ReplyTarget {
                        reply_to: None,
                        ..target
                    }
                };
                message_ids.push(send_part(bot, target, part, parse_mode).await?);
            }
        }
    }
    for message_id in message_ids.split_off(parts.len()) {
        if let Err(error) =
            with_flood_retry(|| bot.delete_message(target.chat_id, message_id).send()).await
        {
            tracing::debug!(error = %error, "could not delete a leftover reply part");
        }
    }
    Ok(())
}

async fn send_part<B: TelegramApi>(
    bot: &B,
    target: ReplyTarget,
    text: &str,
    parse_mode: Option<ParseMode>,
) -> Result<MessageId, RequestError> {
    let message = with_flood_retry(|| {
        let mut request = bot.send_message(target.chat_id, text);
        if let Some(parse_mode) = parse_mode {
            request = request.parse_mode(parse_mode);
        }
        if let Some(reply_to) = target.reply_to {
            request = request
                .reply_parameters(ReplyParameters::new(reply_to).allow_sending_without_reply());
        }
        request.send()
    })
    .await?;
    Ok(message.id)
}

async fn edit_part<B: TelegramApi>(
    bot: &B,
    chat_id: ChatId,
    message_id: MessageId,
    text: &str,
    parse_mode: Option<ParseMode>,
) -> Result<(), RequestError> {
    let result = with_flood_retry(|| {
        let mut request = bot.edit_message_text(chat_id, message_id, text);
        if let Some(parse_mode) = parse_mode {
            request = request.parse_mode(parse_mode);
        }
        request.send()
    })
    .await;
    match result {
        Ok(_) | Err(RequestError::Api(ApiError::MessageNotModified)) => Ok(()),
        Err(error) => Err(error),
    }
}

/// Runs a request again after Telegram's flood-control wait (a bounded number of times) or once
/// after a dropped connection.
pub async fn with_flood_retry<T, F, Fut>(mut request: F) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    let mut attempt = 1;
    loop {
        match request().await {
            Err(RequestError::RetryAfter(wait))
                if attempt < MAX_ATTEMPTS && wait.duration() <= MAX_RETRY_AFTER =>
            {
                tracing::warn!(
                    retry_after_secs = wait.seconds(),
                    attempt,
                    "Telegram flood control; waiting"
                );
                tokio::time::sleep(wait.duration()).await;
                attempt += 1;
            }
            // A dropped connection: the request most likely never arrived. One more try is
            // better than a lost reply (at worst the user sees it twice).
            Err(RequestError::Network(error)) if attempt == 1 => {
                tracing::warn!(error = %error, "connection to Telegram failed; trying once more");
                tokio::time::sleep(NETWORK_RETRY_DELAY).await;
                attempt += 1;
            }
            other => return other,
        }
    }
}
