//! Every sentence the bot says to users, in one place, for both front ends: Telegram and
//! `telemem chat` in a terminal. Replies never carry internal error text or provider responses:
//! those go to the log.

use crate::access_list::{AccessChange, AccessOverview};
use crate::clock::format_utc_ms;
use crate::conversation::{ConversationStats, MemoryOverview, PERSONA_MAX_CHARS};
use crate::llm::ModelInUse;
use crate::memory::notes::MAX_NOTES_BY_HAND;
use crate::quota::{LimitReached, LimitSource, PersonLimit};
use crate::storage::{PersonUsage, UserId};

pub const NOT_ALLOWED: &str = "Sorry, this bot is private and you are not on its list of users. Nothing you send here is stored.";

pub const NOT_ALLOWED_AS_CHAT: &str = "Sorry, this bot is private: it answers only the people on its list of users, and a message sent as a channel or as an anonymous admin does not show who wrote it. Write as yourself to use it. Nothing you send here is stored.";

/// In a group, after private material went to the person's private chat.
pub const ANSWERED_IN_PRIVATE: &str =
    "I sent you the answer in our private chat, to keep it out of the group.";

/// In a group, when the bot may not write to the person's private chat.
pub const ASK_IN_PRIVATE: &str = "I only show this in a private chat, and I cannot write to you there yet. Open a chat with me (tap my name), press Start, and ask there.";

/// In a group, when private material was asked for as a channel or an anonymous admin.
pub const PRIVATE_NEEDS_A_PERSON: &str = "I only show this in a private chat, and a message sent as a channel or as an anonymous admin has no private chat I can write to. Ask as yourself in a private chat with me.";

/// In a group, after `/persona <text>`: the text is not repeated there.
pub const PERSONA_SAVED_NOT_SHOWN: &str =
    "Persona saved. I keep it out of the group; /persona in a private chat with me shows it.";

/// Private material sent to a private chat, naming the group it was asked in.
pub fn from_group(title: &str, text: &str) -> String {
    format!("You asked in the group “{title}”:\n\n{text}")
}

pub fn export_caption_from_group(title: &str) -> String {
    format!("Your history in the group “{title}”.")
}

/// The reply to a command the bot does not know, with the list it does.
pub fn unknown_command(descriptions: &str) -> String {
    format!("I don't know that command. These are the ones I understand:\n\n{descriptions}")
}

pub const TEXT_ONLY: &str = "I can't read this kind of message — stickers, videos, archives and other such files pass me by. I read text, photos, voice notes and text documents (and PDFs); please send it as one of those.";

/// Shown above the answer to a voice note, audio file or video note: what was heard.
pub fn heard(transcript: &str) -> String {
    format!("🎤 “{transcript}”")
}

/// Shown above the answer to a document whose text was cut to fit the prompt.
pub fn document_cut(shown_chars: usize, total_chars: usize) -> String {
    format!("📄 The document is long: I read its first {shown_chars} of {total_chars} characters.")
}

/// A file over Telegram's 20 MB download limit for bots.
pub const FILE_TOO_BIG: &str = "That file is too big for me: Telegram lets bots fetch files of up to 20 MB. Please send a smaller one.";

pub fn document_too_big(max_bytes: u64) -> String {
    format!(
        "That document is larger than the {} I read. Please send a shorter file, or paste the part that matters.",
        human_bytes(max_bytes)
    )
}

pub const IMAGE_TOO_BIG: &str = "That picture file is too large for the model (over 5 MB). Please send it as a photo instead: Telegram makes it smaller.";

pub const FILE_EMPTY: &str = "That file is empty, so there is nothing for me to read.";

pub const IMAGE_UNREADABLE: &str =
    "I could not open that picture: it is not a JPEG, PNG, GIF or WebP image, or it is damaged.";

pub const DOCUMENT_NOT_TEXT: &str =
    "I could not read that file as text: it looks binary or damaged, or it is not in UTF-8.";

