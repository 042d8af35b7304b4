//! The Telegram edge of the bot: the teloxide handler tree ([`schema`]), the command enum, the
//! handlers, rendering of the model's Markdown to Telegram HTML, reply delivery, access control
//! and every user-facing sentence. Chat logic lives in [`crate::conversation`]; this module only
//! translates between Telegram and it.

pub mod access;
pub mod commands;
pub mod delivery;
pub mod handlers;
pub mod intake;
pub mod render;
pub mod replies;

use std::sync::Arc;

use teloxide::RequestError;
use teloxide::dispatching::{DefaultKey, Dispatcher, HandlerExt, UpdateFilterExt, UpdateHandler};
use teloxide::prelude::*;
use teloxide::utils::command::BotCommands;

use crate::config::Config;
use crate::conversation::Conversations;
use crate::telegram::access::AccessPolicy;
use crate::telegram::commands::Command;
use crate::telegram::intake::Intake;

/// What the handlers need of a bot: the plain `Bot` or teloxide's `Throttle<Bot>` (chosen at
/// start by `TELEGRAM_THROTTLE`), so the handlers are generic over it. The requests the bot
/// builds must be `Send` because handlers run on tokio's multi-threaded runtime.
pub trait TelegramApi:
    Requester<
        Err = RequestError,
        GetUpdates: Send,
        SendMessage: Send,
        SendDocument: Send,
        EditMessageText: Send,
        AnswerCallbackQuery: Send,
        DeleteMessage: Send,
        SendChatAction: Send,
        SetMyCommands: Send,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

impl<B> TelegramApi for B where
    B: Requester<
            Err = RequestError,
            GetUpdates: Send,
            SendMessage: Send,
            SendDocument: Send,
            EditMessageText: Send,
            AnswerCallbackQuery: Send,
            DeleteMessage: Send,
            SendChatAction: Send,
            SetMyCommands: Send,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

/// Settings the handlers need, fixed at start.
#[derive(Clone, Debug)]
pub struct BotSettings {
    pub max_message_chars: usize,
    pub stream_replies: bool,
    pub start_text: String,
    /// Chat turns past their checks and not finished yet; the rest wait for a permit. Under
    /// overload the waiting turns hold only their update, not a prompt and a model request, so
    /// memory stays bounded however far the bot falls behind.
    pub turns_in_flight: Arc<tokio::sync::Semaphore>,
}

/// At most this many chat turns build prompts, wait for the model and send replies at once. The
/// model's latency is what keeps turns in flight; 256 keeps a slow model busy for many users.
const MAX_TURNS_IN_FLIGHT: usize = 256;

impl BotSettings {
    pub fn from_config(config: &Config) -> Self {
        Self {
            max_message_chars: config.telegram.max_message_chars as usize,
            stream_replies: config.telegram.stream_replies,
            start_text: replies::start(
                config.history.history_window_secs,
                config.storage.purge_after_secs,
                config.history.session_idle_secs,
            ),
            turns_in_flight: Arc::new(tokio::sync::Semaphore::new(MAX_TURNS_IN_FLIGHT)),
        }
    }
}

/// The handler tree. Messages pass, in order: addressed to the bot (always in private chats;
/// mention, reply or command in groups), sender allowed (strangers are refused once), first
/// delivery of the update; then commands, text, and everything else.
pub fn schema<B: TelegramApi>() -> UpdateHandler<anyhow::Error> {
    let for_the_bot = dptree::filter(handlers::addressed_to_bot)
        .filter_async(handlers::sender_allowed::<B>)
        .branch(
            dptree::entry()
                .filter_command::<Command>()
                .endpoint(handlers::command::<B>),
        )
        .branch(Message::filter_text().endpoint(handlers::chat_message::<B>))
        .branch(dptree::endpoint(handlers::non_text_message::<B>));
    let messages = Update::filter_message()
        .branch(for_the_bot)
        .branch(dptree::endpoint(handlers::ignored));
    let buttons = Update::filter_callback_query()
        .branch(dptree::filter(handlers::presser_allowed).endpoint(handlers::clear_button::<B>))
        .branch(dptree::endpoint(handlers::ignored));
    dptree::entry().branch(messages).branch(buttons)
}

/// The dispatcher with all dependencies. Updates of one chat are handled strictly in order
/// (teloxide's default distribution by chat), different chats in parallel.
pub fn dispatcher<B: TelegramApi>(
    bot: B,
    conversations: Conversations,
    access: Arc<AccessPolicy>,
    intake: Intake,
    config: &Config,
) -> Dispatcher<B, anyhow::Error, DefaultKey> {
    let settings = Arc::new(BotSettings::from_config(config));
    let unhandled = intake.clone();
    Dispatcher::builder(bot, schema::<B>())
        .dependencies(dptree::deps![conversations, access, settings, intake])
        .default_handler(move |update| {
            let intake = unhandled.clone();
            async move {
                tracing::debug!(
                    update_id = update.id.0,
                    "ignored an update of a kind the bot does not handle"
                );
                intake.done(i64::from(update.id.0)).await;
            }
        })
        .error_handler(Arc::new(|error: anyhow::Error| async move {
            crate::metrics::error("handler");
            tracing::error!(error = ?error, "handling an update failed");
        }))
        .build()
}

/// Registers the command menu with Telegram.
pub async fn register_commands<B: TelegramApi>(bot: &B) -> Result<(), RequestError> {
    bot.set_my_commands(Command::bot_commands()).await?;
    Ok(())
}
