//! The endpoints of the handler tree: one small `async fn` per kind of update, with their
//! dependencies injected by dptree. They translate between Telegram and [`Conversations`] (and
//! [`commands`] for commands) and choose the user-facing sentence from [`replies`]; they hold no
//! chat logic themselves.
//!
//! Everything is keyed on the sender's identity ([`identity`]), and every sentence is in the
//! sender's language ([`identity::message_language`]). Answers that show private
//! material (the persona, notes and summaries, statistics, the history, a forgotten note) never
//! go into a group: asked in one, they are sent to the person's private chat, and the group only
//! hears that they were, or that the person has to ask in private.

use std::future::Future;
use std::sync::Arc;

use teloxide::{ApiError, RequestError};

use teloxide::prelude::*;
use teloxide::types::{
    CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Me, MessageId,
};
use tokio::sync::watch;

use crate::commands::{self, Command, CommandAnswer, ExportFormat};
use crate::conversation::{Conversations, Turn};
use crate::i18n::Lang;
use crate::llm::{Completion, LlmError};
use crate::metrics;
use crate::replies;
use crate::storage::{ConversationKey, StoredMessage};
use crate::telegram::access::{Access, AccessPolicy, is_addressed_to_bot, without_bot_mention};
use crate::telegram::delivery::{
    self, Preview, ProgressDisplay, ReplyTarget, deliver_reply, replace_preview_with_notice,
    send_plain_text, show_progress,
};
use crate::telegram::identity::{self, conversation_key};
use crate::telegram::intake::{AnswerMessages, Intake};
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
                sender,
                as_chat,
                "refused a sender who is not on the allow list"
            );
            let lang = identity::message_language(&message);
            let refusal = if as_chat {
                replies::not_allowed_as_chat(lang)
            } else {
                replies::not_allowed(lang)
            };
            if let Err(error) = reply_in_chat(&bot, &message, &refusal).await {
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

/// Records the language of an allowed sender who writes as themselves (a post as a channel or
/// an anonymous admin carries no person's language), for what the bot sends them on its own.
pub async fn record_sender_language(message: Message, conversations: Conversations) {
    if identity::is_sent_as_chat(&message) {
        return;
    }
    if let Some(user) = &message.from {
        record_language(user, &conversations).await;
    }
}

/// [`record_sender_language`] for an allowed person pressing a button.
pub async fn record_presser_language(query: CallbackQuery, conversations: Conversations) {
    record_language(&query.from, &conversations).await;
}

async fn record_language(user: &teloxide::types::User, conversations: &Conversations) {
    conversations
        .record_language(identity::user_id(user), user.language_code.as_deref())
        .await;
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
        lang: identity::message_language(&message),
        conversations: &conversations,
        intake: &intake,
        update_id,
        answer: intake.answer_messages(update_id),
    };
    let preview = Preview::of(resumption.message_ids);
    let outcome = match resumption.stored_reply {
        Some(reply) => {
            // The model is not asked again: the person gets the reply already in the history.
            tracing::info!(update_id, "delivering a reply stored by the last run");
            deliver_stored(&turn, preview, reply.id, &reply.content).await?
        }
        None => chat_turn(&turn, &me, &settings, preview).await?,
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
    /// The language the sender reads.
    lang: Lang,
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
    let text = match turn_text(turn.message, me, turn.lang, settings.max_message_chars) {
        Ok(text) => text,
        Err(reply) => return turn.answer_with_notice(preview, &reply).await,
    };
    let telegram_message_id = Some(i64::from(turn.message.id.0));
    let started = match turn
        .conversations
        .begin_turn(turn.key, &text, telegram_message_id)
        .await
    {
        Ok(started) => started,
        Err(error) => {
            let disk_full = is_disk_full(&error);
            metrics::error(if disk_full { "disk_full" } else { "database" });
            let reply = if disk_full {
                replies::storage_full(turn.lang)
            } else {
                replies::internal_error(turn.lang)
            };
            turn.answer_with_notice(preview, &reply).await?;
            return Err(error.context("could not start the chat turn"));
        }
    };
    answer_turn(turn, &started, settings.stream_replies, preview).await
}

/// The text the model gets, or the notice that answers the message instead.
fn turn_text(message: &Message, me: &Me, lang: Lang, max_chars: usize) -> Result<String, String> {
    let raw_text = message.text().unwrap_or_default();
    let text = if message.chat.is_private() {
        raw_text.trim().to_owned()
    } else {
        without_bot_mention(message, me)
    };
    if text.starts_with('/') {
        return Err(replies::unknown_command(lang, &commands::help_text(lang)));
    }
    if text.is_empty() {
        return Err(replies::empty_message(lang));
    }
    let length = text.chars().count();
    if length > max_chars {
        return Err(replies::message_too_long(lang, length, max_chars));
    }
    Ok(text)
}

/// Asks the model while showing progress (`typing`, or the streamed preview), stores the reply
/// and delivers it.
async fn answer_turn(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let (answer, preview) = ask_showing_progress(turn, started, stream, preview).await;
    let completion = match answer {
        Ok(completion) if completion.text.trim().is_empty() => {
            let notice = replies::empty_reply(turn.lang);
            return turn.answer_with_notice(preview, &notice).await;
        }
        Ok(completion) => completion,
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = turn.key.chat_id, user_id = turn.key.user_id, "the model call failed");
            let reply = match error {
                LlmError::RateLimited { .. } => replies::model_rate_limited(turn.lang),
                _ => replies::model_unavailable(turn.lang),
            };
            return turn.answer_with_notice(preview, &reply).await;
        }
    };
    // Stored before it is sent, together with the update's `replying` mark: a crash from here on
    // leaves the reply in the history, and the next start delivers it into the messages recorded
    // so far instead of asking the model again.
    let reply_id = turn
        .conversations
        .finish_turn(started, &completion, Some(turn.update_id))
        .await?;
    let outcome = deliver_stored(turn, preview, reply_id, &completion.text).await?;
    metrics::tokens(
        u64::from(completion.tokens_in.unwrap_or(0)),
        u64::from(completion.tokens_out.unwrap_or(0)),
    );
    Ok(outcome)
}

