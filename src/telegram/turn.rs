//! The machinery of a chat turn on Telegram: what its steps share ([`TurnContext`]), the checks
//! before the model is asked (the message's text, the daily limit), storing the person's message,
//! asking the model while showing progress (`typing`, or the streamed preview with its Stop
//! button), storing the reply before it is sent, and delivering it, or the notice that answers
//! instead. A turn the last run left unfinished is finished here too ([`finish_or_answer`]): a
//! stored reply is delivered rather than asked for again.

use std::future::Future;

use teloxide::prelude::*;
use teloxide::types::{ChatAction, Me};
use tokio::sync::watch;

use crate::commands;
use crate::conversation::{Answer, Conversations, FinishedTurn, Turn, TurnInput};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::LlmError;
use crate::metrics;
use crate::quota::CapOutcome;
use crate::replies;
use crate::running_turns::RunningTurn;
use crate::telegram::access::without_bot_mention;
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::{
    Preview, ProgressDisplay, ReplyTarget, deliver_reply, replace_preview_with_notice,
    show_progress,
};
use crate::telegram::intake::{AnswerMessages, Intake, Resumption};
use crate::telegram::media::{self, MediaTurn};
use crate::telegram::reply::{HandlerResult, tell_sender_privately};
use crate::telegram::settings::BotSettings;
use crate::telegram::stop;

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
    /// Whether the sender is one of the bot's admins (some tools are theirs alone).
    pub(super) is_admin: bool,
    pub(super) conversations: &'a Conversations,
    pub(super) intake: &'a Intake,
    pub(super) update_id: i64,
    /// Where the messages carrying the answer are recorded as they are sent.
    pub(super) answer: AnswerMessages,
    /// The bot itself, whose mention is taken out of a group message.
    pub(super) me: &'a Me,
    pub(super) settings: &'a BotSettings,
}

impl TurnContext<'_> {
    /// Registers the turn as running, so that `/cancel` and the Stop button reach it. Done before
    /// anything slow (reading memory, fetching a file), which they stop too.
    pub(super) fn start_running(&self) -> RunningTurn {
        self.conversations
            .start_running(self.key, Some(self.update_id))
    }

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
/// is over `USER_MAX_STORED_MB`, and the first time tells them .
fn keep_stored_history_under_cap(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    conversations: &Conversations,
) {
    let bot = bot.clone();
    let message = message.clone();
    keep_stored_history_under_cap_then(conversations, key.user_id, move |max_bytes| async move {
        let lang = crate::telegram::identity::message_language(&message);
        let notice = replies::stored_history_capped(lang, max_bytes);
        tell_sender_privately(&bot, &message, &notice).await
    });
}

