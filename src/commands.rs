//! The bot's commands and what each one answers, shared by every front end: Telegram
//! (`telegram/handlers.rs`) and `telemem chat` in a terminal. The [`Command`] enum's doc comments
//! are the `/help` text and the command menu Telegram shows (registered with `setMyCommands` at
//! start); both front ends parse with it. [`answer`] does a command's work on the conversation
//! and picks its sentence from [`crate::replies`]. Where and how the answer is shown (in a group
//! or a private chat, with buttons, as a file, in a terminal) is the front end's business, so
//! nothing here knows Telegram's types. The admins' commands are a separate enum in [`admin`].

pub mod admin;

use teloxide::utils::command::BotCommands;

use crate::conversation::{Conversations, Persona, PersonaError};
use crate::replies;
use crate::storage::ConversationKey;

#[derive(BotCommands, Clone, Debug, PartialEq, Eq)]
#[command(
    rename_rule = "lowercase",
    description = "I am an AI assistant that remembers our conversations. Commands:"
)]
pub enum Command {
    /// Say hello and explain what I remember.
    Start,
    /// Show this list of commands.
    Help,
    /// Show or set how I behave for you: /persona <text>, or /persona reset.
    Persona(String),
    /// Show what I store about you in this chat.
    Stats,
    /// Show the notes and session summaries I keep about you in this chat.
    Memory,
    /// Forget one note: /forget <number from /memory>.
    Forget(String),
    /// Start a fresh session (earlier history is kept).
    Reset,
    /// Delete all your history in this chat (asks first).
    Clear,
    /// Send your history in this chat as a file: /export or /export json.
    Export(String),
}

/// The format of an `/export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Markdown,
    Json,
}

impl ExportFormat {
    /// `json` (any case) is JSON; anything else, including nothing, is Markdown.
    pub fn parse(argument: &str) -> Self {
        if argument.trim().eq_ignore_ascii_case("json") {
            Self::Json
        } else {
            Self::Markdown
        }
    }
}

/// What `/persona <argument>` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PersonaRequest<'a> {
    Show,
    Reset,
    Set(&'a str),
}

impl<'a> PersonaRequest<'a> {
    pub fn parse(argument: &'a str) -> Self {
        let argument = argument.trim();
        if argument.is_empty() {
            Self::Show
        } else if argument.eq_ignore_ascii_case("reset") {
            Self::Reset
        } else {
            Self::Set(argument)
        }
    }
}

/// What a front end does to answer a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandAnswer {
    /// Say this in the chat the command came from.
    Say(String),
    /// Say this where only the person sees it: it shows material about them.
    SayPrivately(String),
    /// The persona was saved. `confirmation` shows it, so it is said only where the persona may
    /// be seen: a group hears that it was saved, without the text.
    PersonaSaved { confirmation: String },
    /// Ask the person to confirm before deleting their history in this chat (`/clear`).
    ConfirmClear,
    /// Send the person's history in this chat as a file (`/export`).
    Export(ExportFormat),
}

/// Does `command`'s work on the conversation `key` and says how to answer it. `start_text` is
/// the greeting `/start` answers with ([`start_text`]).
pub async fn answer(
    command: Command,
    conversations: &Conversations,
    key: ConversationKey,
    start_text: &str,
) -> anyhow::Result<CommandAnswer> {
    Ok(match command {
        Command::Start => CommandAnswer::Say(start_text.to_owned()),
        Command::Help => CommandAnswer::Say(Command::descriptions().to_string()),
        Command::Persona(argument) => persona(conversations, key, &argument).await?,
        Command::Stats => {
            let stats = conversations.stats(key).await?;
            CommandAnswer::SayPrivately(replies::stats(&stats))
        }
        Command::Memory => {
            let overview = conversations.memory_overview(key).await?;
            CommandAnswer::SayPrivately(replies::memory(&overview))
        }
        Command::Forget(argument) => forget(conversations, key, &argument).await?,
        Command::Reset => {
            let was_open = conversations.reset_session(key).await?;
            CommandAnswer::Say(if was_open {
                replies::RESET_DONE.to_owned()
            } else {
                replies::RESET_NOTHING_OPEN.to_owned()
            })
        }
        Command::Clear => CommandAnswer::ConfirmClear,
        Command::Export(argument) => CommandAnswer::Export(ExportFormat::parse(&argument)),
    })
}

/// The greeting `/start` answers with, naming the configured time windows.
pub fn start_text(config: &crate::config::Config) -> String {
    replies::start(
        config.history.history_window_secs,
        config.storage.purge_after_secs,
        config.history.session_idle_secs,
    )
}

/// `/persona`, `/persona reset` or `/persona <text>`.
async fn persona(
    conversations: &Conversations,
    key: ConversationKey,
    argument: &str,
) -> anyhow::Result<CommandAnswer> {
    let text = match PersonaRequest::parse(argument) {
        PersonaRequest::Show => {
            let shown = match conversations.persona(key.user_id).await? {
                Some(persona) => replies::persona_current(&persona),
                None => replies::PERSONA_NONE.to_owned(),
            };
            return Ok(CommandAnswer::SayPrivately(shown));
        }
        PersonaRequest::Reset => {
            conversations.set_persona(key.user_id, None).await?;
            return Ok(CommandAnswer::Say(replies::PERSONA_RESET.to_owned()));
        }
        PersonaRequest::Set(text) => text,
    };
    Ok(match Persona::parse(text) {
        Ok(persona) => {
            conversations
                .set_persona(key.user_id, Some(&persona))
                .await?;
            CommandAnswer::PersonaSaved {
                confirmation: replies::persona_set(persona.as_str()),
            }
        }
        Err(PersonaError::TooLong { length, .. }) => {
            CommandAnswer::Say(replies::persona_too_long(length))
        }
        Err(PersonaError::Empty) => CommandAnswer::Say(replies::PERSONA_NONE.to_owned()),
    })
}

/// `/forget <number from /memory>`.
async fn forget(
    conversations: &Conversations,
    key: ConversationKey,
    argument: &str,
) -> anyhow::Result<CommandAnswer> {
    let argument = argument.trim();
    let Ok(number) = argument.parse::<usize>() else {
        return Ok(CommandAnswer::Say(replies::FORGET_USAGE.to_owned()));
    };
    Ok(match conversations.forget_note(key, number).await? {
        Some(note) => CommandAnswer::SayPrivately(replies::forgot(&note)),
        None => CommandAnswer::Say(replies::no_such_note(argument)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_and_without_the_bot_name() {
        let parse = |text: &str| Command::parse(text, "telemem_bot").ok();
        assert_eq!(parse("/stats"), Some(Command::Stats));
        assert_eq!(parse("/stats@telemem_bot"), Some(Command::Stats));
        assert_eq!(parse("/stats@other_bot"), None);
        assert_eq!(
            parse("/persona Be brief."),
            Some(Command::Persona("Be brief.".to_owned()))
        );
        assert_eq!(parse("/persona"), Some(Command::Persona(String::new())));
    }

    #[test]
    fn persona_arguments_mean_show_reset_or_set() {
        assert_eq!(PersonaRequest::parse("  "), PersonaRequest::Show);
        assert_eq!(PersonaRequest::parse("RESET"), PersonaRequest::Reset);
        assert_eq!(
            PersonaRequest::parse(" talk like a pirate "),
            PersonaRequest::Set("talk like a pirate")
        );
    }

    #[test]
    fn export_defaults_to_markdown() {
        assert_eq!(ExportFormat::parse(""), ExportFormat::Markdown);
        assert_eq!(ExportFormat::parse("JSON"), ExportFormat::Json);
    }
}
