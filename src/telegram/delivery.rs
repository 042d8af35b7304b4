//! Getting a reply onto Telegram: the `typing` action while the model thinks, the streamed
//! preview (one message edited at most once a second, with a Stop button under it), and the
//! final reply rendered from
//! Markdown to Telegram HTML, split into messages of at most [`TELEGRAM_MAX_CHARS`], with a
//! plain-text fallback if Telegram still rejects the HTML; the final edit drops the button. Flood control (`retry_after`) is honoured, and
//! "message is not modified" is not an error.
//!
//! Every message created for an answer is recorded with its update ([`AnswerMessages`]) before
//! anything else is sent for it, and delivery can start from messages sent before a crash: it
//! edits them into the answer, sends only the parts missing and deletes leftovers, so a person
//! sees one answer however often it is delivered. The final reply waits out a short Telegram
//! outage (network errors are retried for about two minutes); previews, `typing` and notices are
//! tried once more at most, since something later replaces them.
//!
//! An inline message (inline mode, [`InlineMessage`]) is edited by its id the same way: the
//! preview at the same bounded rate, then the final answer as one message, cut with an ellipsis
//! when it does not fit.

use std::future::Future;
use std::time::Duration;

use teloxide::payloads::{EditMessageText, EditMessageTextInline, SendMessageSetters};
use teloxide::prelude::*;
use teloxide::requests::HasPayload;
use teloxide::types::{ChatAction, InlineKeyboardMarkup, MessageId, ParseMode, ReplyParameters};
use teloxide::{ApiError, RequestError};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::backoff::Backoff;
use crate::telegram::bot::{BotApiMethod, TelegramBot, TelegramRequest};
use crate::telegram::intake::AnswerMessages;
use crate::telegram::render::markdown_to_telegram_html;
use crate::telegram::split::{TELEGRAM_MAX_CHARS, split_for_telegram, split_plain_text};

/// At most one edit of the streamed message per second per chat.
const EDIT_INTERVAL: Duration = Duration::from_secs(1);

/// Telegram shows `typing` for about five seconds; repeat a little sooner.
const TYPING_INTERVAL: Duration = Duration::from_secs(4);

/// How long the model may take before `typing` is shown.
const TYPING_DELAY: Duration = Duration::from_millis(300);

/// How often one request is retried after flood control before giving up.
const MAX_ATTEMPTS: u32 = 4;

/// Pause before the one retry after a dropped connection, for requests that are not patient.
const NETWORK_RETRY_DELAY: Duration = Duration::from_millis(300);

/// The final reply's first pause after a dropped connection; each next one doubles, up to
/// [`PATIENT_MAX_DELAY`].
const PATIENT_FIRST_DELAY: Duration = Duration::from_millis(500);

/// The longest pause between two tries of the final reply.
const PATIENT_MAX_DELAY: Duration = Duration::from_secs(15);

/// How long the final reply keeps trying through network errors: a short outage of Telegram (or
/// of the network on the way) then only delays it. If Telegram is still away, the update stays
/// `replying` with its stored reply, which the next start delivers.
const PATIENT_RETRY_WINDOW: Duration = Duration::from_secs(120);

/// The longest flood-control wait honoured; anything longer is treated as a failure.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Where a reply goes.
#[derive(Clone, Copy, Debug)]
pub struct ReplyTarget {
    pub chat_id: ChatId,
    /// In groups the bot replies to the user's message so it is clear whom it answers.
    pub reply_to: Option<MessageId>,
}

impl ReplyTarget {
    /// The answer to `message`: in its chat, replying to it in groups.
    pub fn answering(message: &Message) -> Self {
        Self {
            chat_id: message.chat.id,
            reply_to: (!message.chat.is_private()).then_some(message.id),
        }
    }
}

/// The messages already showing (part of) an answer: the streamed preview, or what an earlier
/// run sent before it stopped. The final delivery turns them into the answer.
#[derive(Clone, Debug)]
pub struct Preview {
    /// In reading order; the first is the one the preview edits.
    pub message_ids: Vec<MessageId>,
    /// The earliest moment the first message may be edited again.
    pub next_edit_at: Instant,
}

