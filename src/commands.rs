//! The bot's commands and what each one answers, shared by every front end: Telegram
//! (`telegram/handlers.rs`) and `telemem chat` in a terminal. Both front ends parse with the
//! [`Command`] enum. Its doc comments are the English descriptions; `/help` ([`help_text`]) and
//! the command menu Telegram shows ([`described_commands`], registered per language with
//! `setMyCommands` at start) take each description from the language files, falling back to the
//! doc comment for a command no file describes yet. [`answer`] does a command's work on the
//! conversation and picks its sentence, in the person's language, from [`crate::replies`]. Where
//! and how the answer is shown (in a group or a private chat, with buttons, as a file, in a
//! terminal) is the front end's business, so nothing here knows Telegram's types. The admins'
//! commands are a separate enum in [`admin`].

pub mod admin;

use teloxide::utils::command::BotCommands;

use crate::conversation::{Conversations, ModelMenu, NoteAddition, Persona, PersonaError};
use crate::conversation::{ToolsOffer, VoiceMode};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::memory::notes::{NoteError, NoteText};
use crate::replies::{self, Greeting};
use crate::storage::UserId;
use crate::time_zone::TimeZone;
use crate::tools::Caller;

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
    /// Stop the answer I am writing; what is written so far stays (the Stop button does the same).
    Cancel,
    /// Answer your last message again; the new answer replaces the old one.
    Retry,
    /// Show or set how I behave for you: /persona <text>, or /persona reset.
    Persona(String),
    /// Show or choose the model that answers you: /model, or /model <name>.
    Model(String),
    /// Show what I store about you in this chat.
    Stats,
    /// Show the notes and session summaries I keep about you in this chat.
    Memory,
    /// Add a note for me to keep: /remember <text>. Change note n: /remember <n> <new text>.
    Remember(String),
    /// Forget one note: /forget <number from /memory>.
    Forget(String),
    /// Keep nothing of this chat and use no memory: /incognito on, /incognito off.
    Incognito(String),
    /// Start a fresh session (earlier history is kept).
    Reset,
    /// Delete all your history in this chat (asks first).
    Clear,
    /// Send your history in this chat as a file: /export or /export json.
    Export(String),
    /// Show or set your time zone for reminders: /timezone Europe/Berlin, or /timezone reset.
    Timezone(String),
    /// List your reminders, with buttons to cancel them.
    Reminders,
    /// Show the tools I can use for you.
    Tools,
    /// Choose when I answer aloud too: /voice on, /voice off, or /voice auto (when you speak).
    Voice(String),
    /// Read a text aloud as a voice message: /tts <text>.
    Tts(String),
    /// Draw a picture: /image <description>.
    Image(String),
    /// Show your settings: persona, model, incognito, time zone.
    Settings,
}

pub use crate::conversation::ExportFormat;

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

/// What `/incognito <argument>` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IncognitoRequest {
    Show,
    On,
    Off,
    /// Neither `on` nor `off`.
    Unclear,
}

impl IncognitoRequest {
    pub fn parse(argument: &str) -> Self {
        let argument = argument.trim();
        if argument.is_empty() {
            Self::Show
        } else if argument.eq_ignore_ascii_case("on") {
            Self::On
        } else if argument.eq_ignore_ascii_case("off") {
            Self::Off
        } else {
            Self::Unclear
        }
    }
}

/// What `/remember <argument>` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RememberRequest<'a> {
    /// No text (or only a number): how to use it.
    Usage,
    /// Remember `text`. When it starts with a number and goes on, `replacing` holds the number
    /// and the text after it: that note is replaced, if there is one, or else `text` is added.
    Note {
        text: &'a str,
        replacing: Option<(usize, &'a str)>,
    },
}

impl<'a> RememberRequest<'a> {
    pub fn parse(argument: &'a str) -> Self {
        let text = argument.trim();
        if text.is_empty() {
            return Self::Usage;
        }
        let (first, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let Ok(number) = first.parse::<usize>() else {
            return Self::Note {
                text,
                replacing: None,
            };
        };
        let rest = rest.trim_start();
        if rest.is_empty() {
            return Self::Usage;
        }
        Self::Note {
            text,
            replacing: Some((number, rest)),
        }
    }
}

/// The part of the Mini App an answer offers to open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppView {
    Memory,
    Settings,
}

