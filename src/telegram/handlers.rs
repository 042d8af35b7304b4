//! The endpoints of the handler tree: one small `async fn` per kind of update, with their
//! dependencies injected by dptree. They translate between Telegram and [`Conversations`] and
//! choose the user-facing sentence from [`replies`]; they hold no chat logic themselves.

use std::future::Future;
use std::sync::Arc;

use teloxide::prelude::*;
use teloxide::types::{
    CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Me, MessageId,
};
use teloxide::utils::command::BotCommands;
use tokio::sync::watch;

use crate::conversation::{Conversations, Persona, PersonaError};
use crate::llm::LlmError;
use crate::metrics;
use crate::storage::{ConversationKey, StoredMessage};
use crate::telegram::access::{Access, AccessPolicy, is_addressed_to_bot, without_bot_mention};
use crate::telegram::commands::{Command, ExportFormat, PersonaRequest};
use crate::telegram::delivery::{
    self, Preview, ReplyTarget, deliver_notice, deliver_reply, show_progress,
};
use crate::telegram::intake::Intake;
use crate::telegram::{BotSettings, TelegramApi, replies};

pub type HandlerResult = anyhow::Result<()>;

const CLEAR_YES: &str = "clear:yes";
const CLEAR_NO: &str = "clear:no";

/// The (chat, user) conversation a message belongs to; `None` for messages without a sender.
pub fn conversation_key(message: &Message) -> Option<ConversationKey> {
    let user = message.from.as_ref()?;
    Some(ConversationKey::new(message.chat.id.0, user.id.0 as i64))
}

fn reply_target(message: &Message) -> ReplyTarget {
    ReplyTarget {
        chat_id: message.chat.id,
        reply_to: (!message.chat.is_private()).then_some(message.id),
    }
}

async fn say<B: TelegramApi>(bot: &B, message: &Message, text: &str) -> HandlerResult {
    let preview = Preview {
        message_id: None,
        next_edit_at: tokio::time::Instant::now(),
    };
    deliver_notice(bot, reply_target(message), preview, text).await?;
    Ok(())
}

/// Filter: the message is for the bot (private chat, mention, reply, command).
pub fn addressed_to_bot(message: Message, me: Me) -> bool {
    is_addressed_to_bot(&message, &me)
}

/// Filter: the sender may use the bot. Refuses strangers once, politely, storing nothing.
pub async fn sender_allowed<B: TelegramApi>(
    bot: B,
    message: Message,
    access: Arc<AccessPolicy>,
) -> bool {
    let Some(user) = message.from.as_ref() else {
        return false;
    };
    match access.check(user.id.0 as i64) {
        Access::Allowed => true,
        Access::RefuseOnce => {
            tracing::info!(
                user_id = user.id.0,
                "refused a user who is not on the allow list"
            );
            if let Err(error) = say(&bot, &message, replies::NOT_ALLOWED).await {
                tracing::warn!(error = ?error, "could not send the refusal");
            }
            false
        }
        Access::Ignore => false,
    }
}

/// Filter: a callback query's sender may use the bot (no refusal: buttons come from our messages).
pub fn presser_allowed(query: CallbackQuery, access: Arc<AccessPolicy>) -> bool {
    access.check(query.from.id.0 as i64) == Access::Allowed
}

/// Updates that pass no filter (a group message not for the bot, a stranger's message after the
/// refusal) need nothing more.
pub async fn ignored(update: Update, intake: Intake) -> HandlerResult {
    intake.done(i64::from(update.id.0)).await;
    Ok(())
}

/// A text message: one chat turn.
pub async fn chat_message<B: TelegramApi>(
    bot: B,
    update: Update,
    message: Message,
    me: Me,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    let update_id = i64::from(update.id.0);
    let Some(key) = conversation_key(&message) else {
        intake.done(update_id).await;
        return Ok(());
    };
    let marked_done = chat_turn(
        &bot,
        &message,
        key,
        &me,
        &conversations,
        &settings,
        &intake,
        update_id,
    )
    .await?;
    if !marked_done {
        intake.done(update_id).await;
    }
    Ok(())
}

/// Replies with a short notice instead of a model answer.
async fn notice<B: TelegramApi>(
    bot: &B,
    message: &Message,
    intake: &Intake,
    update_id: i64,
    text: &str,
) -> HandlerResult {
    intake.replying(update_id).await;
    say(bot, message, text).await
}