impl Preview {
    /// The messages an earlier run sent for the answer.
    pub fn of(message_ids: Vec<MessageId>) -> Self {
        Self {
            message_ids,
            next_edit_at: Instant::now(),
        }
    }
}

/// What the progress display of one turn works with.
pub struct ProgressDisplay {
    pub target: ReplyTarget,
    /// Whether to show the text so far in a preview message, or only `typing`.
    pub stream: bool,
    /// Where the preview starts: in its first message, if there is one.
    pub preview: Preview,
    /// Where a new preview message is recorded, as soon as Telegram has created it.
    pub answer: AnswerMessages,
    /// The buttons under the preview while it streams (Stop).
    pub buttons: Option<InlineKeyboardMarkup>,
}

/// Shows `typing` until the first text arrives and, when streaming, a preview message edited with
/// the text so far, until the model's sender side of `progress` is dropped.
pub async fn show_progress(
    bot: TelegramBot,
    mut progress: watch::Receiver<String>,
    display: ProgressDisplay,
) -> Preview {
    let ProgressDisplay {
        target,
        stream,
        mut preview,
        answer,
        buttons,
    } = display;
    // A fast model answers before anyone would notice: only a reply that takes a moment gets
    // the `typing` indicator, which saves a Telegram call on most turns.
    let mut typing = tokio::time::interval_at(Instant::now() + TYPING_DELAY, TYPING_INTERVAL);
    loop {
        tokio::select! {
            _ = typing.tick(), if preview.message_ids.is_empty() => {
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
                let shown = Part { keyboard: buttons.as_ref(), ..Part::html(&text) };
                let change = update_preview(&bot, target, &mut preview, shown).await;
                if change == PreviewChange::MessageSent {
                    // Before anything else is sent: a restart edits this message.
                    answer.record(&preview.message_ids).await;
                }
            }
        }
    }
    preview
}

/// What showing the text so far did to the preview's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PreviewChange {
    /// The preview's first message was sent: it has to be recorded before anything else is sent.
    MessageSent,
    /// The message was edited, or nothing changed (an empty text, a failed request).
    SameMessages,
}

/// Shows `markdown`'s Markdown text in the preview message, with its buttons, sending it if there
/// is none yet.
async fn update_preview(
    bot: &TelegramBot,
    target: ReplyTarget,
    preview: &mut Preview,
    markdown: Part<'_>,
) -> PreviewChange {
    let html = markdown_to_telegram_html(markdown.text);
    let Some(first_part) = split_for_telegram(&html, TELEGRAM_MAX_CHARS)
        .into_iter()
        .next()
    else {
        return PreviewChange::SameMessages;
    };
    let once = Patience::Once;
    let part = Part {
        text: &first_part,
        ..markdown
    };
    let result = match preview.message_ids.first() {
        None => send_part(bot, target, part, once).await.map(Some),
        Some(&message_id) => edit_part(bot, target.chat_id, message_id, part, once)
            .await
            .map(|()| None),
    };
    preview.next_edit_at = Instant::now() + EDIT_INTERVAL;
    match result {
        Ok(Some(message_id)) => {
            preview.message_ids.push(message_id);
            return PreviewChange::MessageSent;
        }
        Ok(None) => {}
        Err(RequestError::RetryAfter(wait)) => {
            preview.next_edit_at = Instant::now() + wait.duration()
        }
        // A failed preview is not fatal: the final delivery shows the whole reply.
        Err(error) => tracing::debug!(error = %error, "streamed preview update failed"),
    }
    PreviewChange::SameMessages
}

/// Delivers the final reply: HTML rendered from `markdown`, split into parts, in the messages of
/// `preview` first (see [`put_parts`]). Falls back to plain text if Telegram rejects the HTML.
/// Each message sent while more parts are to come is recorded in `answer` first. Returns the ids
/// of the messages that hold the reply.
pub async fn deliver_reply(
    bot: &TelegramBot,
    target: ReplyTarget,
    preview: Preview,
    markdown: &str,
    answer: &AnswerMessages,
) -> Result<Vec<MessageId>, RequestError> {
    tokio::time::sleep_until(preview.next_edit_at).await;
    let mut delivery = Delivery {
        target,
        message_ids: preview.message_ids,
        answer,
    };
    let html_parts = visible_parts(split_for_telegram(
        &markdown_to_telegram_html(markdown),
        TELEGRAM_MAX_CHARS,
    ));
    match put_parts(bot, &mut delivery, &html_parts, Some(ParseMode::Html)).await {
        Err(RequestError::Api(ApiError::CantParseEntities(description))) => {
            tracing::warn!(%description, "Telegram rejected the rendered HTML; sending plain text");
            let plain_parts = visible_parts(split_plain_text(markdown, TELEGRAM_MAX_CHARS));
            put_parts(bot, &mut delivery, &plain_parts, None).await?;
        }
        other => other?,
    }
    Ok(delivery.message_ids)
}

