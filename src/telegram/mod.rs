//! The Telegram edge of the bot. Chat logic lives in [`crate::conversation`], the commands and
//! what they answer in [`crate::commands`], every user-facing sentence in [`crate::replies`] (in
//! the sender's language, [`identity::message_language`]); this module only translates between
//! Telegram and them.
//!
//! Its modules in layers, each importing only from the layers below it:
//! - here: the teloxide handler tree ([`schema`]), what its handlers are given
//!   ([`dependencies`]) and the scheduler's settings; the command menus ([`menus`]).
//! - [`handlers`]: the tree's endpoints, one per kind of update.
//! - the features with buttons or steps of their own: the admins' side ([`admin`]), `/clear`'s
//!   confirmation ([`clear`]), `/export` ([`export`]), the `/model` menu ([`model_menu`]),
//!   `/retry` ([`retry`]), inline mode ([`inline`]), the Stop button ([`stop`]), voice answers and
//!   `/tts` ([`voice`]) and `/image` ([`pictures`]).
//! - the machinery of a chat turn ([`turn`]) and the ways every endpoint answers ([`reply`]).
//! - below them: reply delivery ([`delivery`]), rendering the model's Markdown to Telegram HTML
//!   ([`render`]) and splitting it into messages Telegram accepts ([`split`]), the files of
//!   photos, voice notes and documents ([`media`]), the sender's identity ([`identity`]), access
//!   control ([`access`]) and per-user limits ([`limits`]), the crash-safe intake ([`intake`]),
//!   the scheduler that runs the handler tree fairly per person ([`scheduler`]), the Bot API
//!   handle ([`TelegramBot`]), reaching the Bot API ([`connect`]), Telegram's errors as they can
//!   be logged ([`errors`]) and the handlers' settings ([`settings`]).

pub mod access;
pub mod admin;
pub mod bot;
pub mod clear;
pub mod connect;
pub mod delivery;
pub mod errors;
pub mod export;
pub mod handlers;
pub mod identity;
pub mod inline;
pub mod intake;
pub mod limits;
pub mod media;
pub mod menus;
pub mod mini_app;
pub mod model_menu;
pub mod pictures;
pub mod reminders;
pub mod render;
pub mod reply;
pub mod retry;
pub mod scheduler;
pub mod settings;
pub mod split;
pub mod stop;
pub mod turn;
pub mod turn_context;
pub mod voice;

pub use bot::TelegramBot;
pub use menus::register_commands;
pub use settings::BotSettings;

use std::sync::Arc;

use teloxide::dispatching::{HandlerExt, UpdateFilterExt, UpdateHandler};
use teloxide::dptree::di::DependencyMap;
use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, Me};

use crate::commands::Command;
use crate::config::Config;
use crate::conversation::Conversations;
use crate::telegram::access::AccessPolicy;
use crate::telegram::handlers::{Button, MessageKind, to_answer_as};
use crate::telegram::intake::Intake;
use crate::telegram::limits::LimitSettings;
use crate::telegram::scheduler::SchedulerSettings;

/// The handler tree. Messages pass, in order: addressed to the bot (always in private chats;
/// mention, reply or command in groups), sender allowed (strangers and blocked people are refused
/// once), then the sender's language is recorded; then the admins' commands (from admins only),
/// everyone's commands, text, files a turn can read (photos, recordings, documents), and
/// everything else. Button presses: an alert's Allow or Block (admins), then, from allowed people
/// (whose language is recorded the same way), the `/model` menu, the Stop button and `/clear`'s
/// confirmation. Inline queries get their one result from allowed people (no result otherwise),
/// and a chosen one is answered in the message it posted ([`inline`]).
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
                        .map(to_answer_as(MessageKind::Retry))
                        .endpoint(handlers::turn_message),
                )
                .branch(dptree::endpoint(handlers::command)),
        )
        .branch(
            Message::filter_text()
                .map(to_answer_as(MessageKind::Text))
                .endpoint(handlers::turn_message),
        )
        .branch(
            dptree::filter(|message: Message| media::attachment_of(&message).is_some())
                .map(to_answer_as(MessageKind::Media))
                .endpoint(handlers::turn_message),
        )
        .branch(dptree::endpoint(handlers::non_text_message));
    let messages = Update::filter_message()
        .branch(for_the_bot)
        .branch(dptree::endpoint(handlers::ignored));
    let for_an_allowed_presser = dptree::filter(handlers::presser_allowed)
        .inspect_async(handlers::record_presser_language)
        .branch(
            dptree::filter(model_menu::is_model_button)
                .map(|| Button::Model)
                .endpoint(handlers::button_pressed),
        )
        .branch(
            dptree::filter(|query: CallbackQuery| stop::is_stop_press(&query))
                .map(|| Button::Stop)
                .endpoint(handlers::button_pressed),
        )
        .branch(
            dptree::filter(reminders::is_reminder_button)
                .map(|| Button::Reminder)
                .endpoint(handlers::button_pressed),
        )
        .branch(
            dptree::entry()
                .map(|| Button::Clear)
                .endpoint(handlers::button_pressed),
        );
    let buttons = Update::filter_callback_query()
        .branch(dptree::filter(admin::is_access_button).endpoint(admin::access_button))
        .branch(for_an_allowed_presser)
        .branch(dptree::endpoint(handlers::ignored));
    let inline_queries = Update::filter_inline_query().endpoint(inline::answer_inline_query);
    let chosen_inline_results = Update::filter_chosen_inline_result()
        .branch(dptree::filter(inline::chooser_allowed).endpoint(inline::chosen_result))
        .branch(dptree::endpoint(handlers::ignored));
    dptree::entry()
        .branch(messages)
        .branch(buttons)
        .branch(inline_queries)
        .branch(chosen_inline_results)
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
        max_in_flight: usize::try_from(telegram.max_turns_in_flight).unwrap_or(usize::MAX),
        limits: LimitSettings {
            max_pending: (telegram.user_max_pending > 0).then_some(telegram.user_max_pending),
            per_minute: (telegram.user_messages_per_minute > 0)
                .then_some(telegram.user_messages_per_minute),
            exempt: telegram.admin_users.iter().copied().collect(),
        },
        shutdown_grace: telegram.shutdown_grace(),
    }
}
