//! The bot's commands and what each one answers, shared by every front end: Telegram
//! (`telegram/handlers.rs`) and `telemem chat` in a terminal. Both front ends parse with the
//! [`Command`] enum. Its doc comments are the English descriptions; `/help` ([`help_text`]) and
//! the command menu Telegram shows ([`described_commands`], registered per language with
//! `setMyCommands` at start) take each description from the language files, falling back to the
//! doc comment for a command no file describes yet. [`answer`] does a command's work on the
//! conversation and picks its sentence, in the person's language, from [`crate::replies`]. Where
//! and how the answer is shown (in a group or a private chat, with buttons, as a file, in a
//! terminal) is the front end's business, so nothing here knows Telegram's types.

use teloxide::utils::command::BotCommands;

use crate::conversation::{Conversations, Persona, PersonaError};
use crate::i18n::Lang;
use crate::replies::{self, Greeting};
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

/// Does `command`'s work on the conversation `key` and says how to answer it, in `lang`.
/// `greeting` holds the time windows `/start` names ([`greeting`]).
pub async fn answer(
    command: Command,
    conversations: &Conversations,
    key: ConversationKey,
    lang: Lang,
    greeting: &Greeting,
) -> anyhow::Result<CommandAnswer> {
    Ok(match command {
        Command::Start => CommandAnswer::Say(replies::start(lang, greeting)),
        Command::Help => CommandAnswer::Say(help_text(lang)),
        Command::Persona(argument) => persona(conversations, key, lang, &argument).await?,
        Command::Stats => {
            let stats = conversations.stats(key).await?;
            CommandAnswer::SayPrivately(replies::stats(lang, &stats))
        }
        Command::Memory => {
            let overview = conversations.memory_overview(key).await?;
            CommandAnswer::SayPrivately(replies::memory(lang, &overview))
        }
        Command::Forget(argument) => forget(conversations, key, lang, &argument).await?,
        Command::Reset => {
            let was_open = conversations.reset_session(key).await?;
            CommandAnswer::Say(if was_open {
                replies::reset_done(lang)
            } else {
                replies::reset_nothing_open(lang)
            })
        }
        Command::Clear => CommandAnswer::ConfirmClear,
        Command::Export(argument) => CommandAnswer::Export(ExportFormat::parse(&argument)),
    })
}

/// The time windows the `/start` greeting names, from the configuration.
pub fn greeting(config: &crate::config::Config) -> Greeting {
    Greeting {
        history_window_secs: config.history.history_window_secs,
        purge_after_secs: config.storage.purge_after_secs,
        session_idle_secs: config.history.session_idle_secs,
    }
}

/// A command as `/help` and the command menu show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescribedCommand {
    /// The command with its slash: `/persona`.
    pub command: String,
    pub description: String,
}

/// Every command in menu order with its description in `lang`: from the language files, or the
/// English doc comment for a command none of them describes yet.
pub fn described_commands(lang: Lang) -> Vec<DescribedCommand> {
    Command::bot_commands()
        .into_iter()
        .map(|command| {
            let name = command.command.trim_start_matches('/');
            let description =
                replies::command_description(lang, name).unwrap_or(command.description);
            DescribedCommand {
                command: command.command,
                description,
            }
        })
        .collect()
}

/// The `/help` text in `lang`: the introduction, then one line per command, laid out like
/// teloxide's own list (`/persona — Show or set ...`).
pub fn help_text(lang: Lang) -> String {
    let lines: Vec<String> = described_commands(lang)
        .into_iter()
        .map(|command| format!("{} — {}", command.command, command.description))
        .collect();
    format!("{}\n\n{}", replies::help_intro(lang), lines.join("\n"))
}

/// `/persona`, `/persona reset` or `/persona <text>`.
async fn persona(
    conversations: &Conversations,
    key: ConversationKey,
    lang: Lang,
    argument: &str,
) -> anyhow::Result<CommandAnswer> {
    let text = match PersonaRequest::parse(argument) {
        PersonaRequest::Show => {
            let shown = match conversations.persona(key.user_id).await? {
                Some(persona) => replies::persona_current(lang, &persona),
                None => replies::persona_none(lang),
            };
            return Ok(CommandAnswer::SayPrivately(shown));
        }
        PersonaRequest::Reset => {
            conversations.set_persona(key.user_id, None).await?;
            return Ok(CommandAnswer::Say(replies::persona_reset(lang)));
        }
        PersonaRequest::Set(text) => text,
    };
    Ok(match Persona::parse(text) {
        Ok(persona) => {
            conversations
                .set_persona(key.user_id, Some(&persona))
                .await?;
            CommandAnswer::PersonaSaved {
                confirmation: replies::persona_set(lang, persona.as_str()),
            }
        }
        Err(PersonaError::TooLong { length, .. }) => {
            CommandAnswer::Say(replies::persona_too_long(lang, length))
        }
        Err(PersonaError::Empty) => CommandAnswer::Say(replies::persona_none(lang)),
    })
}

/// `/forget <number from /memory>`.
async fn forget(
    conversations: &Conversations,
    key: ConversationKey,
    lang: Lang,
    argument: &str,
) -> anyhow::Result<CommandAnswer> {
    let argument = argument.trim();
    let Ok(number) = argument.parse::<usize>() else {
        return Ok(CommandAnswer::Say(replies::forget_usage(lang)));
    };
    Ok(match conversations.forget_note(key, number).await? {
        Some(note) => CommandAnswer::SayPrivately(replies::forgot(lang, &note)),
        None => CommandAnswer::Say(replies::no_such_note(lang, argument)),
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
    fn the_english_help_and_menu_are_the_doc_comments() {
        assert_eq!(help_text(Lang::En), Command::descriptions().to_string());
        let menu: Vec<(String, String)> = described_commands(Lang::En)
            .into_iter()
            .map(|command| (command.command, command.description))
            .collect();
        let derived: Vec<(String, String)> = Command::bot_commands()
            .into_iter()
            .map(|command| (command.command, command.description))
            .collect();
        assert_eq!(menu, derived);
    }

    #[test]
    fn every_command_is_described_in_the_language_files() {
        for command in Command::bot_commands() {
            let name = command.command.trim_start_matches('/');
            for lang in Lang::ALL {
                assert!(
                    replies::command_description(lang, name).is_some(),
                    "{name} has no description in {}.ftl",
                    lang.code()
                );
            }
        }
    }

    #[test]
    fn help_in_another_language_keeps_the_command_names() {
        let german = help_text(Lang::De);
        assert!(german.starts_with("Ich bin ein KI-Assistent"), "{german}");
        assert!(
            german.contains("/forget — Eine Notiz vergessen: /forget <Nummer aus /memory>."),
            "{german}"
        );
        assert_eq!(
            german.lines().filter(|line| line.starts_with('/')).count(),
            9
        );
    }

    #[test]
    fn export_defaults_to_markdown() {
        assert_eq!(ExportFormat::parse(""), ExportFormat::Markdown);
        assert_eq!(ExportFormat::parse("JSON"), ExportFormat::Json);
    }
}