/// How many messages the final reply `markdown` takes.
pub fn messages_needed(markdown: &str) -> usize {
    visible_parts(split_for_telegram(
        &markdown_to_telegram_html(markdown),
        TELEGRAM_MAX_CHARS,
    ))
    .len()
}

/// Drops parts that are only whitespace (Telegram rejects an empty message text).
fn visible_parts(parts: Vec<String>) -> Vec<String> {
    parts
        .into_iter()
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// Shows a short notice (an error, a refusal) in place of the turn's answer: in the preview's
/// first message if there is one, else in a new message. Tried once more at most.
pub async fn replace_preview_with_notice(
    bot: &TelegramBot,
    target: ReplyTarget,
    preview: Preview,
    text: &str,
) -> Result<(), RequestError> {
    let part = Part::plain(text);
    match preview.message_ids.first() {
        Some(&message_id) => {
            tokio::time::sleep_until(preview.next_edit_at).await;
            edit_part(bot, target.chat_id, message_id, part, Patience::Once).await
        }
        None => send_part(bot, target, part, Patience::Once)
            .await
            .map(|_| ()),
    }
}

/// Turns the messages of an answer that is no longer current into a short notice: the first
/// shows `text` (without buttons), the others are deleted. Tried once more at most; a leftover
/// that cannot be deleted is only logged.
pub async fn retire_messages(
    bot: &TelegramBot,
    chat_id: ChatId,
    message_ids: &[MessageId],
    text: &str,
) -> Result<(), RequestError> {
    let Some((&first, rest)) = message_ids.split_first() else {
        return Ok(());
    };
    edit_part(bot, chat_id, first, Part::plain(text), Patience::Once).await?;
    for &message_id in rest {
        if let Err(error) =
            with_flood_retry(|| bot.delete_message(chat_id, message_id).send()).await
        {
            tracing::debug!(error = %error, "could not delete a part of a replaced answer");
        }
    }
    Ok(())
}

/// Sends plain text (a command's answer, a notice), split like a reply into messages Telegram
/// accepts (only the first replies to the user's message). Tried once more at most.
pub async fn send_plain_text(
    bot: &TelegramBot,
    target: ReplyTarget,
    text: &str,
) -> Result<(), RequestError> {
    send_plain_text_with_keyboard(bot, target, text, None).await
}

/// [`send_plain_text`], with `keyboard` under the last message.
pub async fn send_plain_text_with_keyboard(
    bot: &TelegramBot,
    target: ReplyTarget,
    text: &str,
    keyboard: Option<&InlineKeyboardMarkup>,
) -> Result<(), RequestError> {
    let parts = visible_parts(split_plain_text(text, TELEGRAM_MAX_CHARS));
    let last = parts.len().saturating_sub(1);
    for (index, part) in parts.iter().enumerate() {
        let target = ReplyTarget {
            reply_to: target.reply_to.filter(|_| index == 0),
            ..target
        };
        let part = Part {
            keyboard: keyboard.filter(|_| index == last),
            ..Part::plain(part)
        };
        send_part(bot, target, part, Patience::Once).await?;
    }
    Ok(())
}

/// A final reply on its way: where it goes, the messages that hold it so far, and where they are
/// recorded.
struct Delivery<'a> {
    target: ReplyTarget,
    message_ids: Vec<MessageId>,
    answer: &'a AnswerMessages,
}

