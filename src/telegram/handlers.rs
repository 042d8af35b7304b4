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
    CallbackQuery, ChatAction, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Me, MessageId,
};
use tokio::sync::watch;

use crate::commands::{self, Command, CommandAnswer, ExportFormat};
use crate::conversation::{Answer, Conversations, FinishedTurn, Turn, TurnInput};
use crate::i18n::Lang;
use crate::llm::LlmError;
use crate::metrics;
use crate::quota::{CapOutcome, TokenCheck};
use crate::replies;
use crate::running_turns::RunningTurn;
use crate::storage::{self, ConversationKey, StoredMessage};
use crate::telegram::access::{
    Access, AccessPolicy, Refusal, is_addressed_to_bot, without_bot_mention,
};
use crate::telegram::admin;
use crate::telegram::delivery::{
    self, Preview, ProgressDisplay, ReplyTarget, deliver_reply, replace_preview_with_notice,
    send_plain_text, show_progress,
};
use crate::telegram::identity::{self, conversation_key};
use crate::telegram::intake::{AnswerMessages, Intake, Resumption};
use crate::telegram::media::{self, MediaTurn};
use crate::telegram::model_menu;
use crate::telegram::{BotSettings, TelegramBot, retry, stop};

pub type HandlerResult = anyhow::Result<()>;

const CLEAR_YES: &str = "clear:yes";
const CLEAR_NO: &str = "clear:no";

/// Answers in the message's chat as plain text, in as many messages as the text needs.
pub(crate) async fn reply_in_chat(
    bot: &TelegramBot,
    message: &Message,
    text: &str,
) -> HandlerResult {
    send_plain_text(bot, ReplyTarget::answering(message), text).await?;
    Ok(())
}

/// Filter: the message is for the bot (private chat, mention, reply, command).
pub fn addressed_to_bot(message: Message, me: Me, access: Arc<AccessPolicy>) -> bool {
    let from_admin = identity::sender_id(&message).is_some_and(|sender| access.is_admin(sender));
    is_addressed_to_bot(&message, &me, from_admin)
}

