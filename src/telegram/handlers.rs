//! The endpoints of the handler tree: one small `async fn` per kind of update, with their
//! dependencies injected by dptree. They translate between Telegram and [`Conversations`] (and
//! [`commands`] for commands) and choose the user-facing sentence from [`replies`]; they hold no
//! chat logic themselves.
//!
//! Everything is keyed on the sender's identity ([`identity`]). Answers that show private
//! material (the persona, notes and summaries, statistics, the history, a forgotten note) never
//! go into a group: asked in one, they are sent to the person's private chat, and the group only
//! hears that they were, or that the person has to ask in private.

use std::future::Future;
use std::sync::Arc;

use teloxide::{ApiError, RequestError};

use teloxide::prelude::*;
use teloxide::types::{
    CallbackQuery, ChatAction, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Me, MessageId,
};
use teloxide::utils::command::BotCommands;
use tokio::sync::watch;

use crate::commands::{self, Command, CommandAnswer, ExportFormat};
use crate::conversation::{Conversations, Turn, TurnInput};
use crate::llm::{Completion, LlmError};
use crate::metrics;
use crate::replies;
use crate::storage::{self, ConversationKey, StoredMessage};
use crate::telegram::access::{Access, AccessPolicy, is_addressed_to_bot, without_bot_mention};
use crate::telegram::delivery::{
    self, Preview, ProgressDisplay, ReplyTarget, deliver_reply, replace_preview_with_notice,
    send_plain_text, show_progress,
};
use crate::telegram::identity::{self, conversation_key};
use crate::telegram::intake::{AnswerMessages, Intake};
use crate::telegram::media::{self, MediaTurn};
use crate::telegram::{BotSettings, TelegramBot};

pub type HandlerResult = anyhow::Result<()>;

const CLEAR_YES: &str = "clear:yes";
const CLEAR_NO: &str = "clear:no";

/// Answers in the message's chat as plain text, in as many messages as the text needs.
async fn reply_in_chat(bot: &TelegramBot, message: &Message, text: &str) -> HandlerResult {
    send_plain_text(bot, ReplyTarget::answering(message), text).await?;
    Ok(())
}

/// Filter: the message is for the bot (private chat, mention, reply, command).
pub fn addressed_to_bot(message: Message, me: Me) -> bool {
    is_addressed_to_bot(&message, &me)
}

/// Filter: the sender may use the bot. Refuses strangers once, politely, storing nothing.
pub async fn sender_allowed(bot: TelegramBot, message: Message, access: Arc<AccessPolicy>) -> bool {
    let Some(sender) = identity::sender_id(&message) else {
        return false;
    };
    match access.check(sender) {
        Access::Allowed => true,
        Access::RefuseOnce => {
            let as_chat = identity::is_sent_as_chat(&message);
            tracing::info!(
                sender = sender.0,
                as_chat,
                "refused a sender who is not on the allow list"
            );
            let refusal = if as_chat {
                replies::NOT_ALLOWED_AS_CHAT
            } else {
                replies::NOT_ALLOWED
            };
            if let Err(error) = reply_in_chat(&bot, &message, refusal).await {
                tracing::warn!(
                    error = crate::telegram::loggable_chain(&error),
                    "could not send the refusal"
                );
            }
            false
        }
        Access::Ignore => false,
    }
}

/// Filter: a callback query's sender may use the bot (no refusal: buttons come from our messages).
pub fn presser_allowed(query: CallbackQuery, access: Arc<AccessPolicy>) -> bool {
    access.check(identity::user_id(&query.from)) == Access::Allowed
}

/// Updates that pass no filter (a group message not for the bot, a stranger's message after the
/// refusal) need nothing more.
pub async fn ignored(update: Update, intake: Intake) -> HandlerResult {
    intake.done(i64::from(update.id.0)).await;
    Ok(())
}