/// Makes `delivery.message_ids` hold exactly `parts`: edits the messages that exist, sends the
/// rest (or in place of one that is gone), and deletes any left over from an earlier, longer
/// attempt. A message sent while more parts are to come is recorded before the next is sent;
/// recording the delivered reply covers the last one.
async fn put_parts(
    bot: &TelegramBot,
    delivery: &mut Delivery<'_>,
    parts: &[String],
    parse_mode: Option<ParseMode>,
) -> Result<(), RequestError> {
    let chat_id = delivery.target.chat_id;
    for (index, text) in parts.iter().enumerate() {
        let part = Part {
            text,
            parse_mode,
            keyboard: None,
        };
        if let Some(&message_id) = delivery.message_ids.get(index) {
            match edit_part(bot, chat_id, message_id, part, Patience::UntilDelivered).await {
                Ok(()) => continue,
                // Deleted meanwhile (by the person, or by an earlier attempt): send it anew.
                Err(RequestError::Api(ApiError::MessageToEditNotFound)) => {}
                Err(error) => return Err(error),
            }
        }
        // Only the first message replies to the user's; the rest follow it.
        let target = ReplyTarget {
            reply_to: delivery.target.reply_to.filter(|_| index == 0),
            ..delivery.target
        };
        let message_id = send_part(bot, target, part, Patience::UntilDelivered).await?;
        match delivery.message_ids.get_mut(index) {
            Some(slot) => *slot = message_id,
            None => delivery.message_ids.push(message_id),
        }
        if index + 1 < parts.len() {
            delivery.answer.record(&delivery.message_ids).await;
        }
    }
    for message_id in delivery.message_ids.split_off(parts.len()) {
        if let Err(error) =
            with_flood_retry(|| bot.delete_message(chat_id, message_id).send()).await
        {
            tracing::debug!(error = %error, "could not delete a leftover reply part");
        }
    }
    Ok(())
}

/// One message's text, how Telegram should parse it, and the buttons under it (none: a message
/// edited without buttons loses those it had).
#[derive(Clone, Copy)]
struct Part<'a> {
    text: &'a str,
    parse_mode: Option<ParseMode>,
    keyboard: Option<&'a InlineKeyboardMarkup>,
}

impl<'a> Part<'a> {
    fn html(text: &'a str) -> Self {
        Self {
            text,
            parse_mode: Some(ParseMode::Html),
            keyboard: None,
        }
    }

    fn plain(text: &'a str) -> Self {
        Self {
            text,
            parse_mode: None,
            keyboard: None,
        }
    }
}

async fn send_part(
    bot: &TelegramBot,
    target: ReplyTarget,
    part: Part<'_>,
    patience: Patience,
) -> Result<MessageId, RequestError> {
    let message = with_retry(patience, || {
        let mut request = bot.send_message(target.chat_id, part.text);
        if let Some(parse_mode) = part.parse_mode {
            request = request.parse_mode(parse_mode);
        }
        if let Some(reply_to) = target.reply_to {
            request = request
                .reply_parameters(ReplyParameters::new(reply_to).allow_sending_without_reply());
        }
        if let Some(keyboard) = part.keyboard {
            request = request.reply_markup(keyboard.clone());
        }
        request.send()
    })
    .await?;
    Ok(message.id)
}

async fn edit_part(
    bot: &TelegramBot,
    chat_id: ChatId,
    message_id: MessageId,
    part: Part<'_>,
    patience: Patience,
) -> Result<(), RequestError> {
    edit_to(part, patience, |text| {
        bot.edit_message_text(chat_id, message_id, text)
    })
    .await
}

/// Edits a message to `part`, in its format and with its keyboard: `edit` starts the request
/// for the new text (a chat's message or an inline one). A message that already reads so ("not
/// modified") counts as edited.
async fn edit_to<P>(
    part: Part<'_>,
    patience: Patience,
    edit: impl Fn(&str) -> TelegramRequest<P>,
) -> Result<(), RequestError>
where
    P: BotApiMethod + EditedText,
{
    let result = with_retry(patience, || {
        let mut request = edit(part.text);
        request.payload_mut().format_as(&part);
        request.send()
    })
    .await;
    match result {
        Ok(_) | Err(RequestError::Api(ApiError::MessageNotModified)) => Ok(()),
        Err(error) => Err(error),
    }
}