/// Filter: the sender may use the bot. Refuses strangers and blocked people once, politely,
/// storing nothing; the admins hear about a stranger once.
pub async fn sender_allowed(
    bot: TelegramBot,
    message: Message,
    access: Arc<AccessPolicy>,
    conversations: Conversations,
) -> bool {
    let Some(sender) = identity::sender_id(&message) else {
        return false;
    };
    match access.check(sender) {
        Access::Allowed => true,
        Access::RefuseOnce(refusal) => {
            let as_chat = identity::is_sent_as_chat(&message);
            tracing::info!(
                sender = sender.0,
                as_chat,
                blocked = refusal == Refusal::Blocked,
                "refused a sender who is not on the allow list"
            );
            let lang = identity::message_language(&message);
            let reply = if as_chat {
                replies::not_allowed_as_chat(lang)
            } else {
                replies::not_allowed(lang)
            };
            if let Err(error) = reply_in_chat(&bot, &message, &reply).await {
                tracing::warn!(
                    error = crate::telegram::loggable_chain(&error),
                    "could not send the refusal"
                );
            }
            if refusal == Refusal::Stranger {
                admin::alert_admins_about_stranger(&bot, &message, &access, &conversations).await;
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

/// `/retry`: asks the model again for the sender's last message in this chat (a chat turn of its
/// own, [`retry`]), or finishes the retry the last run left with a stored answer.
pub async fn retry_message(
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
        kind: MessageKind::Retry,
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
    /// `/retry`: the last message asked again ([`retry`]).
    Retry,
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
        lang: identity::message_language(&message),
        conversations: &conversations,
        intake: &intake,
        update_id,
        answer: intake.answer_messages(update_id),
    };
    let (turn, me, settings) = (&turn, &me, &settings);
    finish_or_answer(turn, resumption, |preview| async move {
        match kind {
            MessageKind::Text => chat_turn(turn, me, settings, preview).await,
            MessageKind::Media => media_turn(turn, me, settings, preview).await,
            MessageKind::Retry => retry::retry_turn(turn, settings.stream_replies, preview).await,
        }
    })
    .await
}

/// Answers the update of `turn` with `answer`, its answer starting in the messages an earlier run
/// sent for it; or, when the last run stored a reply for it, delivers that reply instead of
/// asking the model again. Marks the update done unless recording the delivered reply did.
pub(super) async fn finish_or_answer<F, Fut>(
    turn: &TurnContext<'_>,
    resumption: Resumption,
    answer: F,
) -> HandlerResult
where
    F: FnOnce(Preview) -> Fut,
    Fut: Future<Output = anyhow::Result<TurnOutcome>>,
{
    let preview = Preview::of(resumption.message_ids);
    let outcome = match resumption.stored_reply {
        Some(reply) => {
            // The model is not asked again: the person gets the reply already in the history.
            tracing::info!(
                update_id = turn.update_id,
                "delivering a reply stored by the last run"
            );
            let header =
                media::resumed_header(turn.conversations, turn.key, turn.message, turn.lang).await;
            let shown = format!("{header}{}", reply.content);
            deliver_stored(turn, preview, reply.id, &shown).await?
        }
        None => answer(preview).await?,
    };
    if outcome == TurnOutcome::UpdateStillOpen {
        turn.intake.done(turn.update_id).await;
    }
    keep_stored_history_under_cap(turn.bot, turn.message, turn.key, turn.conversations);
    Ok(())
}

/// After a turn, in the background: trims the person's oldest sessions if their stored history
/// is over `USER_MAX_STORED_MB`, and the first time tells them ([`tell_about_the_cap`]).
fn keep_stored_history_under_cap(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    conversations: &Conversations,
) {
    let quota = conversations.quota().clone();
    let Some(max_bytes) = quota.settings().max_stored_bytes else {
        return;
    };
    let bot = bot.clone();
    let message = message.clone();
    tokio::spawn(async move {
        match quota.keep_stored_history_under_cap(key.user_id).await {
            Ok(CapOutcome::Trimmed { tell: true, .. }) => {
                let notice =
                    replies::stored_history_capped(identity::message_language(&message), max_bytes);
                if let Err(error) = tell_about_the_cap(&bot, &message, &notice).await {
                    tracing::warn!(
                        error = crate::telegram::loggable(&error),
                        user_id = key.user_id.0,
                        "could not tell a person about the stored-history cap"
                    );
                }
            }
            Ok(_) => {}
            Err(error) => tracing::error!(
                error = ?error,
                user_id = key.user_id.0,
                "could not keep a stored history under its cap"
            ),
        }
    });
}

/// Tells the sender of `message` about the cap: in their private chat, which keeps it out of a
/// group; in the chat of `message` when there is no private chat to write to.
async fn tell_about_the_cap(
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

/// How a chat turn left its update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TurnOutcome {
    /// The reply was delivered and recorded, which marked the update done.
    ReplyRecorded,
    /// Answered otherwise (a notice, or a reply with nothing to show): the update still has to be
    /// marked done.
    UpdateStillOpen,
}

/// What a chat turn's steps share: the update being answered and where the answer goes.
pub(super) struct TurnContext<'a> {
    pub(super) bot: &'a TelegramBot,
    pub(super) message: &'a Message,
    pub(super) key: ConversationKey,
    /// The language the sender reads.
    pub(super) lang: Lang,
    pub(super) conversations: &'a Conversations,
    pub(super) intake: &'a Intake,
    pub(super) update_id: i64,
    /// Where the messages carrying the answer are recorded as they are sent.
    pub(super) answer: AnswerMessages,
}

impl TurnContext<'_> {
    /// Answers with a short notice instead of a model answer, in the preview's message if there
    /// is one. From here on the update counts as answered: a notice is not sent twice.
    pub(super) async fn answer_with_notice(
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
    if let Some(notice) = daily_limit_notice(turn).await {
        return turn.answer_with_notice(preview, &notice).await;
    }
    // Registered before anything slow, so that a /cancel while memory is read stops it too.
    let running = turn
        .conversations
        .start_running(turn.key, Some(turn.update_id));
    let started = start_turn(turn, TurnInput::text(&text), &preview).await?;
    answer_turn(
        turn,
        &started,
        settings.stream_replies,
        preview,
        running,
        "",
    )
    .await
}

/// The notice for a person past their daily token limit, whose message is then neither stored nor
/// sent to the model (they are told to send it again after midnight UTC); `None` otherwise.
pub(super) async fn daily_limit_notice(turn: &TurnContext<'_>) -> Option<String> {
    let user_id = turn.key.user_id;
    match turn.conversations.quota().check_tokens(user_id).await {
        Ok(TokenCheck::Within) => None,
        Ok(TokenCheck::Reached(reached)) => {
            tracing::info!(
                user_id = user_id.0,
                "refused a turn: the daily token limit is used up"
            );
            Some(replies::daily_limit_reached(turn.lang, &reached))
        }
        // The turn itself meets the same database next; the limit alone does not stop it.
        Err(error) => {
            tracing::warn!(error = ?error, "could not check the daily token limit");
            None
        }
    }
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
        let notice = replies::text_only(turn.lang);
        return turn.answer_with_notice(preview, &notice).await;
    };
    if let Some(notice) = daily_limit_notice(turn).await {
        return turn.answer_with_notice(preview, &notice).await;
    }
    // Registered before anything slow, so that a /cancel while the file is fetched stops it too.
    let running = turn
        .conversations
        .start_running(turn.key, Some(turn.update_id));
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
        lang: turn.lang,
        telegram_message_id: i64::from(turn.message.id.0),
        settings: &settings.media,
    };
    let prepared = match media_turn.prepare(&attachment, &caption).await {
        Ok(prepared) => prepared,
        Err(problem) => {
            metrics::error("media");
            tracing::warn!(error = %problem, chat_id = turn.key.chat_id.0, user_id = turn.key.user_id.0, "could not read an attachment");
            let notice = problem.notice(turn.lang, &settings.media);
            return turn.answer_with_notice(preview, &notice).await;
        }
    };
    let started = start_turn(turn, prepared.input, &preview).await?;
    let stream = settings.stream_replies;
    answer_turn(turn, &started, stream, preview, running, &prepared.header).await
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
        replies::storage_full(turn.lang)
    } else {
        replies::internal_error(turn.lang)
    };
    turn.answer_with_notice(preview.clone(), &reply).await?;
    Err(error.context("could not start the chat turn"))
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