/// A text message: one chat turn, or the end of one the last run left unfinished.
pub async fn chat_message(
    bot: TelegramBot,
    update: Update,
    message: Message,
    me: Me,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    let update = UpdateToAnswer {
        update,
        message,
        kind: MessageKind::Text,
    };
    handle_turn(bot, update, me, conversations, settings, intake).await
}

/// A photo, voice note, audio file, video note or readable document (see
/// [`media::attachment_of`]): one chat turn with what the file holds, or the end of one the last
/// run left unfinished.
pub async fn media_message(
    bot: TelegramBot,
    update: Update,
    message: Message,
    me: Me,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    let update = UpdateToAnswer {
        update,
        message,
        kind: MessageKind::Media,
    };
    handle_turn(bot, update, me, conversations, settings, intake).await
}

/// A message that starts a chat turn, with what it carries.
struct UpdateToAnswer {
    update: Update,
    message: Message,
    kind: MessageKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MessageKind {
    Text,
    /// A file [`media::attachment_of`] finds.
    Media,
}

/// One chat turn for a text or a file, or the end of one the last run left unfinished.
async fn handle_turn(
    bot: TelegramBot,
    UpdateToAnswer {
        update,
        message,
        kind,
    }: UpdateToAnswer,
    me: Me,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    let update_id = i64::from(update.id.0);
    let resumption = intake.take_resumption(update_id);
    let Some(key) = conversation_key(&message) else {
        intake.done(update_id).await;
        return Ok(());
    };
    let turn = TurnContext {
        bot: &bot,
        message: &message,
        key,
        conversations: &conversations,
        intake: &intake,
        update_id,
        answer: intake.answer_messages(update_id),
    };
    let preview = Preview::of(resumption.message_ids);
    let outcome = match (resumption.stored_reply, kind) {
        (Some(reply), _) => {
            // The model is not asked again: the person gets the reply already in the history.
            tracing::info!(update_id, "delivering a reply stored by the last run");
            let header = media::resumed_header(&conversations, key, &message).await;
            let shown = format!("{header}{}", reply.content);
            deliver_stored(&turn, preview, reply.id, &shown).await?
        }
        (None, MessageKind::Text) => chat_turn(&turn, &me, &settings, preview).await?,
        (None, MessageKind::Media) => media_turn(&turn, &me, &settings, preview).await?,
    };
    if outcome == TurnOutcome::UpdateStillOpen {
        intake.done(update_id).await;
    }
    Ok(())
}

/// How a chat turn left its update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TurnOutcome {
    /// The reply was delivered and recorded, which marked the update done.
    ReplyRecorded,
    /// Answered otherwise (a notice, or a reply with nothing to show): the update still has to be
    /// marked done.
    UpdateStillOpen,
}

/// What a chat turn's steps share: the update being answered and where the answer goes.
struct TurnContext<'a> {
    bot: &'a TelegramBot,
    message: &'a Message,
    key: ConversationKey,
    conversations: &'a Conversations,
    intake: &'a Intake,
    update_id: i64,
    /// Where the messages carrying the answer are recorded as they are sent.
    answer: AnswerMessages,
}

impl TurnContext<'_> {
    /// Answers with a short notice instead of a model answer, in the preview's message if there
    /// is one. From here on the update counts as answered: a notice is not sent twice.
    async fn answer_with_notice(
        &self,
        preview: Preview,
        text: &str,
    ) -> anyhow::Result<TurnOutcome> {
        self.intake.replying(self.update_id).await;
        let target = ReplyTarget::answering(self.message);
        replace_preview_with_notice(self.bot, target, preview, text).await?;
        Ok(TurnOutcome::UpdateStillOpen)
    }
}