/// The payload of an edit of a message's text: both kinds take a part's format and keyboard.
trait EditedText {
    fn format_as(&mut self, part: &Part<'_>);
}

impl EditedText for EditMessageText {
    fn format_as(&mut self, part: &Part<'_>) {
        self.parse_mode = part.parse_mode;
        self.reply_markup = part.keyboard.cloned();
    }
}

impl EditedText for EditMessageTextInline {
    fn format_as(&mut self, part: &Part<'_>) {
        self.parse_mode = part.parse_mode;
        self.reply_markup = part.keyboard.cloned();
    }
}

/// An inline message (inline mode): one message the person's app posted in some chat, which the
/// bot knows only by its id and can only edit. An answer in it is one message: what does not fit
/// is cut with an ellipsis rather than split.
#[derive(Clone, Debug)]
pub struct InlineMessage {
    pub id: String,
    /// Plain text shown above the answer or notice (the question), not rendered as Markdown.
    pub header: String,
}

impl InlineMessage {
    /// The header and the Markdown answer as Telegram HTML, cut to fit one message.
    fn html(&self, markdown: &str) -> String {
        let header = teloxide::utils::html::escape(&self.header);
        let html = format!("{header}{}", markdown_to_telegram_html(markdown));
        cut_to_one_message(split_for_telegram(&html, TELEGRAM_MAX_CHARS - 1))
    }

    /// The header and `text` as plain text, cut to fit one message.
    fn plain(&self, text: &str) -> String {
        let plain = format!("{}{text}", self.header);
        cut_to_one_message(split_plain_text(&plain, TELEGRAM_MAX_CHARS - 1))
    }
}

/// The first of `parts`, with an ellipsis when more followed it.
fn cut_to_one_message(parts: Vec<String>) -> String {
    let mut parts = parts.into_iter();
    let first = parts.next().unwrap_or_default();
    match parts.next() {
        Some(_) => format!("{}…", first.trim_end()),
        None => first,
    }
}

/// Shows the model's text so far (Markdown) in an inline message under its header, with
/// `buttons`, edited at most once per [`EDIT_INTERVAL`], until the model's sender side of
/// `progress` is dropped. Returns the earliest moment the message may be edited again.
pub async fn show_inline_progress(
    bot: TelegramBot,
    mut progress: watch::Receiver<String>,
    inline: InlineMessage,
    buttons: Option<InlineKeyboardMarkup>,
) -> Instant {
    let mut next_edit_at = Instant::now();
    while progress.changed().await.is_ok() {
        tokio::time::sleep_until(next_edit_at).await;
        if progress.has_changed().is_err() {
            break; // the model finished meanwhile: the final delivery shows the whole text
        }
        let text = progress.borrow_and_update().clone();
        if text.trim().is_empty() {
            continue;
        }
        let html = inline.html(&text);
        let part = Part {
            keyboard: buttons.as_ref(),
            ..Part::html(&html)
        };
        let result = edit_inline_part(&bot, &inline.id, part, Patience::Once).await;
        next_edit_at = Instant::now() + EDIT_INTERVAL;
        match result {
            Ok(()) => {}
            Err(RequestError::RetryAfter(wait)) => next_edit_at = Instant::now() + wait.duration(),
            // A failed preview is not fatal: the final delivery shows the whole reply.
            Err(error) => tracing::debug!(error = %error, "inline preview update failed"),
        }
    }
    next_edit_at
}

/// What is edited into an inline message in place of its placeholder.
#[derive(Clone, Copy, Debug)]
pub enum InlineEdit<'a> {
    /// The final answer (Markdown), as plain text if Telegram rejects the HTML; network errors
    /// are retried like a final reply's.
    Answer(&'a str),
    /// A short notice (a refusal, an error) in place of the answer, tried once more at most.
    Notice(&'a str),
}

/// Edits `edit` into an inline message, without buttons, once `next_edit_at` has come.
pub async fn edit_inline_message(
    bot: &TelegramBot,
    inline: &InlineMessage,
    edit: InlineEdit<'_>,
    next_edit_at: Instant,
) -> Result<(), RequestError> {
    tokio::time::sleep_until(next_edit_at).await;
    let markdown = match edit {
        InlineEdit::Answer(markdown) => markdown,
        InlineEdit::Notice(text) => {
            let plain = inline.plain(text);
            return edit_inline_part(bot, &inline.id, Part::plain(&plain), Patience::Once).await;
        }
    };
    let html = inline.html(markdown);
    let patience = Patience::UntilDelivered;
    match edit_inline_part(bot, &inline.id, Part::html(&html), patience).await {
        Err(RequestError::Api(ApiError::CantParseEntities(description))) => {
            tracing::warn!(%description, "Telegram rejected the rendered HTML; sending plain text");
            let plain = inline.plain(markdown);
            edit_inline_part(bot, &inline.id, Part::plain(&plain), patience).await
        }
        other => other,
    }
}

async fn edit_inline_part(
    bot: &TelegramBot,
    inline_message_id: &str,
    part: Part<'_>,
    patience: Patience,
) -> Result<(), RequestError> {
    edit_to(part, patience, |text| {
        bot.edit_message_text_inline(inline_message_id, text)
    })
    .await
}

/// How long a request keeps trying through network errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Patience {
    /// One more try: for what something later replaces or repeats (previews, `typing`, notices).
    Once,
    /// With growing pauses for about [`PATIENT_RETRY_WINDOW`]: for the final reply.
    UntilDelivered,
}

impl Patience {
    /// The pause before the next try after `failures` network errors, `elapsed` after the first
    /// try; `None` to give up.
    fn network_retry_delay(self, failures: u32, elapsed: Duration) -> Option<Duration> {
        match self {
            Self::Once => (failures <= 1).then_some(NETWORK_RETRY_DELAY),
            Self::UntilDelivered => {
                let delay =
                    Backoff::new(PATIENT_FIRST_DELAY, PATIENT_MAX_DELAY).delay_after(failures);
                (elapsed + delay <= PATIENT_RETRY_WINDOW).then_some(delay)
            }
        }
    }
}

/// Runs a request again after Telegram's flood-control wait (a bounded number of times) or once
/// after a dropped connection.
pub async fn with_flood_retry<T, F, Fut>(request: F) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    with_retry(Patience::Once, request).await
}