/// After a turn of `user_id`, in the background: trims their oldest sessions if their stored
/// history is over `USER_MAX_STORED_MB`, and the first time tells them with `tell`, given the
/// cap in bytes.
pub(super) fn keep_stored_history_under_cap_then<F, Fut>(
    conversations: &Conversations,
    user_id: crate::storage::UserId,
    tell: F,
) where
    F: FnOnce(u64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<(), teloxide::RequestError>> + Send,
{
    let quota = conversations.quota().clone();
    let Some(max_bytes) = quota.settings().max_stored_bytes else {
        return;
    };
    tokio::spawn(async move {
        match quota.keep_stored_history_under_cap(user_id).await {
            Ok(CapOutcome::Trimmed { tell: true, .. }) => {
                if let Err(error) = tell(max_bytes).await {
                    tracing::warn!(
                        error = crate::telegram::errors::loggable(&error),
                        user_id = user_id.0,
                        "could not tell a person about the stored-history cap"
                    );
                }
            }
            Ok(_) => {}
            Err(error) => tracing::error!(
                error = ?error,
                user_id = user_id.0,
                "could not keep a stored history under its cap"
            ),
        }
    });
}

/// One chat turn for a text message, its answer starting in `preview`'s messages (those an
/// earlier run sent for it, if any).
pub(super) async fn chat_turn(
    turn: &TurnContext<'_>,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let settings = turn.settings;
    let text = match turn_text(turn.message, turn.me, turn.lang, settings.max_message_chars) {
        Ok(text) => text,
        Err(reply) => return turn.answer_with_notice(preview, &reply).await,
    };
    if let Some(notice) = daily_limit_notice(turn).await {
        return turn.answer_with_notice(preview, &notice).await;
    }
    let running = turn.start_running();
    let started = start_turn(turn, TurnInput::text(&text), &preview).await?;
    answer_turn(turn, &started, preview, running, "").await
}

/// The notice for a person past their daily token limit, whose message is then neither stored nor
/// sent to the model (they are told to send it again after midnight UTC); `None` otherwise.
pub(super) async fn daily_limit_notice(turn: &TurnContext<'_>) -> Option<String> {
    daily_limit_notice_for(turn.conversations, turn.key.user_id, turn.lang).await
}

/// [`daily_limit_notice`] for the person `user_id`, who reads `lang`.
pub(super) async fn daily_limit_notice_for(
    conversations: &Conversations,
    user_id: crate::storage::UserId,
    lang: Lang,
) -> Option<String> {
    let reached = conversations.daily_limit_reached(user_id).await?;
    Some(replies::daily_limit_reached(lang, &reached))
}

/// One chat turn for a file: what it holds becomes the person's message (see [`media`]), or a
/// notice says why it cannot.
pub(super) async fn media_turn(
    turn: &TurnContext<'_>,
    preview: Preview,
) -> anyhow::Result<TurnOutcome> {
    let settings = turn.settings;
    let Some(attachment) = media::attachment_of(turn.message) else {
        let notice = replies::text_only(turn.lang);
        return turn.answer_with_notice(preview, &notice).await;
    };
    if let Some(notice) = daily_limit_notice(turn).await {
        return turn.answer_with_notice(preview, &notice).await;
    }
    let running = turn.start_running();
    let caption = media::caption_text(turn.message, turn.me);
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
    answer_turn(turn, &started, preview, running, &prepared.header).await
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
    let reply = failed_start_notice(&error, turn.lang);
    turn.answer_with_notice(preview.clone(), &reply).await?;
    Err(error.context("could not start the chat turn"))
}

/// The notice for a turn that could not start (its message not stored): storage is full, or
/// something went wrong; counted as an error.
pub(super) fn failed_start_notice(error: &anyhow::Error, lang: Lang) -> String {
    let disk_full = is_disk_full(error);
    metrics::error(if disk_full { "disk_full" } else { "database" });
    if disk_full {
        replies::storage_full(lang)
    } else {
        replies::internal_error(lang)
    }
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
    preview: Preview,
    running: RunningTurn,
    header: &str,
) -> anyhow::Result<TurnOutcome> {
    let (answer, preview) = ask_showing_progress(turn, started, preview, running, header).await;
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
    crate::telegram::pictures::send_drawn_pictures(turn).await;
    if !answer.is_stopped() {
        crate::telegram::voice::speak_answer(turn, &completion.text).await;
    }
    Ok(outcome)
}

/// The answer to store and deliver, or the notice that answers instead when the model failed or
/// said nothing.
pub(super) fn usable_answer(
    turn: &TurnContext<'_>,
    started: &Turn,
    answer: Result<Answer, LlmError>,
) -> Result<Answer, String> {
    usable_answer_in(turn.lang, started, answer)
}

/// [`usable_answer`] with its notices in `lang`.
pub(super) fn usable_answer_in(
    lang: Lang,
    started: &Turn,
    answer: Result<Answer, LlmError>,
) -> Result<Answer, String> {
    let key = started.key;
    match answer {
        Ok(answer) if answer.completion().text.trim().is_empty() => Err(replies::empty_reply(lang)),
        Ok(answer) => Ok(answer),
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = key.chat_id.0, user_id = key.user_id.0, "the model call failed");
            Err(match error {
                LlmError::RateLimited { .. } => replies::model_rate_limited(lang),
                // A model that cannot see refuses a request with a picture (HTTP 400).
                LlmError::Rejected { .. } if carries_images(started) => {
                    replies::vision_not_supported(lang)
                }
                _ => replies::model_unavailable(lang),
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
/// progress display left it. Whether the answer streams is the bot's `STREAM_REPLIES`.
pub(super) async fn ask_showing_progress(
    turn: &TurnContext<'_>,
    started: &Turn,
    preview: Preview,
    running: RunningTurn,
    header: &str,
) -> (Result<Answer, LlmError>, Preview) {
    let stream = turn.settings.stream_replies;
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
    let started = &Turn {
        is_admin: turn.is_admin,
        lang: turn.lang,
        ..started.clone()
    };
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
    count_model_call(&answer, asked_at);
    let preview = display.await.unwrap_or(shown_before);
    (answer, preview)
}

/// Counts a model call asked at `asked_at`, by how it ended.
pub(super) fn count_model_call(answer: &Result<Answer, LlmError>, asked_at: std::time::Instant) {
    let outcome = match answer {
        Ok(Answer::Complete(_)) => "ok",
        Ok(Answer::Stopped(_)) => "stopped",
        Err(_) => "error",
    };
    metrics::llm_call_finished(asked_at.elapsed(), outcome);
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