pub const PDF_UNREADABLE: &str = "I could not read that PDF: it seems damaged or protected.";

pub const PDF_NO_TEXT: &str =
    "That PDF has no text I can read; it is probably a scan. Please send its pages as photos.";

pub const FILE_UNAVAILABLE: &str =
    "I could not fetch your file from Telegram just now. Please send it again in a minute.";

pub const MEDIA_TIMEOUT: &str =
    "Fetching and reading your file took too long, so I stopped. Please try again in a minute.";

pub const VOICE_NOT_SET_UP: &str = "Voice notes are not set up on this bot, so I cannot listen to them. Please type your message instead.";

pub const TRANSCRIPTION_UNAVAILABLE: &str = "I could not transcribe your recording: the transcription service is not answering right now. Please try again in a minute, or type it.";

pub const TRANSCRIPTION_REFUSED: &str = "I could not make out that recording: the transcription service could not read it. Please record it again, or type it.";

pub const NOTHING_HEARD: &str =
    "I could not hear any words in that recording. Please try again, or type it.";

pub const VISION_NOT_SUPPORTED: &str = "The model I use cannot look at pictures. Your caption is saved; describe the picture in words, or ask the operator to set VISION_MODEL to a model that can see.";

pub const MODEL_UNAVAILABLE: &str =
    "The model is not answering right now. Your message is saved; please try again in a minute.";

pub const MODEL_RATE_LIMITED: &str = "The model is busy right now (rate limited). Your message is saved; please try again in a minute.";

pub const INTERNAL_ERROR: &str = "Something went wrong on my side and I could not handle that message. Please try again in a moment.";

pub const STORAGE_FULL: &str = "I cannot save anything right now because my storage is full. The operator has been told; please try again later.";

/// The notice for the first message past `USER_MAX_PENDING`.
pub fn too_many_waiting(max: u32) -> String {
    format!(
        "You are sending messages faster than I can answer: {max} of yours are already waiting. \
         I will answer those; anything you send before then is not read, so please send it again \
         once I have replied."
    )
}

/// The notice for the first message past `USER_MESSAGES_PER_MINUTE`.
pub fn too_many_per_minute(max: u32) -> String {
    format!(
        "That is more than {max} messages in a minute, so I did not read the last one. Please wait \
         a moment and send it again."
    )
}

pub const EMPTY_MESSAGE: &str = "Your message is empty — write something and I will answer.";

pub const EMPTY_REPLY: &str = "The model returned an empty answer. Please rephrase or try again.";

/// Ends the text of an answer that was stopped while it was being written; history keeps it too.
pub const STOPPED: &str = "⏹ stopped";
/// The button under an answer being written.
pub const STOP_BUTTON: &str = "⏹ Stop";
pub const NOTHING_TO_STOP: &str =
    "There is nothing to stop: I am not writing an answer for you right now.";
/// A press on someone else's Stop button (shown by Telegram as a short notice).
pub const STOP_NOT_YOURS: &str = "Only the person this answer is for can stop it.";
/// `/cancel` in a terminal, which reads the next line only once the answer is complete.
pub const TERMINAL_NOTHING_TO_STOP: &str =
    "There is nothing to stop right now. While an answer is being written, Ctrl-C stops it.";

pub const NOTHING_TO_RETRY: &str =
    "There is nothing to answer again: you have not written to me in this chat yet.";
pub const RETRY_WHILE_RUNNING: &str = "I am still answering your last message. Wait for that answer (or stop it with /cancel), then send /retry.";
/// What an answer replaced by /retry shows when the new one comes in a message of its own.
pub const REPLACED_BY_NEWER: &str = "↻ Replaced by a newer answer below.";

pub const CLEAR_CONFIRM: &str = "Delete all your history in this chat — messages, sessions, summaries and notes? Your persona stays. This cannot be undone.";
pub const CLEAR_BUTTON_YES: &str = "Yes, delete it";
pub const CLEAR_BUTTON_NO: &str = "Cancel";
pub const CLEAR_CANCELLED: &str = "Nothing was deleted.";
pub const CLEAR_NOT_YOURS: &str = "Only the person who asked for /clear can confirm it.";