/// Runs a request again after Telegram's flood-control wait (a bounded number of times) or after
/// network errors, as long as `patience` allows.
async fn with_retry<T, F, Fut>(patience: Patience, mut request: F) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    let started = Instant::now();
    let mut flood_waits = 0;
    let mut network_failures = 0;
    loop {
        let wait = match request().await {
            Err(RequestError::RetryAfter(wait))
                if flood_waits + 1 < MAX_ATTEMPTS && wait.duration() <= MAX_RETRY_AFTER =>
            {
                flood_waits += 1;
                tracing::warn!(
                    retry_after_secs = wait.seconds(),
                    attempt = flood_waits,
                    "Telegram flood control; waiting"
                );
                wait.duration()
            }
            // A dropped connection: the request most likely never arrived. Another try is
            // better than a lost reply (at worst the user sees it twice).
            Err(RequestError::Network(error)) => {
                network_failures += 1;
                let Some(delay) = patience.network_retry_delay(network_failures, started.elapsed())
                else {
                    return Err(RequestError::Network(error));
                };
                tracing::warn!(error = %error, failures = network_failures, "connection to Telegram failed; trying again");
                delay
            }
            other => return other,
        };
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_final_reply_keeps_trying_through_network_errors_for_about_two_minutes() {
        let mut waited = Duration::ZERO;
        let mut failures = 0;
        while let Some(delay) = Patience::UntilDelivered.network_retry_delay(failures + 1, waited) {
            failures += 1;
            waited += delay;
        }
        assert!(
            waited > Duration::from_secs(100) && waited <= PATIENT_RETRY_WINDOW,
            "{waited:?}"
        );
        assert!(failures >= 10, "{failures} tries, the first ones soon");
    }

    #[test]
    fn previews_and_notices_are_tried_once_more_at_most() {
        let once = Patience::Once;
        assert_eq!(
            once.network_retry_delay(1, Duration::ZERO),
            Some(NETWORK_RETRY_DELAY)
        );
        assert_eq!(once.network_retry_delay(2, Duration::ZERO), None);
    }
}
