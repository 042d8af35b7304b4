//! The Telegram edge of the bot: the Bot API handle ([`TelegramBot`]), reaching the Bot API, the
//! crash-safe intake, the scheduler that runs the teloxide handler tree ([`schema`]) fairly per
//! person, the handlers (the `/model` menu's buttons in [`model_menu`], the Stop button in
//! [`stop`]), rendering of the model's Markdown to Telegram HTML and splitting replies into
//! messages Telegram accepts, reply delivery, the sender's identity, access control and per-user
//! limits, the admins' side (`admin`), and fetching the files of photos, voice notes and
//! documents ([`media`]). Chat logic lives in [`crate::conversation`], the commands and what they
//! answer in [`crate::commands`], every user-facing sentence in [`crate::replies`] (in the
//! sender's language, [`identity::message_language`]); this module only translates between
//! Telegram and them.

pub mod access;
pub mod admin;
pub mod bot;
pub mod connect;
pub mod delivery;
pub mod handlers;
pub mod identity;
pub mod intake;
pub mod limits;
pub mod media;
pub mod model_menu;
pub mod render;
pub mod retry;
pub mod scheduler;
pub mod split;
pub mod stop;

pub use bot::TelegramBot;

use std::sync::Arc;

use teloxide::RequestError;
use teloxide::dispatching::{HandlerExt, UpdateFilterExt, UpdateHandler};
use teloxide::dptree::di::DependencyMap;
use teloxide::payloads::SetMyCommandsSetters;
use teloxide::prelude::*;
use teloxide::types::{BotCommand, CallbackQuery, Me};

use crate::commands::{self, Command};
use crate::config::Config;
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::replies::Greeting;
use crate::storage::UserId;
use crate::telegram::access::AccessPolicy;
use crate::telegram::intake::Intake;
use crate::telegram::limits::LimitSettings;
use crate::telegram::scheduler::SchedulerSettings;

/// Settings the handlers need, fixed at start.
#[derive(Clone, Debug)]
pub struct BotSettings {
    pub max_message_chars: usize,
    pub stream_replies: bool,
    /// The time windows the `/start` greeting names.
    pub greeting: Greeting,
    pub media: media::MediaSettings,
}

/// At most this many updates are handled at once (the scheduler's slots). The model's latency is
/// what keeps turns in flight; 256 keeps a slow model busy for many users, and the updates
/// waiting beyond it hold only themselves, not a prompt and a model request, so memory stays
/// bounded however far the bot falls behind.
pub const MAX_TURNS_IN_FLIGHT: usize = 256;

impl BotSettings {
    pub fn from_config(config: &Config) -> Self {
        Self {
            max_message_chars: config.telegram.max_message_chars as usize,
            stream_replies: config.telegram.stream_replies,
            greeting: commands::greeting(config),
            media: media::MediaSettings::from_config(&config.media),
        }
    }
}

/// The handler tree. Messages pass, in order: addressed to the bot (always in private chats;
/// mention, reply or command in groups), sender allowed (strangers and blocked people are refused
/// once), then the sender's language is recorded; then the admins' commands (from admins only),
/// everyone's commands, text, files a turn can read (photos, recordings, documents), and
/// everything else. Button presses: an alert's Allow or Block (admins), then, from allowed people
/// (whose language is recorded the same way), the `/model` menu, the Stop button and `/clear`'s
/// confirmation.
pub fn schema() -> UpdateHandler<anyhow::Error> {
    let for_the_bot = dptree::filter(handlers::addressed_to_bot)
        .filter_async(handlers::sender_allowed)
        .inspect_async(handlers::record_sender_language)
        .branch(admin::admin_commands())
        .branch(
            dptree::entry()
                .filter_command::<Command>()
                .branch(dptree::filter(admin::asks_for_admin_help).endpoint(admin::admin_help))
                .branch(
                    dptree::filter(|command: Command| command == Command::Retry)
                        .endpoint(handlers::retry_message),
                )
                .branch(dptree::endpoint(handlers::command)),
        )
        .branch(Message::filter_text().endpoint(handlers::chat_message))
        .branch(
            dptree::filter(|message: Message| media::attachment_of(&message).is_some())
                .endpoint(handlers::media_message),
        )
        .branch(dptree::endpoint(handlers::non_text_message));
    let messages = Update::filter_message()
        .branch(for_the_bot)
        .branch(dptree::endpoint(handlers::ignored));
    let for_an_allowed_presser = dptree::filter(handlers::presser_allowed)
        .inspect_async(handlers::record_presser_language)
        .branch(dptree::filter(model_menu::is_model_button).endpoint(model_menu::model_button))
        .branch(
            dptree::filter(|query: CallbackQuery| stop::is_stop_press(&query))
                .endpoint(stop::stop_pressed),
        )
        .branch(dptree::endpoint(handlers::clear_button));
    let buttons = Update::filter_callback_query()
        .branch(dptree::filter(admin::is_access_button).endpoint(admin::access_button))
        .branch(for_an_allowed_presser)
        .branch(dptree::endpoint(handlers::ignored));
    dptree::entry().branch(messages).branch(buttons)
}