/// One chat turn for a text message, its answer starting in `preview`'s messages (those an
/// earlier run sent for it, if any).
async fn chat_turn(
    turn: &TurnContext<'_>,
    me: &Me,
    settings: &BotSettings,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let text = match turn_text(turn.message, me, settings.max_message_chars) {
        Ok(text) => text,
        Err(reply) => return turn.answer_with_notice(preview, &reply).await,
    };
    let started = start_turn(turn, TurnInput::text(&text), &preview).await?;
    answer_turn(turn, &started, settings.stream_replies, preview, "").await
}

/// One chat turn for a file: what it holds becomes the person's message (see [`media`]), or a
/// notice says why it cannot.
async fn media_turn(
    turn: &TurnContext<'_>,
    me: &Me,
    settings: &BotSettings,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let Some(attachment) = media::attachment_of(turn.message) else {
        return turn.answer_with_notice(preview, replies::TEXT_ONLY).await;
    };
    let caption = media::caption_text(turn.message, me);
    // Fetching and transcribing take a moment: the person sees that the bot is on it.
    let chat_id = turn.message.chat.id;
    if let Err(error) = turn.bot.send_chat_action(chat_id, ChatAction::Typing).await {
        tracing::debug!(error = %error, "typing action failed");
    }
    let media_turn = MediaTurn {
        bot: turn.bot,
        conversations: turn.conversations,
        key: turn.key,
        telegram_message_id: i64::from(turn.message.id.0),
        settings: &settings.media,
    };
    let prepared = match media_turn.prepare(&attachment, &caption).await {
        Ok(prepared) => prepared,
        Err(problem) => {
            metrics::error("media");
            tracing::warn!(error = %problem, chat_id = turn.key.chat_id.0, user_id = turn.key.user_id.0, "could not read an attachment");
            let notice = problem.notice(&settings.media);
            return turn.answer_with_notice(preview, &notice).await;
        }
    };
    let started = start_turn(turn, prepared.input, &preview).await?;
    let stream = settings.stream_replies;
    answer_turn(turn, &started, stream, preview, &prepared.header).await
}

/// Stores the person's message and assembles the prompt. When that fails, the message is
/// answered with a notice (storage full, or something went wrong) and the error returned.
async fn start_turn(
    turn: &TurnContext<'_>,
    input: TurnInput,
    preview: &Preview,
) -> anyhow::Result<Turn> {
    let telegram_message_id = Some(i64::from(turn.message.id.0));
    let error = match turn
        .conversations
        .begin_turn_with(turn.key, input, telegram_message_id)
        .await
    {
        Ok(started) => return Ok(started),
        Err(error) => error,
    };
    let disk_full = is_disk_full(&error);
    metrics::error(if disk_full { "disk_full" } else { "database" });
    let reply = if disk_full {
        replies::STORAGE_FULL
    } else {
        replies::INTERNAL_ERROR
    };
    turn.answer_with_notice(preview.clone(), reply).await?;
    Err(error.context("could not start the chat turn"))
}

/// The text the model gets, or the notice that answers the message instead.
fn turn_text(message: &Message, me: &Me, max_chars: usize) -> Result<String, String> {
    let raw_text = message.text().unwrap_or_default();
    let text = if message.chat.is_private() {
        raw_text.trim().to_owned()
    } else {
        without_bot_mention(message, me)
    };
    if text.starts_with('/') {
        return Err(replies::unknown_command(
            &Command::descriptions().to_string(),
        ));
    }
    if text.is_empty() {
        return Err(replies::EMPTY_MESSAGE.to_owned());
    }
    let length = text.chars().count();
    if length > max_chars {
        return Err(replies::message_too_long(length, max_chars));
    }
    Ok(text)
}

