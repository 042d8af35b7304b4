//! The bot's commands. The doc comments are the `/help` text and the command menu Telegram
//! shows (registered with `setMyCommands` at start).

use teloxide::utils::command::BotCommands;

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