/// What the handlers of [`schema`] are given: the bot, who it is (`Me`), and the services.
pub fn dependencies(
    bot: TelegramBot,
    me: Me,
    conversations: Conversations,
    access: Arc<AccessPolicy>,
    intake: Intake,
    config: &Config,
) -> DependencyMap {
    let settings = Arc::new(BotSettings::from_config(config));
    dptree::deps![bot, me, conversations, access, settings, intake]
}

/// The scheduler's settings from the configuration.
pub fn scheduler_settings(config: &Config) -> SchedulerSettings {
    let telegram = &config.telegram;
    SchedulerSettings {
        max_in_flight: MAX_TURNS_IN_FLIGHT,
        limits: LimitSettings {
            max_pending: (telegram.user_max_pending > 0).then_some(telegram.user_max_pending),
            per_minute: (telegram.user_messages_per_minute > 0)
                .then_some(telegram.user_messages_per_minute),
            exempt: telegram.admin_users.iter().copied().collect(),
        },
        shutdown_grace: telegram.shutdown_grace(),
    }
}

/// `error` as it can be logged: an answer teloxide could not read is described by where the JSON
/// went wrong, without the JSON (the raw answer, and serde's message, which quotes the value it
/// choked on, can hold a person's words).
pub fn loggable(error: &RequestError) -> String {
    match error {
        RequestError::InvalidJson { source, .. } => format!(
            "cannot read Telegram's answer: {:?} error at line {}, column {}",
            source.classify(),
            source.line(),
            source.column()
        ),
        other => other.to_string(),
    }
}

/// [`loggable`] for an error chain: the contexts above a Telegram error, then the error as it can
/// be logged; any other chain in full.
pub fn loggable_chain(error: &anyhow::Error) -> String {
    let telegram = error
        .chain()
        .position(|cause| cause.downcast_ref::<RequestError>().is_some());
    let Some(position) = telegram else {
        return format!("{error:#}");
    };
    let mut parts: Vec<String> = error
        .chain()
        .take(position)
        .map(ToString::to_string)
        .collect();
    if let Some(request) = error
        .chain()
        .nth(position)
        .and_then(|cause| cause.downcast_ref::<RequestError>())
    {
        parts.push(loggable(request));
    }
    parts.join(": ")
}

/// Registers the command menu with Telegram: in English for every language without a menu of
/// its own, then in each language the bot speaks, for the people whose app uses it; and in each
/// admin's private chat, the admin commands too, in the admin's language.
pub async fn register_commands(
    bot: &TelegramBot,
    admins: &[UserId],
    conversations: &Conversations,
) -> Result<(), RequestError> {
    bot.set_my_commands(command_menu(Lang::En)).await?;
    for lang in Lang::ALL {
        bot.set_my_commands(command_menu(lang))
            .language_code(lang.code())
            .await?;
    }
    admin::register_admin_menus(bot, admins, conversations).await;
    Ok(())
}

/// The command menu with its descriptions in `lang`.
pub(crate) fn command_menu(lang: Lang) -> Vec<BotCommand> {
    commands::described_commands(lang)
        .into_iter()
        .map(|command| BotCommand::new(command.command, command.description))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn unreadable_answer() -> RequestError {
        let raw = r#"{"ok":true,"result":{"text":"my PIN is 4321"#;
        let source = serde_json::from_str::<serde_json::Value>(raw).unwrap_err();
        RequestError::InvalidJson {
            source: Arc::new(source),
            raw: raw.into(),
        }
    }

    #[test]
    fn an_unreadable_answer_is_logged_without_its_text() {
        let logged = loggable(&unreadable_answer());
        assert!(!logged.contains("4321"), "{logged}");
        assert!(
            logged.starts_with("cannot read Telegram's answer: Eof error"),
            "{logged}"
        );
    }

    #[test]
    fn a_chain_keeps_its_contexts_and_loses_only_the_answer_text() {
        let error = anyhow::Error::new(unreadable_answer()).context("could not send the reply");
        let logged = loggable_chain(&error);
        assert!(
            logged.starts_with("could not send the reply: cannot read"),
            "{logged}"
        );
        assert!(!logged.contains("4321"), "{logged}");
        let plain = anyhow::anyhow!("the model call failed").context("turn");
        assert_eq!(loggable_chain(&plain), "turn: the model call failed");
    }
}