/// What a front end does to answer a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandAnswer {
    /// Say this in the chat the command came from.
    Say(String),
    /// Say this where only the person sees it: it shows material about them.
    SayPrivately(String),
    /// [`Self::SayPrivately`], offering the Mini App's `view` where the front end has one
    /// (`/memory`, `/settings`).
    SayPrivatelyWithApp { text: String, view: AppView },
    /// The persona was saved. `confirmation` shows it, so it is said only where the persona may
    /// be seen: a group hears that it was saved, without the text.
    PersonaSaved { confirmation: String },
    /// Ask the person to confirm before deleting their history in this chat (`/clear`).
    ConfirmClear,
    /// Send the person's history in this chat as a file (`/export`).
    Export(ExportFormat),
    /// Offer the models to choose from (`/model`): `intro`, then the models with the one in use
    /// marked, as buttons where the front end has them.
    ChooseModel { intro: String, menu: ModelMenu },
    /// The running turn was told to stop (`/cancel`); its own answer, marked as stopped, says so,
    /// so nothing more is said.
    TurnStopped,
    /// Ask the model again for the person's last message (`/retry`): a turn of its own, whose
    /// progress and answer the front end shows as it shows any turn's
    /// ([`Conversations::begin_retry`]).
    Retry,
    /// List the person's reminders where only they see them (`/reminders`), with a way to
    /// cancel each where the front end has buttons.
    ListReminders,
    /// List the tools the person's model can use (`/tools`): which depends on whether the
    /// person is an admin, which only the front end knows.
    ListTools,
    /// Read this text aloud as voice notes (`/tts`), where the front end can send them.
    ReadAloud(String),
    /// Draw a picture of this description (`/image`), where the front end can send it.
    Draw(String),
}

/// What every command's work takes: the conversations, the one it is in, and the language of
/// the person who sent it.
#[derive(Clone, Copy)]
struct Call<'a>(&'a Conversations, ConversationKey, Lang);

/// Does `command`'s work on the conversation `key` and says how to answer it, in `lang`.
/// `greeting` holds the time windows `/start` names ([`greeting`]).
pub async fn answer(
    command: Command,
    conversations: &Conversations,
    key: ConversationKey,
    lang: Lang,
    greeting: &Greeting,
) -> anyhow::Result<CommandAnswer> {
    let call = Call(conversations, key, lang);
    Ok(match command {
        Command::Start => CommandAnswer::Say(replies::start(lang, greeting)),
        Command::Help => CommandAnswer::Say(help_text(lang)),
        // Only the running turn stops: messages the person sent meanwhile are still answered,
        // each in its turn (they were sent to be answered; a /cancel does not say which of them
        // it meant).
        Command::Cancel if conversations.stop_running(key, None) => CommandAnswer::TurnStopped,
        Command::Cancel => CommandAnswer::Say(replies::nothing_to_stop(lang)),
        Command::Retry => CommandAnswer::Retry,
        Command::Persona(argument) => persona(call, &argument).await?,
        Command::Stats => CommandAnswer::SayPrivately(stats_text(call).await?),
        Command::Memory => {
            let overview = conversations.memory_overview(key).await?;
            CommandAnswer::SayPrivatelyWithApp {
                text: replies::memory(lang, &overview),
                view: AppView::Memory,
            }
        }
        Command::Settings => CommandAnswer::SayPrivatelyWithApp {
            text: settings_text(call).await?,
            view: AppView::Settings,
        },
        Command::Model(argument) => model(call, &argument).await?,
        Command::Remember(argument) => remember(call, &argument).await?,
        Command::Forget(argument) => forget(call, &argument).await?,
        Command::Incognito(argument) => incognito(call, &argument).await?,
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
        Command::Timezone(argument) => time_zone(call, &argument).await?,
        Command::Reminders => CommandAnswer::ListReminders,
        Command::Tools => CommandAnswer::ListTools,
        Command::Voice(argument) => voice(call, &argument).await?,
        Command::Tts(text) => CommandAnswer::ReadAloud(text),
        Command::Image(description) => CommandAnswer::Draw(description),
    })
}

/// `/stats`: the conversation's figures, then today's pictures and speech where they are offered.
async fn stats_text(call: Call<'_>) -> anyhow::Result<String> {
    let Call(conversations, key, lang) = call;
    let stats = conversations.stats(key).await?;
    let mut text = replies::stats(lang, &stats);
    let (images, speech) = (conversations.can_draw(), conversations.can_speak());
    if images || speech {
        let today = conversations.quota().media_today(key.user_id).await?;
        text.push('\n');
        text.push_str(&replies::media_today(lang, &today, images, speech));
    }
    Ok(text)
}

/// `/voice` shows how answers come; `/voice on|off|auto` changes it.
async fn voice(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
    if !conversations.can_speak() {
        return Ok(CommandAnswer::Say(replies::speech_not_set_up(lang)));
    }
    Ok(CommandAnswer::Say(match VoiceMode::parse(argument) {
        Some(mode) => {
            conversations.set_voice_mode(key.user_id, mode).await?;
            replies::voice_set(lang, mode)
        }
        None => replies::voice_state(lang, conversations.voice_mode(key.user_id).await?),
    }))
}