/// Asks the model while showing progress (`typing`, or the streamed preview), stores the reply
/// and delivers it below `header` (Markdown shown above the answer and not stored: what was heard
/// of a voice note; empty for most turns).
async fn answer_turn(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
    header: &str,
) -> anyhow::Result<TurnOutcome> {
    let (answer, preview) = ask_showing_progress(turn, started, stream, preview, header).await;
    let completion = match answer {
        Ok(completion) if completion.text.trim().is_empty() => {
            return turn.answer_with_notice(preview, replies::EMPTY_REPLY).await;
        }
        Ok(completion) => completion,
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = turn.key.chat_id.0, user_id = turn.key.user_id.0, "the model call failed");
            let reply = match error {
                LlmError::RateLimited { .. } => replies::MODEL_RATE_LIMITED,
                // A model that cannot see refuses a request with a picture (HTTP 400).
                LlmError::Rejected { .. } if carries_images(started) => {
                    replies::VISION_NOT_SUPPORTED
                }
                _ => replies::MODEL_UNAVAILABLE,
            };
            return turn.answer_with_notice(preview, reply).await;
        }
    };
    // Stored before it is sent, together with the update's `replying` mark: a crash from here on
    // leaves the reply in the history, and the next start delivers it into the messages recorded
    // so far instead of asking the model again.
    let reply_id = turn
        .conversations
        .finish_turn(started, &completion, Some(turn.update_id))
        .await?;
    let shown = format!("{header}{}", completion.text);
    let outcome = deliver_stored(turn, preview, reply_id, &shown).await?;
    metrics::tokens(
        u64::from(completion.tokens_in.unwrap_or(0)),
        u64::from(completion.tokens_out.unwrap_or(0)),
    );
    Ok(outcome)
}

fn carries_images(started: &Turn) -> bool {
    started
        .request
        .messages
        .iter()
        .any(|message| !message.images.is_empty())
}

/// Asks the model while `typing` or the streamed preview shows progress (below `header`).
/// Returns the answer and the preview as the progress display left it.
async fn ask_showing_progress(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
    header: &str,
) -> (Result<Completion, LlmError>, Preview) {
    let (progress_sender, progress) = watch::channel(String::new());
    let (model_sender, model_progress) = watch::channel(String::new());
    let shown_before = preview.clone();
    let display = ProgressDisplay {
        target: ReplyTarget::answering(turn.message),
        stream,
        preview,
        answer: turn.answer.clone(),
    };
    let display = tokio::spawn(show_progress(turn.bot.clone(), progress, display));
    let asked_at = std::time::Instant::now();
    let asking = async {
        let answer = turn
            .conversations
            .ask(started, stream.then_some(&model_sender))
            .await;
        drop(model_sender);
        answer
    };
    let showing = show_below(header, model_progress, progress_sender);
    let (answer, ()) = tokio::join!(asking, showing);
    metrics::llm_call_finished(
        asked_at.elapsed(),
        if answer.is_ok() { "ok" } else { "error" },
    );
    let preview = display.await.unwrap_or(shown_before);
    (answer, preview)
}

/// Passes the model's text so far on to the progress display, below `header`, until the model is
/// done (its sender is dropped).
async fn show_below(
    header: &str,
    mut model_progress: watch::Receiver<String>,
    shown: watch::Sender<String>,
) {
    while model_progress.changed().await.is_ok() {
        let text = format!("{header}{}", *model_progress.borrow_and_update());
        shown.send_replace(text);
    }
}

/// Delivers the stored reply `reply_id` with the text `markdown` into `preview`'s messages, then
/// records which message carried it, which marks the update done.
async fn deliver_stored(
    turn: &TurnContext<'_>,
    preview: Preview,
    reply_id: i64,
    markdown: &str,
) -> anyhow::Result<TurnOutcome> {
    let target = ReplyTarget::answering(turn.message);
    let message_ids = deliver_reply(turn.bot, target, preview, markdown, &turn.answer).await?;
    metrics::reply_sent();
    let Some(first) = message_ids.first() else {
        return Ok(TurnOutcome::UpdateStillOpen);
    };
    turn.conversations
        .reply_delivered(reply_id, i64::from(first.0))
        .await?;
    Ok(TurnOutcome::ReplyRecorded)
}

fn is_disk_full(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<sqlx::Error>()
            .is_some_and(crate::storage::is_storage_full)
    })
}