/// One chat turn for a text message. Returns `true` when the update is already marked done
/// (recording the delivered reply does that), `false` when the caller still has to.
#[allow(clippy::too_many_arguments)]
async fn chat_turn<B: TelegramApi>(
    bot: &B,
    message: &Message,
    key: ConversationKey,
    me: &Me,
    conversations: &Conversations,
    settings: &BotSettings,
    intake: &Intake,
    update_id: i64,
) -> anyhow::Result<bool> {
    let raw_text = message.text().unwrap_or_default();
    let text = if message.chat.is_private() {
        raw_text.trim().to_owned()
    } else {
        without_bot_mention(raw_text, me)
    };
    if text.starts_with('/') {
        return notice(bot, message, intake, update_id, &unknown_command_reply())
            .await
            .map(|()| false);
    }
    if text.is_empty() {
        return notice(bot, message, intake, update_id, replies::EMPTY_MESSAGE)
            .await
            .map(|()| false);
    }
    let length = text.chars().count();
    if length > settings.max_message_chars {
        let reply = replies::message_too_long(length, settings.max_message_chars);
        return notice(bot, message, intake, update_id, &reply)
            .await
            .map(|()| false);
    }

    let turn = match conversations
        .begin_turn(key, &text, Some(i64::from(message.id.0)))
        .await
    {
        Ok(turn) => turn,
        Err(error) => {
            let disk_full = is_disk_full(&error);
            metrics::error(if disk_full { "disk_full" } else { "database" });
            let reply = if disk_full {
                replies::STORAGE_FULL
            } else {
                replies::INTERNAL_ERROR
            };
            notice(bot, message, intake, update_id, reply).await?;
            return Err(error.context("could not start the chat turn"));
        }
    };

    let target = reply_target(message);
    let (progress_sender, progress) = watch::channel(String::new());
    let display = tokio::spawn(show_progress(
        bot.clone(),
        target,
        progress,
        settings.stream_replies,
    ));
    let asked_at = std::time::Instant::now();
    let answer = conversations
        .ask(&turn, settings.stream_replies.then_some(&progress_sender))
        .await;
    drop(progress_sender);
    metrics::llm_call_finished(
        asked_at.elapsed(),
        if answer.is_ok() { "ok" } else { "error" },
    );
    let preview = display.await.unwrap_or(Preview {
        message_id: None,
        next_edit_at: tokio::time::Instant::now(),
    });
    let completion = match answer {
        Ok(completion) if completion.text.trim().is_empty() => {
            intake.replying(update_id).await;
            deliver_notice(bot, target, preview, replies::EMPTY_REPLY).await?;
            return Ok(false);
        }
        Ok(completion) => completion,
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = key.chat_id, user_id = key.user_id, "the model call failed");
            let reply = match error {
                LlmError::RateLimited { .. } => replies::MODEL_RATE_LIMITED,
                _ => replies::MODEL_UNAVAILABLE,
            };
            intake.replying(update_id).await;
            deliver_notice(bot, target, preview, reply).await?;
            return Ok(false);
        }
    };
    // Stored before it is sent, together with the update's `replying` mark: a crash from here on
    // leaves the reply in the history and never sends it twice.
    let reply_id = conversations
        .finish_turn(&turn, &completion, Some(update_id))
        .await?;
    let message_ids = deliver_reply(bot, target, preview, &completion.text).await?;
    metrics::reply_sent();
    metrics::tokens(
        u64::from(completion.tokens_in.unwrap_or(0)),
        u64::from(completion.tokens_out.unwrap_or(0)),
    );
    // Recording which message carried the reply also marks the update done.
    let Some(first) = message_ids.first() else {
        return Ok(false);
    };
    conversations
        .reply_delivered(reply_id, i64::from(first.0))
        .await?;
    Ok(true)
}

fn unknown_command_reply() -> String {
    format!(
        "I don't know that command. These are the ones I understand:\n\n{}",
        Command::descriptions()
    )
}

fn is_disk_full(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<sqlx::Error>()
            .is_some_and(crate::storage::is_storage_full)
    })
}

/// Photos, stickers, voice, files: a short clear reply.
pub async fn non_text_message<B: TelegramApi>(
    bot: B,
    update: Update,
    message: Message,
    intake: Intake,
) -> HandlerResult {
    answer_once(&intake, &update, say(&bot, &message, replies::TEXT_ONLY)).await
}

