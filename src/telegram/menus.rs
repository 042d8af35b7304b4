//! The command menus Telegram shows: everyone's, in English and in each language the bot speaks,
//! and in each admin's private chat, everyone's commands and the admins' in the admin's language.

use teloxide::RequestError;
use teloxide::payloads::SetMyCommandsSetters;
use teloxide::prelude::*;
use teloxide::types::{BotCommand, BotCommandScope, Recipient};

use crate::commands::{self, admin::AdminCommand};
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::storage::UserId;
use crate::telegram::admin::recorded_language;
use crate::telegram::bot::TelegramBot;

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
    register_admin_menus(bot, admins, conversations).await;
    Ok(())
}

/// The command menu with its descriptions in `lang`.
fn command_menu(lang: Lang) -> Vec<BotCommand> {
    commands::described_commands(lang)
        .into_iter()
        .map(|command| BotCommand::new(command.command, command.description))
        .collect()
}

/// Gives each admin's private chat a command menu with the admin commands too, in the language
/// their app last reported; everyone else keeps the default menus. An admin who never started
/// the bot has no private chat with it yet: Telegram refuses, and they get the menu at the next
/// start after they have.
async fn register_admin_menus(bot: &TelegramBot, admins: &[UserId], conversations: &Conversations) {
    for &admin_id in admins {
        let lang = recorded_language(conversations, admin_id).await;
        let mut menu = command_menu(lang);
        menu.extend(
            commands::described::<AdminCommand>(lang)
                .into_iter()
                .map(|command| BotCommand::new(command.command, command.description)),
        );
        let scope = BotCommandScope::Chat {
            chat_id: Recipient::Id(ChatId(admin_id.0)),
        };
        if let Err(error) = bot.set_my_commands(menu).scope(scope).await {
            tracing::warn!(
                error = crate::telegram::errors::loggable(&error),
                admin_id = admin_id.0,
                "could not register the admin command menu"
            );
        }
    }
}