/// Stickers, videos, archives and every other message no turn can read: a short clear reply.
pub async fn non_text_message(
    bot: TelegramBot,
    update: Update,
    message: Message,
    intake: Intake,
) -> HandlerResult {
    answer_once(
        &intake,
        &update,
        reply_in_chat(&bot, &message, replies::TEXT_ONLY),
    )
    .await
}

/// Every command. Commands answer at once, so the update counts as being answered from the
/// start: after a crash a command is not run twice.
pub async fn command(
    bot: TelegramBot,
    update: Update,
    message: Message,
    command: Command,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    answer_once(
        &intake,
        &update,
        run_command(bot, message, command, conversations, settings),
    )
    .await
}

/// Runs a handler whose reply goes out right away: the update counts as being answered from the
/// start (after a crash it is not handled twice) and is done when the handler is.
async fn answer_once(
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

async fn run_command(
    bot: TelegramBot,
    message: Message,
    command: Command,
    conversations: Conversations,
    settings: Arc<BotSettings>,
) -> HandlerResult {
    let Some(key) = conversation_key(&message) else {
        return Ok(());
    };
    let answer = commands::answer(command, &conversations, key, &settings.start_text).await?;
    match answer {
        CommandAnswer::Say(text) => reply_in_chat(&bot, &message, &text).await,
        CommandAnswer::SayPrivately(text) => reply_privately(&bot, &message, &text).await,
        CommandAnswer::PersonaSaved { confirmation } if message.chat.is_private() => {
            reply_in_chat(&bot, &message, &confirmation).await
        }
        // Confirmed without the text in a group: it is private from now on.
        CommandAnswer::PersonaSaved { .. } => {
            reply_in_chat(&bot, &message, replies::PERSONA_SAVED_NOT_SHOWN).await
        }
        CommandAnswer::ConfirmClear => ask_to_clear(&bot, &message, key).await,
        CommandAnswer::Export(format) => export(&bot, &message, key, format, &conversations).await,
    }
}

async fn ask_to_clear(bot: &TelegramBot, message: &Message, key: ConversationKey) -> HandlerResult {
    // The user id travels in the button data so that only the asker can confirm in a group.
    let keyboard = InlineKeyboardMarkup::new([[
        InlineKeyboardButton::callback(
            replies::CLEAR_BUTTON_YES,
            format!("{CLEAR_YES}:{}", key.user_id),
        ),
        InlineKeyboardButton::callback(
            replies::CLEAR_BUTTON_NO,
            format!("{CLEAR_NO}:{}", key.user_id),
        ),
    ]]);
    let mut request = bot
        .send_message(message.chat.id, replies::CLEAR_CONFIRM)
        .reply_markup(keyboard);
    if !message.chat.is_private() {
        request = request.reply_parameters(
            teloxide::types::ReplyParameters::new(message.id).allow_sending_without_reply(),
        );
    }
    request.await?;
    Ok(())
}

/// A press on one of the /clear confirmation buttons.
pub async fn clear_button(
    bot: TelegramBot,
    update: Update,
    query: CallbackQuery,
    conversations: Conversations,
    intake: Intake,
) -> HandlerResult {
    answer_once(
        &intake,
        &update,
        press_clear_button(bot, query, conversations),
    )
    .await
}

async fn press_clear_button(
    bot: TelegramBot,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let data = query.data.as_deref().unwrap_or_default();
    let (action, owner) = data.rsplit_once(':').unwrap_or((data, ""));
    let presser = identity::user_id(&query.from);
    if owner.parse::<storage::UserId>().ok() != Some(presser) {
        bot.answer_callback_query(query.id.clone())
            .text(replies::CLEAR_NOT_YOURS)
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
            replies::cleared(counts.messages, counts.sessions)
        }
        _ => replies::CLEAR_CANCELLED.to_owned(),
    };
    bot.answer_callback_query(query.id.clone()).await?;
    edit_confirmation(&bot, message.chat.id, message.id, &outcome).await
}

