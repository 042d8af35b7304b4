//! The endpoints of the handler tree (`telegram::schema`): one small `async fn` per kind of update,
//! with their dependencies injected by dptree. They translate between Telegram and
//! [`Conversations`] (and [`commands`] for commands) and choose the user-facing sentence from
//! [`replies`]; they hold no chat logic themselves. A chat turn's machinery is in [`turn`], the
//! ways of answering every endpoint shares in [`reply`], and each feature with buttons of its own
//! in its module ([`admin`], [`clear`], [`model_menu`], [`stop`]; `/retry` in [`super::retry`]).
//!
//! Everything is keyed on the sender's identity ([`identity`]), and every sentence is in the
//! sender's language ([`identity::message_language`]).

use std::sync::Arc;

use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, Me};

use crate::commands::{self, Command, CommandAnswer};
use crate::conversation::Conversations;
use crate::replies;
use crate::telegram::access::{Access, AccessPolicy, Refusal, is_addressed_to_bot};
use crate::telegram::bot::TelegramBot;
use crate::telegram::identity::{self, conversation_key};
use crate::telegram::intake::Intake;
use crate::telegram::reply::{HandlerResult, answer_once, reply_in_chat, reply_privately};
use crate::telegram::settings::BotSettings;
use crate::telegram::turn;
pub use crate::telegram::turn_context::MessageKind;
use crate::telegram::turn_context::TurnContext;
use crate::telegram::{
    admin, clear, export, mini_app, model_menu, pictures, reminders, stop, voice,
};
use crate::tools::Caller;

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
                    error = crate::telegram::errors::loggable_chain(&error),
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

/// A message that starts a chat turn, with what it carries. The message is shared, not copied:
/// the handler tree clones what it injects, and a turn in flight holds this for its whole life.
#[derive(Clone, Debug)]
pub struct UpdateToAnswer {
    update_id: i64,
    message: Arc<Message>,
    kind: MessageKind,
}

/// What the schema makes of a message that starts a chat turn of `kind`, for [`turn_message`].
pub fn to_answer_as(
    kind: MessageKind,
) -> impl Fn(Update, Message) -> UpdateToAnswer + Send + Sync + 'static {
    move |update, message| UpdateToAnswer {
        update_id: i64::from(update.id.0),
        message: Arc::new(message),
        kind,
    }
}

/// A message that starts a chat turn (a text, a file, `/retry`), or the end of one the last run
/// left unfinished: a reply it stored is delivered instead of asking the model again.
pub async fn turn_message(
    bot: TelegramBot,
    UpdateToAnswer {
        update_id,
        message,
        kind,
    }: UpdateToAnswer,
    me: Me,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
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
        is_admin: identity::sender_id(&message).is_some_and(|sender| settings.is_admin(sender)),
        conversations: &conversations,
        intake: &intake,
        update_id,
        answer: intake.answer_messages(update_id),
        me: &me,
        settings: &settings,
    };
    turn::answer_update(&turn, resumption, kind).await
}

/// Which of the buttons under the bot's messages an allowed person pressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// A model in a `/model` menu ([`model_menu`]).
    Model,
    /// Stop, under an answer being written ([`stop`]).
    Stop,
    /// Yes or No under `/clear`'s confirmation ([`clear`]).
    Clear,
    /// Cancel under a reminder of `/reminders` ([`reminders`]).
    Reminder,
}

/// A press on one of the buttons under the bot's messages. Answered once, like a command.
pub async fn button_pressed(
    bot: TelegramBot,
    update: Update,
    query: CallbackQuery,
    button: Button,
    conversations: Conversations,
    intake: Intake,
) -> HandlerResult {
    let press = async move {
        match button {
            Button::Model => model_menu::press_model_button(bot, query, conversations).await,
            Button::Stop => stop::press_stop(bot, query, conversations).await,
            Button::Clear => clear::press_clear_button(bot, query, conversations).await,
            Button::Reminder => reminders::press_reminder_button(bot, query, conversations).await,
        }
    };
    answer_once(&intake, &update, press).await
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
/// it to [`turn_message`], a chat turn, which a crash before its answer is stored runs again.
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
        CommandAnswer::SayPrivatelyWithApp { text, view } => {
            let app_url = settings.app_url.as_ref();
            mini_app::reply_with_app(&bot, &message, &text, view, app_url, lang).await
        }
        CommandAnswer::PersonaSaved { confirmation } if message.chat.is_private() => {
            reply_in_chat(&bot, &message, &confirmation).await
        }
        // Confirmed without the text in a group: it is private from now on.
        CommandAnswer::PersonaSaved { .. } => {
            reply_in_chat(&bot, &message, &replies::persona_saved_not_shown(lang)).await
        }
        CommandAnswer::ConfirmClear => clear::ask_to_clear(&bot, &message, key.user_id, lang).await,
        CommandAnswer::Export(format) => {
            export::export(&bot, &message, key, format, &conversations).await
        }
        CommandAnswer::ChooseModel { intro, menu } => {
            model_menu::offer_models(&bot, &message, key.user_id, lang, &intro, &menu).await
        }
        // The stopped answer shows its mark; nothing more to say.
        CommandAnswer::TurnStopped => Ok(()),
        // The schema sends /retry to `turn_message` before it gets here.
        CommandAnswer::Retry => Ok(()),
        CommandAnswer::ListReminders => {
            reminders::list_reminders(&bot, &message, key.user_id, &conversations).await
        }
        CommandAnswer::ListTools => {
            let caller = Caller {
                key,
                is_admin: settings.is_admin(key.user_id),
            };
            let text = commands::tools_text(&conversations, &caller, lang).await?;
            reply_in_chat(&bot, &message, &text).await
        }
        CommandAnswer::ReadAloud(text) => {
            voice::read_aloud(&bot, &message, key, lang, &conversations, &text).await
        }
        CommandAnswer::Draw(description) => {
            let (bot, conversations) = (&bot, &conversations);
            pictures::draw_on_request(bot, &message, key, lang, conversations, &description).await
        }
    }
}