/// `/settings`: the person's persona, model and time zone, and incognito in this chat.
async fn settings_text(call: Call<'_>) -> anyhow::Result<String> {
    let Call(conversations, key, lang) = call;
    let persona = conversations.persona(key.user_id).await?;
    let menu = conversations.model_menu(key.user_id).await?;
    let incognito = conversations.incognito(key).await?;
    let zone = conversations.time_zone(key.user_id).await?;
    Ok(replies::settings_overview(
        lang,
        &replies::SettingsOverview {
            persona: persona.as_deref(),
            model: &menu.in_use.name,
            incognito,
            time_zone: zone.zone.name(),
            time_zone_chosen: zone.chosen,
        },
    ))
}

/// `/reminders`: the person's waiting reminders in their time zone, numbered, with the ids of
/// the reminders in the order shown (for cancel buttons).
pub async fn reminders_text(
    conversations: &Conversations,
    user_id: UserId,
    lang: Lang,
) -> anyhow::Result<(String, Vec<i64>)> {
    let reminders = conversations.pending_reminders(user_id).await?;
    let zone = conversations.time_zone(user_id).await?;
    let lines: Vec<String> = reminders
        .iter()
        .enumerate()
        .map(|(index, reminder)| {
            let when = zone.zone.format(reminder.due_at_ms);
            format!("{}. {when} — {}", index + 1, reminder.text)
        })
        .collect();
    let text = replies::reminder_list(lang, &lines, zone.zone.name(), zone.chosen);
    Ok((text, reminders.iter().map(|reminder| reminder.id).collect()))
}

/// `/tools`: what the model can use for `caller` in its conversation, in `lang`.
pub async fn tools_text(
    conversations: &Conversations,
    caller: &Caller,
    lang: Lang,
) -> anyhow::Result<String> {
    let offer = conversations.tools_for(caller).await?;
    Ok(match offer {
        ToolsOffer::Off => replies::tools_off(lang),
        ToolsOffer::Unsupported { model } => replies::tools_unsupported(lang, &model),
        ToolsOffer::Tools { tools, incognito } => {
            let mut lines: Vec<String> = tools
                .iter()
                .map(|tool| format!("• {} — {}", tool.name, first_sentence(&tool.description)))
                .collect();
            if incognito {
                lines.push(String::new());
                lines.push(replies::tools_incognito_note(lang));
            }
            replies::tools_list(lang, &lines)
        }
    })
}

/// The first sentence of a tool's description, for a one-line list.
fn first_sentence(description: &str) -> &str {
    let description = description.trim();
    match description.find(". ") {
        Some(end) => &description[..=end],
        None => description,
    }
}

/// `/timezone` shows the zone in use, `/timezone reset` forgets the person's, `/timezone <name>`
/// sets it.
async fn time_zone(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
    let name = argument.trim();
    let now_ms = conversations.now_ms();
    if name.is_empty() {
        let zone = conversations.time_zone(key.user_id).await?;
        let local = zone.zone.format(now_ms);
        let text = replies::timezone_current(lang, zone.zone.name(), &local, zone.chosen);
        return Ok(CommandAnswer::Say(text));
    }
    if name.eq_ignore_ascii_case("reset") {
        conversations.set_time_zone(key.user_id, None).await?;
        let zone = conversations.time_zone(key.user_id).await?;
        return Ok(CommandAnswer::Say(replies::timezone_reset(
            lang,
            zone.zone.name(),
        )));
    }
    Ok(CommandAnswer::Say(match TimeZone::parse(name) {
        Some(zone) => {
            conversations.set_time_zone(key.user_id, Some(zone)).await?;
            replies::timezone_set(lang, zone.name(), &zone.format(now_ms))
        }
        None => replies::timezone_unknown(lang, name),
    }))
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
    described::<Command>(lang)
}

/// The commands of `C` (everyone's [`Command`] or the admins' [`admin::AdminCommand`]) in menu
/// order, each with its description in `lang` (see [`described_commands`]).
pub fn described<C: BotCommands>(lang: Lang) -> Vec<DescribedCommand> {
    C::bot_commands()
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
async fn persona(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
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
        Err(PersonaError::TooLong { length, max }) => {
            CommandAnswer::Say(replies::persona_too_long(lang, length, max))
        }
        Err(PersonaError::Empty) => CommandAnswer::Say(replies::persona_none(lang)),
    })
}

/// `/model` shows the models to choose from; `/model <name>` chooses one, or shows them again
/// when no model on offer is called so.
async fn model(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
    let name = argument.trim();
    if !name.is_empty()
        && let Some(chosen) = conversations.choose_model(key.user_id, name).await?
    {
        return Ok(CommandAnswer::Say(replies::model_chosen(lang, &chosen)));
    }
    let menu = conversations.model_menu(key.user_id).await?;
    let intro = if name.is_empty() {
        replies::model_in_use(lang, &menu.in_use)
    } else {
        replies::model_unknown(lang, name)
    };
    Ok(CommandAnswer::ChooseModel { intro, menu })
}