pub const RESET_DONE: &str = "Started a fresh session. I still keep our earlier conversations and can recall them when they matter.";
pub const RESET_NOTHING_OPEN: &str =
    "A fresh session starts with your next message. Earlier conversations are still remembered.";

pub const PERSONA_RESET: &str = "Persona reset: I am back to my default behaviour.";
pub const PERSONA_NONE: &str = "You have no persona set, so I use my default behaviour.\nSet one with /persona <how I should behave>, e.g. /persona Answer briefly, like a pirate.";

pub const EXPORT_EMPTY: &str =
    "There is nothing to export: no messages are stored for you in this chat.";
pub const EXPORT_CAPTION: &str = "Your history in this chat.";

pub const FORGET_USAGE: &str =
    "Tell me which note to forget by its number, e.g. /forget 2. /memory lists them.";

pub fn forgot(note: &str) -> String {
    format!("Forgotten: {note}")
}

pub fn no_such_note(number: &str) -> String {
    format!("I have no note number {number}. /memory lists the notes I keep.")
}

/// The `/memory` listing: whether incognito is on, numbered notes (those the person added
/// marked) with how to change them, then summaries with their session times.
pub fn memory(overview: &MemoryOverview) -> String {
    let mut text = String::new();
    if overview.incognito {
        text.push_str("Incognito is on in this chat: I store nothing of what we say and use none of this in my answers. /incognito off ends it.\n\n");
    }
    if overview.notes.is_empty() {
        text.push_str("I keep no notes about you in this chat yet. Lasting facts and preferences you tell me are noted after a session ends; /remember <text> adds one now.\n");
    } else {
        text.push_str("Notes I keep about you:\n");
        for (index, note) in overview.notes.iter().enumerate() {
            let added = if note.added_by_hand {
                "added by you on"
            } else {
                "since"
            };
            text.push_str(&format!(
                "{}. {} ({added} {})\n",
                index + 1,
                note.note,
                format_utc_ms(note.created_at_ms)
            ));
        }
        text.push_str("Change one: /remember <number> <new text>. Remove one: /forget <number>. Add one: /remember <text>.\n");
    }
    if overview.summaries.is_empty() {
        text.push_str("\nNo session summaries yet: a session is summarized after it ends.");
    } else {
        text.push_str("\nSummaries of our earlier sessions:\n");
        for summary in overview.summaries.iter().rev() {
            text.push_str(&format!(
                "\n• {}: {}\n",
                format_utc_ms(summary.session_started_at_ms),
                summary.summary
            ));
        }
    }
    text
}

pub const REMEMBER_USAGE: &str = "Tell me what to note, e.g. /remember I am vegetarian. To change note 2 (as /memory lists them), write /remember 2 <new text>.";

pub fn remembered(note: &str) -> String {
    format!("Noted: {note}\n/memory lists your notes.")
}

pub fn already_remembered(note: &str) -> String {
    format!("I already keep that note: {note}")
}

pub fn note_replaced(number: usize, old: &str, new: &str) -> String {
    format!("Note {number} changed.\nWas: {old}\nNow: {new}")
}

pub fn note_too_long(length: usize, max: usize) -> String {
    format!("That note is {length} characters long; at most {max} are allowed. Please shorten it.")
}

pub fn too_many_notes() -> String {
    format!(
        "You have added {MAX_NOTES_BY_HAND} notes already, as many as I keep. Remove one with /forget <number> (see /memory), or change one with /remember <number> <new text>."
    )
}

/// `/model`: which model answers the person, and why, when it is not the one they chose.
pub fn model_in_use(model: &ModelInUse) -> String {
    match &model.unavailable_choice {
        Some(chosen) => format!(
            "The model you chose, {chosen}, is no longer offered, so {} answers you now.",
            model.name
        ),
        None => format!("{} answers you.", model.name),
    }
}