/// Asks the model while showing progress (`typing`, or the streamed preview with its Stop
/// button), stores the reply (a stopped one as far as it got, marked as stopped) and delivers it
/// below `header` (Markdown shown above the answer and not stored: what was heard of a voice
/// note; empty for most turns).
async fn answer_turn(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
    running: RunningTurn,
    header: &str,
) -> anyhow::Result<TurnOutcome> {
    let (answer, preview) =
        ask_showing_progress(turn, started, stream, preview, running, header).await;
    let answer = match usable_answer(turn, started, answer) {
        Ok(answer) => answer,
        Err(notice) => return turn.answer_with_notice(preview, &notice).await,
    };
    // Counted as soon as the model has answered: the tokens are spent even if delivery fails.
    count_tokens(&answer);
    let completion = answer.completion();
    let shown = format!("{header}{}", completion.text);
    // Stored before it is sent, together with the update's `replying` mark: a crash from here on
    // leaves the reply in the history, and the next start delivers it into the messages recorded
    // so far instead of asking the model again (a stopped reply included).
    let finished = turn
        .conversations
        .finish_turn(started, completion, Some(turn.update_id))
        .await?;
    let outcome = match finished {
        FinishedTurn::Stored { reply_id } => {
            deliver_stored(turn, preview, reply_id, &shown).await?
        }
        FinishedTurn::NotStored => deliver_unstored(turn, preview, &shown).await?,
    };
    Ok(outcome)
}

/// The answer to store and deliver, or the notice that answers instead when the model failed or
/// said nothing.
pub(super) fn usable_answer(
    turn: &TurnContext<'_>,
    started: &Turn,
    answer: Result<Answer, LlmError>,
) -> Result<Answer, String> {
    match answer {
        Ok(answer) if answer.completion().text.trim().is_empty() => {
            Err(replies::empty_reply(turn.lang))
        }
        Ok(answer) => Ok(answer),
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = turn.key.chat_id.0, user_id = turn.key.user_id.0, "the model call failed");
            Err(match error {
                LlmError::RateLimited { .. } => replies::model_rate_limited(turn.lang),
                // A model that cannot see refuses a request with a picture (HTTP 400).
                LlmError::Rejected { .. } if carries_images(started) => {
                    replies::vision_not_supported(turn.lang)
                }
                _ => replies::model_unavailable(turn.lang),
            })
        }
    }
}