/// `/incognito`, `/incognito on` or `/incognito off`.
async fn incognito(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
    let on = match IncognitoRequest::parse(argument) {
        IncognitoRequest::Show | IncognitoRequest::Unclear => {
            let on = conversations.incognito(key).await?;
            return Ok(CommandAnswer::Say(replies::incognito_state(lang, on)));
        }
        IncognitoRequest::On => true,
        IncognitoRequest::Off => false,
    };
    let changed = conversations.set_incognito(key, on).await?;
    Ok(CommandAnswer::Say(replies::incognito_switched(
        lang, on, changed,
    )))
}

/// `/remember <text>` adds a note; `/remember <n> <text>` replaces note n.
async fn remember(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
    let (text, replacing) = match RememberRequest::parse(argument) {
        RememberRequest::Usage => {
            return Ok(CommandAnswer::Say(replies::remember_usage(lang)));
        }
        RememberRequest::Note { text, replacing } => (text, replacing),
    };
    if let Some((number, new_text)) = replacing
        && let Some(answer) = replace_note(call, number, new_text).await?
    {
        return Ok(answer);
    }
    let note = match NoteText::parse(text) {
        Ok(note) => note,
        Err(error) => return Ok(note_refused(lang, error)),
    };
    Ok(match conversations.add_note(key, &note).await? {
        NoteAddition::Added => {
            CommandAnswer::SayPrivately(replies::remembered(lang, note.as_str()))
        }
        NoteAddition::AlreadyKept => {
            CommandAnswer::SayPrivately(replies::already_remembered(lang, note.as_str()))
        }
        NoteAddition::TooMany => CommandAnswer::Say(replies::too_many_notes(lang)),
    })
}

/// Note `number` replaced by `text`, or `None` when there is no note `number`.
async fn replace_note(
    call: Call<'_>,
    number: usize,
    text: &str,
) -> anyhow::Result<Option<CommandAnswer>> {
    let Call(conversations, key, lang) = call;
    let note = match NoteText::parse(text) {
        Ok(note) => note,
        Err(error) => return Ok(Some(note_refused(lang, error))),
    };
    let replaced = conversations.replace_note(key, number, &note).await?;
    Ok(replaced.map(|old| {
        CommandAnswer::SayPrivately(replies::note_replaced(lang, number, &old, note.as_str()))
    }))
}

fn note_refused(lang: Lang, error: NoteError) -> CommandAnswer {
    CommandAnswer::Say(match error {
        NoteError::Empty => replies::remember_usage(lang),
        NoteError::TooLong { length, max } => replies::note_too_long(lang, length, max),
    })
}

/// `/forget <number from /memory>`.
async fn forget(call: Call<'_>, argument: &str) -> anyhow::Result<CommandAnswer> {
    let Call(conversations, key, lang) = call;
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
        use PersonaRequest::{Reset, Set, Show};
        let pirate = Set("talk like a pirate");
        for (argument, meant) in [
            ("  ", Show),
            ("RESET", Reset),
            (" talk like a pirate ", pirate),
        ] {
            assert_eq!(PersonaRequest::parse(argument), meant, "{argument:?}");
        }
    }

    #[test]
    fn incognito_arguments_mean_show_on_off_or_unclear() {
        use IncognitoRequest::{Off, On, Show, Unclear};
        for (argument, meant) in [(" ", Show), ("ON", On), (" off ", Off), ("maybe", Unclear)] {
            assert_eq!(IncognitoRequest::parse(argument), meant, "{argument:?}");
        }
    }

    #[test]
    fn remember_takes_a_leading_number_as_the_note_it_may_replace() {
        assert_eq!(RememberRequest::parse("  "), RememberRequest::Usage);
        assert_eq!(RememberRequest::parse(" 2 "), RememberRequest::Usage);
        assert_eq!(
            RememberRequest::parse(" I am vegan "),
            RememberRequest::Note {
                text: "I am vegan",
                replacing: None
            }
        );
        assert_eq!(
            RememberRequest::parse("2  I eat fish now"),
            RememberRequest::Note {
                text: "2  I eat fish now",
                replacing: Some((2, "I eat fish now"))
            }
        );
        assert_eq!(
            RememberRequest::parse("2nd floor flat"),
            RememberRequest::Note {
                text: "2nd floor flat",
                replacing: None
            }
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
            21
        );
    }

    #[test]
    fn export_defaults_to_markdown() {
        assert_eq!(ExportFormat::parse(""), ExportFormat::Markdown);
        assert_eq!(ExportFormat::parse("JSON"), ExportFormat::Json);
    }
}