/// `/model <name>` with a name that is not on offer.
pub fn model_unknown(name: &str) -> String {
    format!("I don't offer a model called “{name}”.")
}

pub fn model_chosen(name: &str) -> String {
    format!("From now on {name} answers you, in all our chats.")
}

/// Below the `/model` menu's buttons.
pub const MODEL_CHOOSE_WITH_BUTTONS: &str = "Tap a model to choose it (or write /model <name>):";

/// Before the `/model` menu's list where there are no buttons (a terminal).
pub const MODEL_CHOOSE_BY_NAME: &str = "Choose one with /model <name>:";

/// A model in the `/model` menu, marked when it is the one that answers.
pub fn model_label(name: &str, in_use: bool) -> String {
    if in_use {
        format!("✓ {name}")
    } else {
        name.to_owned()
    }
}

/// A press on someone else's `/model` menu in a group.
pub const MODEL_MENU_NOT_YOURS: &str =
    "Only the person who asked for this list can choose here. Write /model for your own.";

/// A press on a `/model` menu whose list of models has changed since.
pub const MODEL_MENU_OUT_OF_DATE: &str = "The list of models has changed; here it is again.";

/// `/incognito`: the state, and how to switch.
pub fn incognito_state(on: bool) -> String {
    if on {
        "Incognito is on in this chat: I store nothing of what we say and use no memory of earlier conversations, only our last few messages for a few minutes. /incognito off ends it.".to_owned()
    } else {
        "Incognito is off: I keep our conversation in this chat and remember it. /incognito on stops that: then I store nothing of what we say and use no memory.".to_owned()
    }
}

/// `/incognito on` or `/incognito off`; `changed` is false when it was so already.
pub fn incognito_switched(on: bool, changed: bool) -> String {
    match (on, changed) {
        (true, true) => "Incognito is on. From now on I store nothing of what we say in this chat and use no memory of earlier conversations (your persona still applies); I only keep our last few messages for a few minutes, and forget them when you switch it off. /incognito off ends it.".to_owned(),
        (true, false) => incognito_state(true),
        (false, true) => "Incognito is off. I keep our conversation in this chat again and remember it; nothing from the incognito part was kept.".to_owned(),
        (false, false) => incognito_state(false),
    }
}

pub fn message_too_long(length: usize, max: usize) -> String {
    format!(
        "Your message is {length} characters long; I accept at most {max}. Please shorten it or split it into parts."
    )
}

pub fn start(history_window_secs: u64, purge_after_secs: u64, idle_secs: u64) -> String {
    format!(
        "Hello! I am an AI assistant with a memory.\n\n\
         I keep our conversation in this chat: the last messages of the past {} verbatim, and \
         summaries of earlier sessions (a session ends after {} of silence). Everything is deleted \
         automatically after {}.\n\n\
         /persona sets how I behave for you, /memory shows what I keep about you, /remember adds \
         a note, /incognito on stops me storing anything, /stats shows what I store, /reset starts \
         a fresh session, /export sends you your history, /clear deletes it. /help lists \
         everything.",
        human_duration(history_window_secs),
        human_duration(idle_secs),
        human_duration(purge_after_secs),
    )
}

pub fn persona_current(persona: &str) -> String {
    format!(
        "Your persona:\n\n{persona}\n\nChange it with /persona <text>, or go back to the default with /persona reset."
    )
}

pub fn persona_set(persona: &str) -> String {
    format!("Persona saved. From now on:\n\n{persona}")
}

pub fn persona_too_long(length: usize) -> String {
    format!(
        "That persona is {length} characters long; at most {PERSONA_MAX_CHARS} are allowed. Please shorten it."
    )
}

pub fn cleared(messages: u64, sessions: u64) -> String {
    format!(
        "Deleted {messages} messages from {sessions} sessions. I no longer remember anything from this chat."
    )
}