/// Every command. Commands answer at once, so the update counts as being answered from the
/// start: after a crash a command is not run twice.
pub async fn command<B: TelegramApi>(
    bot: B,
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

async fn run_command<B: TelegramApi>(
    bot: B,
    message: Message,
    command: Command,
    conversations: Conversations,
    settings: Arc<BotSettings>,
) -> HandlerResult {
    let Some(key) = conversation_key(&message) else {
        return Ok(());
    };
    match command {
        Command::Start => say(&bot, &message, &settings.start_text).await,
        Command::Help => say(&bot, &message, &Command::descriptions().to_string()).await,
        Command::Persona(argument) => persona(&bot, &message, key, &argument, &conversations).await,
        Command::Stats => {
            let stats = conversations.stats(key).await?;
            say(&bot, &message, &replies::stats(&stats)).await
        }
        Command::Memory => {
            let overview = conversations.memory_overview(key).await?;
            say(&bot, &message, &replies::memory(&overview)).await
        }
        Command::Forget(argument) => forget(&bot, &message, key, &argument, &conversations).await,
        Command::Reset => {
            let was_open = conversations.reset_session(key).await?;
            say(
                &bot,
                &message,
                if was_open {
                    replies::RESET_DONE
                } else {
                    replies::RESET_NOTHING_OPEN
                },
            )
            .await
        }
        Command::Clear => ask_to_clear(&bot, &message, key).await,
        Command::Export(argument) => {
            export(
                &bot,
                &message,
                key,
                ExportFormat::parse(&argument),
                &conversations,
            )
            .await
        }
    }
}

async fn persona<B: TelegramApi>(
    bot: &B,
    message: &Message,
    key: ConversationKey,
    argument: &str,
    conversations: &Conversations,
) -> HandlerResult {
    match PersonaRequest::parse(argument) {
        PersonaRequest::Show => match conversations.persona(key.user_id).await? {
            Some(persona) => say(bot, message, &replies::persona_current(&persona)).await,
            None => say(bot, message, replies::PERSONA_NONE).await,
        },
        PersonaRequest::Reset => {
            conversations.set_persona(key.user_id, None).await?;
            say(bot, message, replies::PERSONA_RESET).await
        }
        PersonaRequest::Set(text) => match Persona::parse(text) {
            Ok(persona) => {
                conversations
                    .set_persona(key.user_id, Some(&persona))
                    .await?;
                say(bot, message, &replies::persona_set(persona.as_str())).await
            }
            Err(PersonaError::TooLong { length, .. }) => {
                say(bot, message, &replies::persona_too_long(length)).await
            }
            Err(PersonaError::Empty) => say(bot, message, replies::PERSONA_NONE).await,
        },
    }
}

async fn forget<B: TelegramApi>(
    bot: &B,
    message: &Message,
    key: ConversationKey,
    argument: &str,
    conversations: &Conversations,
) -> HandlerResult {
    let argument = argument.trim();
    let Ok(number) = argument.parse::<usize>() else {
        return say(bot, message, replies::FORGET_USAGE).await;
    };
    match conversations.forget_note(key, number).await? {
        Some(note) => say(bot, message, &replies::forgot(&note)).await,
        None => say(bot, message, &replies::no_such_note(argument)).await,
    }
}

async fn ask_to_clear<B: TelegramApi>(
    bot: &B,
    message: &Message,
    key: ConversationKey,
) -> HandlerResult {
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
pub async fn clear_button<B: TelegramApi>(
    bot: B,
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

async fn press_clear_button<B: TelegramApi>(
    bot: B,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let data = query.data.as_deref().unwrap_or_default();
    let (action, owner) = data.rsplit_once(':').unwrap_or((data, ""));
    let presser = query.from.id.0 as i64;
    if owner.parse::<i64>().ok() != Some(presser) {
        bot.answer_callback_query(query.id.clone())
            .text(replies::CLEAR_NOT_YOURS)
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
            replies::cleared(counts.messages, counts.sessions)
        }
        _ => replies::CLEAR_CANCELLED.to_owned(),
    };
    bot.answer_callback_query(query.id.clone()).await?;
    edit_confirmation(&bot, message.chat.id, message.id, &outcome).await
}

async fn edit_confirmation<B: TelegramApi>(
    bot: &B,
    chat_id: ChatId,
    message_id: MessageId,
    text: &str,
) -> HandlerResult {
    delivery::with_flood_retry(|| bot.edit_message_text(chat_id, message_id, text).send()).await?;
    Ok(())
}

async fn export<B: TelegramApi>(
    bot: &B,
    message: &Message,
    key: ConversationKey,
    format: ExportFormat,
    conversations: &Conversations,
) -> HandlerResult {
    let messages = conversations.export(key).await?;
    if messages.is_empty() {
        return say(bot, message, replies::EXPORT_EMPTY).await;
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
    let mut request = bot
        .send_document(
            message.chat.id,
            InputFile::memory(bytes).file_name(file_name),
        )
        .caption(replies::EXPORT_CAPTION);
    if !message.chat.is_private() {
        request = request.reply_parameters(
            teloxide::types::ReplyParameters::new(message.id).allow_sending_without_reply(),
        );
    }
    request.await?;
    Ok(())
}

/// The history as a Markdown document: one heading per message with its time and author.
pub fn export_markdown(messages: &[StoredMessage]) -> String {
    let mut document = String::from("# telemem history\n");
    for message in messages {
        let author = match message.role {
            crate::storage::MessageRole::User => "You",
            crate::storage::MessageRole::Assistant => "Bot",
            crate::storage::MessageRole::System => "System",
        };
        document.push_str(&format!(
            "\n## {author} — {}\n\n{}\n",
            crate::clock::format_utc_ms(message.created_at_ms),
            message.content
        ));
    }
    document
}