/// Counts the tokens the provider reported for an answer.
pub(super) fn count_tokens(answer: &Answer) {
    let completion = answer.completion();
    metrics::tokens(
        u64::from(completion.tokens_in.unwrap_or(0)),
        u64::from(completion.tokens_out.unwrap_or(0)),
    );
}

fn carries_images(started: &Turn) -> bool {
    started
        .request
        .messages
        .iter()
        .any(|message| !message.images.is_empty())
}

/// Asks the model while `typing` or the streamed preview shows progress (below `header`), until
/// the answer is complete or `running` is stopped. Returns the answer and the preview as the
/// progress display left it.
pub(super) async fn ask_showing_progress(
    turn: &TurnContext<'_>,
    started: &Turn,
    stream: bool,
    preview: Preview,
    running: RunningTurn,
    header: &str,
) -> (Result<Answer, LlmError>, Preview) {
    let (progress_sender, progress) = watch::channel(String::new());
    let (model_sender, model_progress) = watch::channel(String::new());
    let shown_before = preview.clone();
    let display = ProgressDisplay {
        target: ReplyTarget::answering(turn.message),
        stream,
        preview,
        answer: turn.answer.clone(),
        buttons: stream.then(|| stop::stop_button(turn.lang, turn.key.user_id, turn.update_id)),
    };
    let display = tokio::spawn(show_progress(turn.bot.clone(), progress, display));
    let asked_at = std::time::Instant::now();
    let asking = async {
        let answer = turn
            .conversations
            .ask_until_stopped(started, stream.then_some(&model_sender), &running)
            .await;
        // The model call is over: from here on there is nothing left to stop.
        drop(running);
        drop(model_sender);
        answer
    };
    let showing = show_below(header, model_progress, progress_sender);
    let (answer, ()) = tokio::join!(asking, showing);
    let outcome = match &answer {
        Ok(Answer::Complete(_)) => "ok",
        Ok(Answer::Stopped(_)) => "stopped",
        Err(_) => "error",
    };
    metrics::llm_call_finished(asked_at.elapsed(), outcome);
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
pub(super) async fn deliver_stored(
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
    if message_ids.len() > 1 {
        // Every part, the last one included, so that a /retry finds all the messages of the
        // answer it replaces.
        turn.answer.record(&message_ids).await;
    }
    turn.conversations
        .reply_delivered(reply_id, i64::from(first.0))
        .await?;
    Ok(TurnOutcome::ReplyRecorded)
}

/// Delivers a reply that is not stored (incognito): the update is marked as being answered
/// first, so that a crash during delivery does not answer it twice; marking it done afterwards
/// drops its payload, the message's text, which then exists nowhere else. A delivery that fails
/// has nothing to resume from (the reply is not stored), so the payload goes then too.
async fn deliver_unstored(
    turn: &TurnContext<'_>,
    preview: Preview,
    markdown: &str,
) -> anyhow::Result<TurnOutcome> {
    turn.intake.replying(turn.update_id).await;
    let target = ReplyTarget::answering(turn.message);
    let delivered = deliver_reply(turn.bot, target, preview, markdown, &turn.answer).await;
    if delivered.is_err() {
        turn.intake.done(turn.update_id).await;
    }
    delivered?;
    metrics::reply_sent();
    Ok(TurnOutcome::UpdateStillOpen)
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
    let reply = replies::text_only(identity::message_language(&message));
    answer_once(&intake, &update, reply_in_chat(&bot, &message, &reply)).await
}

/// Every command. Commands answer at once, so the update counts as being answered from the
/// start: after a crash a command is not run twice. `/retry` is the exception: the schema sends
/// it to [`retry_message`], a chat turn, which a crash before its answer is stored runs again.
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
        CommandAnswer::ChooseModel { intro, menu } => {
            model_menu::offer_models(&bot, &message, key.user_id, lang, &intro, &menu).await
        }
        // The stopped answer shows its mark; nothing more to say.
        CommandAnswer::TurnStopped => Ok(()),
        // The schema sends /retry to `retry_message` before it gets here.
        CommandAnswer::Retry => Ok(()),
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
    let presser = identity::user_id(&query.from);
    let lang = identity::user_language(&query.from);
    if owner.parse::<storage::UserId>().ok() != Some(presser) {
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

pub(crate) async fn edit_confirmation(
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