pub fn stats(stats: &ConversationStats) -> String {
    let session = match stats.session_started_at_ms {
        Some(started) => format!(
            "{} (since {})",
            human_duration(((stats.now_ms - started).max(0) / 1_000) as u64),
            format_utc_ms(started)
        ),
        None => "none open".to_owned(),
    };
    let last = stats
        .last_activity_ms
        .map(format_utc_ms)
        .unwrap_or_else(|| "never".to_owned());
    let tokens_today = match stats.daily_token_limit {
        Some(limit) => format!(
            "{} of {} (in all your chats)",
            thousands(stats.tokens_today),
            thousands(limit)
        ),
        None => format!("{} (in all your chats)", thousands(stats.tokens_today)),
    };
    let mut text = format!(
        "Your statistics in this chat\n\
         Messages stored: {}\n\
         Messages in the current context: {}\n\
         Tokens today: {tokens_today}\n\
         Tokens in total: {}\n\
         Current session: {session}\n\
         Last activity: {last}\n\
         Model: {}",
        stats.messages_stored, stats.messages_in_context, stats.tokens_total, stats.model.name,
    );
    if stats.model.unavailable_choice.is_some() {
        text.push_str(" (the model you chose is no longer offered)");
    }
    if stats.incognito {
        text.push_str("\nIncognito: on (nothing of this chat is stored)");
    }
    if stats.incognito_tokens_today > 0 {
        text.push_str(&format!(
            "\nOf today's tokens, in incognito: {}",
            thousands(stats.incognito_tokens_today.max(0) as u64)
        ));
    }
    text
}

/// `telemem chat`'s greeting.
pub fn terminal_welcome(user_id: i64, chat_id: i64) -> String {
    format!(
        "telemem chat as user {user_id} in chat {chat_id}. Type a message and press Enter; /help \
         lists the commands, /quit leaves."
    )
}

/// `/clear` in a terminal: Telegram asks for the confirmation with buttons.
pub const TERMINAL_CANNOT_CLEAR: &str = "/clear asks for a confirmation with buttons, which a terminal cannot show, so nothing was deleted.";

/// `/export` in a terminal: Telegram sends the history as a file.
pub const TERMINAL_CANNOT_EXPORT: &str =
    "/export sends your history as a file, which a terminal cannot receive.";

/// "512 bytes", "300 KB", "1 MB", "1.5 MB" (1 KB = 1,024 bytes).
pub fn human_bytes(bytes: u64) -> String {
    const KB: u64 = 1_024;
    const MB: u64 = KB * KB;
    if bytes >= MB {
        let tenths = (bytes * 10 + MB / 2) / MB;
        if tenths.is_multiple_of(10) {
            format!("{} MB", tenths / 10)
        } else {
            format!("{}.{} MB", tenths / 10, tenths % 10)
        }
    } else if bytes >= KB {
        format!("{} KB", (bytes + KB / 2) / KB)
    } else {
        format!("{bytes} bytes")
    }
}