async fn edit_confirmation(
    bot: &TelegramBot,
    chat_id: ChatId,
    message_id: MessageId,
    text: &str,
) -> HandlerResult {
    delivery::with_flood_retry(|| bot.edit_message_text(chat_id, message_id, text).send()).await?;
    Ok(())
}

async fn export(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    format: ExportFormat,
    conversations: &Conversations,
) -> HandlerResult {
    let messages = conversations.export(key).await?;
    if messages.is_empty() {
        return reply_privately(bot, message, replies::EXPORT_EMPTY).await;
    }
    let (bytes, file_name) = match format {
        ExportFormat::Json => (
            serde_json::to_vec_pretty(&messages)?,
            "telemem-history.json",
        ),
        ExportFormat::Markdown => (
            export_markdown(&messages).into_bytes(),
            "telemem-history.md",
        ),
    };
    let caption = match group_title(message) {
        Some(title) => replies::export_caption_from_group(title),
        None => replies::EXPORT_CAPTION.to_owned(),
    };
    send_private_material(bot, message, |chat_id| async move {
        bot.send_document(chat_id, InputFile::memory(bytes).file_name(file_name))
            .caption(caption)
            .await
            .map(|_| ())
    })
    .await
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
fn group_title(message: &Message) -> Option<&str> {
    if message.chat.is_private() {
        return None;
    }
    Some(message.chat.title().unwrap_or_default())
}

/// Sends private material with `send` where only its owner sees it: here in a private chat;
/// from a group to the person's private chat, with a short notice in the group that it went
/// there, or, when the bot may not write there, a notice asking them to ask in private.
async fn send_private_material<F, Fut>(
    bot: &TelegramBot,
    message: &Message,
    send: F,
) -> HandlerResult
where
    F: FnOnce(ChatId) -> Fut,
    Fut: Future<Output = Result<(), RequestError>>,
{
    let chat_id = match private_destination(message) {
        PrivateDestination::ThisChat => return Ok(send(message.chat.id).await?),
        PrivateDestination::Nobody => {
            return reply_in_chat(bot, message, replies::PRIVATE_NEEDS_A_PERSON).await;
        }
        PrivateDestination::PrivateChat(chat_id) => chat_id,
    };
    match send(chat_id).await {
        Ok(()) => reply_in_chat(bot, message, replies::ANSWERED_IN_PRIVATE).await,
        Err(error) if cannot_write_to(&error) => {
            tracing::info!(
                error = crate::telegram::loggable(&error),
                chat_id = chat_id.0,
                "cannot write to a private chat"
            );
            reply_in_chat(bot, message, replies::ASK_IN_PRIVATE).await
        }
        Err(error) => Err(error.into()),
    }
}

/// [`send_private_material`] for a text, which names the group it was asked in when it goes to a
/// private chat from there.
async fn reply_privately(bot: &TelegramBot, message: &Message, text: &str) -> HandlerResult {
    let text = match group_title(message) {
        Some(title) => replies::from_group(title, text),
        None => text.to_owned(),
    };
    send_private_material(bot, message, |chat_id| {
        let target = ReplyTarget {
            chat_id,
            reply_to: None,
        };
        send_plain_text(bot, target, &text)
    })
    .await
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

/// The history as a Markdown document: one heading per message with its time and author.
pub fn export_markdown(messages: &[StoredMessage]) -> String {
    let mut document = String::from("# telemem history\n");
    for message in messages {
        let author = match message.role {
            crate::storage::Role::User => "You",
            crate::storage::Role::Assistant => "Bot",
            crate::storage::Role::System => "System",
        };
        document.push_str(&format!(
            "\n## {author} — {}\n\n{}\n",
            crate::clock::format_utc_ms(message.created_at_ms),
            message.content
        ));
    }
    document
}