/// Asks the model while `typing` or the streamed preview shows progress. Returns the answer and
/// the preview as the progress display left it.
async fn ask_showing_progress(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
) -> (Result<Completion, LlmError>, Preview) {
    let (progress_sender, progress) = watch::channel(String::new());
    let shown_before = preview.clone();
    let display = ProgressDisplay {
        target: ReplyTarget::answering(turn.message),
        stream,
        preview,
        answer: turn.answer.clone(),
    };
    let display = tokio::spawn(show_progress(turn.bot.clone(), progress, display));
    let asked_at = std::time::Instant::now();
    let answer = turn
        .conversations
        .ask(started, stream.then_some(&progress_sender))
        .await;
    drop(progress_sender);
    metrics::llm_call_finished(
        asked_at.elapsed(),
        if answer.is_ok() { "ok" } else { "error" },
    );
    let preview = display.await.unwrap_or(shown_before);
    (answer, preview)
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

/// Photos, stickers, voice, files: a short clear reply.
pub async fn non_text_message(
    bot: TelegramBot,
    update: Update,
    message: Message,
    intake: Intake,
) -> HandlerResult {
    let reply = replies::text_only(identity::message_language(&message));
    answer_once(&intake, &update, reply_in_chat(&bot, &message, &reply)).await
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
    let lang = identity::message_language(&message);
    let answer = commands::answer(command, &conversations, key, lang, &settings.greeting).await?;
    match answer {
        CommandAnswer::Say(text) => reply_in_chat(&bot, &message, &text).await,
        CommandAnswer::SayPrivately(text) => reply_privately(&bot, &message, &text).await,
        CommandAnswer::PersonaSaved { confirmation } if message.chat.is_private() => {
            reply_in_chat(&bot, &message, &confirmation).await
        }
        // Confirmed without the text in a group: it is private from now on.
        CommandAnswer::PersonaSaved { .. } => {
            reply_in_chat(&bot, &message, &replies::persona_saved_not_shown(lang)).await
        }
        CommandAnswer::ConfirmClear => ask_to_clear(&bot, &message, key, lang).await,
        CommandAnswer::Export(format) => export(&bot, &message, key, format, &conversations).await,
    }
}

async fn ask_to_clear(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    lang: Lang,
) -> HandlerResult {
    // The user id travels in the button data so that only the asker can confirm in a group.
    let keyboard = InlineKeyboardMarkup::new([[
        InlineKeyboardButton::callback(
            replies::clear_button_yes(lang),
            format!("{CLEAR_YES}:{}", key.user_id),
        ),
        InlineKeyboardButton::callback(
            replies::clear_button_no(lang),
            format!("{CLEAR_NO}:{}", key.user_id),
        ),
    ]]);
    let mut request = bot
        .send_message(message.chat.id, replies::clear_confirm(lang))
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
    let presser = query.from.id.0 as i64;
    let lang = identity::user_language(&query.from);
    if owner.parse::<i64>().ok() != Some(presser) {
        bot.answer_callback_query(query.id.clone())
            .text(replies::clear_not_yours(lang))
            .await?;
        return Ok(());
    }
    let Some(message) = query.regular_message() else {
        bot.answer_callback_query(query.id.clone()).await?;
        return Ok(());
    };
    let key = ConversationKey::new(message.chat.id.0, presser);
    let outcome = match action {
        CLEAR_YES => {
            let counts = conversations.clear(key).await?;
            tracing::info!(
                chat_id = key.chat_id,
                user_id = key.user_id,
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
    let lang = identity::message_language(message);
    let messages = conversations.export(key).await?;
    if messages.is_empty() {
        return reply_privately(bot, message, &replies::export_empty(lang)).await;
    }
    let (bytes, file_name) = match format {
        ExportFormat::Json => (
            serde_json::to_vec_pretty(&messages)?,
            "telemem-history.json",
        ),
        ExportFormat::Markdown => (
            export_markdown(&messages, &replies::export_labels(lang)).into_bytes(),
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
                error = crate::telegram::loggable(&error),
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
async fn reply_privately(bot: &TelegramBot, message: &Message, text: &str) -> HandlerResult {
    let text = match group_title(message) {
        Some(title) => replies::from_group(identity::message_language(message), title, text),
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

/// The history as a Markdown document: one heading per message with its time and author, the
/// title and authors named by `labels` (in the person's language).
pub fn export_markdown(messages: &[StoredMessage], labels: &replies::ExportLabels) -> String {
    let mut document = format!("# {}\n", labels.title);
    for message in messages {
        let author = match message.role {
            crate::storage::Role::User => &labels.user,
            crate::storage::Role::Assistant => &labels.bot,
            crate::storage::Role::System => &labels.system,
        };
        document.push_str(&format!(
            "\n## {author} — {}\n\n{}\n",
            crate::clock::format_utc_ms(message.created_at_ms),
            message.content
        ));
    }
    document
}