/// "3 days", "1 hour 30 minutes", "45 seconds".
pub fn human_duration(total_secs: u64) -> String {
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let mut parts = Vec::new();
    let mut rest = total_secs;
    for (size, name) in units {
        let count = rest / size;
        if count > 0 {
            parts.push(format!(
                "{count} {name}{}",
                if count == 1 { "" } else { "s" }
            ));
            rest -= count * size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    if parts.is_empty() {
        "0 seconds".to_owned()
    } else {
        parts.join(" ")
    }
}

/// A count with thousands separators: "1,234,567".
pub fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// "1 message", "1,234 messages".
fn counted(count: i64, noun: &str) -> String {
    let count = count.max(0) as u64;
    let plural = if count == 1 { "" } else { "s" };
    format!("{} {noun}{plural}", thousands(count))
}

/// Instead of a turn, when the person's tokens for the day are used up.
pub fn daily_limit_reached(reached: &LimitReached) -> String {
    let wait_secs = ((reached.resets_at_ms - reached.now_ms).max(0) / 1_000) as u64;
    format!(
        "You have used your {} tokens for today ({} so far), so I did not send this message to \
         the model, and I did not save it. The limit resets at {} (in {}); please send it again \
         then.",
        thousands(reached.limit),
        thousands(reached.used),
        format_utc_ms(reached.resets_at_ms),
        human_duration(wait_secs),
    )
}

/// Told once when the person's stored history reached `USER_MAX_STORED_MB`.
pub fn stored_history_capped(max_bytes: u64) -> String {
    format!(
        "Your stored history with me has reached its limit of {} MB, so I deleted your oldest \
         conversations to make room, and I will keep deleting the oldest ones as new ones come \
         in. /export sends you what I still keep.",
        max_bytes / (1024 * 1024)
    )
}

/// An admin command asked in a group.
pub const ADMIN_ONLY_IN_PRIVATE: &str =
    "Admin commands work only in a private chat with me, to keep them out of groups.";

pub const ALLOW_USAGE: &str = "Tell me whom to let in by their Telegram id, e.g. /allow 123456789.";
pub const BLOCK_USAGE: &str = "Tell me whom to block by their Telegram id, e.g. /block 123456789.";
pub const UNBLOCK_USAGE: &str =
    "Tell me whose block to lift by their Telegram id, e.g. /unblock 123456789.";
pub const LIMIT_USAGE: &str = "Usage: /limit <id> shows a person's daily token limit; \
     /limit <id> <tokens> sets it (e.g. /limit 123456789 50000), /limit <id> off lifts it, \
     /limit <id> default goes back to USER_DAILY_TOKEN_LIMIT.";
pub const USAGE_USAGE: &str =
    "Usage: /usage for everyone's tokens, or /usage <id> for one person's.";

pub const CANNOT_BLOCK_YOURSELF: &str = "You cannot block yourself.";
pub const CANNOT_BLOCK_ADMIN: &str =
    "People in ADMIN_USERS cannot be blocked; take them out of the setting first.";

/// What `/allow`, `/block` or `/unblock` did to `user_id`.
pub fn access_changed(user_id: UserId, change: AccessChange) -> String {
    match change {
        AccessChange::Allowed => format!("{user_id} may use the bot now."),
        AccessChange::AlreadyAllowed => format!("{user_id} is already allowed; nothing changed."),
        AccessChange::Blocked => format!(
            "{user_id} is blocked now: I will not answer them, whatever the allow lists say."
        ),
        AccessChange::AlreadyBlocked => format!("{user_id} is already blocked."),
        AccessChange::Unblocked => format!(
            "{user_id} is no longer blocked; ALLOWED_USERS and ALLOW_ALL_USERS decide about them \
             again (/allow lets them in)."
        ),
        AccessChange::NotBlocked => format!("{user_id} is not blocked; nothing changed."),
    }
}

/// A daily token limit and where it comes from: "50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)".
fn limit_line(limit: &PersonLimit) -> String {
    let amount = match limit.tokens {
        Some(tokens) => format!("{} tokens a day", thousands(tokens)),
        None => "no limit".to_owned(),
    };
    let source = match limit.source {
        LimitSource::Setting => "USER_DAILY_TOKEN_LIMIT".to_owned(),
        LimitSource::Admin { set_by } => format!("set by admin {set_by} with /limit"),
        LimitSource::Exempt => "admins are exempt".to_owned(),
    };
    format!("{amount} ({source})")
}

/// `/limit <id>`, and the answer to a change.
pub fn limit_of(user_id: UserId, limit: &PersonLimit) -> String {
    format!("Daily token limit of {user_id}: {}.", limit_line(limit))
}

/// One person's `/usage <id>`.
pub fn usage_of(user_id: UserId, usage: &PersonUsage, limit: &PersonLimit, days: i64) -> String {
    let today = match limit.tokens {
        Some(tokens) => format!(
            "{} of {}",
            thousands(usage.tokens_today.max(0) as u64),
            thousands(tokens)
        ),
        None => thousands(usage.tokens_today.max(0) as u64),
    };
    format!(
        "Usage of {user_id}\n\
         Tokens today: {today}\n\
         Last {days} days: {}, {}\n\
         Limit: {}",
        counted(usage.tokens, "token"),
        counted(usage.messages, "message"),
        limit_line(limit),
    )
}

/// Everyone's `/usage`: tokens today and over `days` days, most first.
pub fn usage_report(usage: &[PersonUsage], days: i64) -> String {
    if usage.is_empty() {
        return format!("Nobody used any tokens in the last {days} days.");
    }
    let mut text = format!("Tokens per person, today · last {days} days:\n");
    for person in usage {
        text.push_str(&format!(
            "• {}: {} · {}\n",
            person.user_id,
            thousands(person.tokens_today.max(0) as u64),
            thousands(person.tokens.max(0) as u64),
        ));
    }
    text
}

/// `/users`: who may use the bot, who is blocked, and who was active in the last `days` days.
pub fn users_overview(access: &AccessOverview, active: &[PersonUsage], days: i64) -> String {
    let ids = |ids: &[UserId]| {
        ids.iter()
            .map(UserId::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = format!("Admins: {}\n", ids(&access.admins));
    if access.allow_all {
        text.push_str("Allowed: everyone (ALLOW_ALL_USERS)\n");
    }
    if !access.configured.is_empty() {
        text.push_str(&format!("ALLOWED_USERS: {}\n", ids(&access.configured)));
    }
    for (title, rules) in [
        ("Allowed by admins", &access.allowed),
        ("Blocked", &access.blocked),
    ] {
        if rules.is_empty() {
            text.push_str(&format!("{title}: nobody\n"));
            continue;
        }
        text.push_str(&format!("{title}:\n"));
        for rule in rules {
            text.push_str(&format!(
                "• {} (by {}, {})\n",
                rule.user_id,
                rule.changed_by,
                format_utc_ms(rule.changed_at_ms)
            ));
        }
    }
    if active.is_empty() {
        text.push_str(&format!("\nNobody was active in the last {days} days."));
        return text;
    }
    text.push_str(&format!("\nActive in the last {days} days:\n"));
    for person in active {
        text.push_str(&format!(
            "• {}: {}, {}\n",
            person.user_id,
            counted(person.messages, "message"),
            counted(person.tokens, "token"),
        ));
    }
    text
}

/// To every admin, once per stranger: who wrote. `name` and `username` as Telegram shows them.
pub fn stranger_alert(name: &str, username: Option<&str>, id: UserId) -> String {
    let handle = username
        .map(|username| format!(" (@{username})"))
        .unwrap_or_default();
    format!(
        "Someone not on the allow list wrote to me: {name}{handle}, id {id}. I told them the bot \
         is private and stored nothing they sent."
    )
}

pub const STRANGER_BUTTON_ALLOW: &str = "Allow";
pub const STRANGER_BUTTON_BLOCK: &str = "Block";

/// Added to the alert once an admin pressed one of its buttons.
pub fn stranger_decided(change: AccessChange, admin_name: &str, admin_id: UserId) -> String {
    let what = match change {
        AccessChange::Allowed | AccessChange::AlreadyAllowed => "Allowed",
        _ => "Blocked",
    };
    format!("{what} by {admin_name} (id {admin_id}).")
}

/// A press on an alert's button by someone who is not an admin.
pub const ONLY_ADMINS_DECIDE: &str = "Only admins can decide this.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(1_048_576), "1 MB");
        assert_eq!(human_bytes(1_572_864), "1.5 MB");
        assert_eq!(human_bytes(300 * 1_024), "300 KB");
        assert_eq!(human_bytes(512), "512 bytes");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(86_400), "1 day");
        assert_eq!(human_duration(30 * 86_400), "30 days");
        assert_eq!(human_duration(5_400), "1 hour 30 minutes");
        assert_eq!(human_duration(1_800), "30 minutes");
        assert_eq!(human_duration(0), "0 seconds");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234), "1,234");
        assert_eq!(thousands(50_000), "50,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
