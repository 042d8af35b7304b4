# Every sentence telemem writes itself, in English: the reference every other language file
# follows, and the fallback for any message a language file lacks.
#
# Format: Project Fluent (https://projectfluent.org/fluent/guide/). A message is `id = text`;
# `{ $name }` is a value the bot fills in (a number, a name, a text the person wrote); lines
# indented under a message continue it, and an empty line inside a message is kept. Plurals pick a
# variant by the number: `{ $count -> [one] … *[other] … }` (Russian also has [few] and [many]).
# Command names (/persona, /forget, …) are never translated.
#
# A translator keeps every id and every `{ $name }` of this file: a unit test fails when a
# language file lacks an id, or uses a `{ $name }` the English message does not have.

## The help text and the command menu. The descriptions are also what Telegram shows in its
## command menu, so keep them short (Telegram allows 256 characters).

help-intro = I am an AI assistant that remembers our conversations. Commands:
command-start = Say hello and explain what I remember.
command-help = Show this list of commands.
command-persona = Show or set how I behave for you: /persona <text>, or /persona reset.
command-stats = Show what I store about you in this chat.
command-memory = Show the notes and session summaries I keep about you in this chat.
command-forget = Forget one note: /forget <number from /memory>.
command-reset = Start a fresh session (earlier history is kept).
command-clear = Delete all your history in this chat (asks first).
command-export = Send your history in this chat as a file: /export or /export json.

unknown-command =
    I don't know that command. These are the ones I understand:

    { $commands }

## /start

start =
    Hello! I am an AI assistant with a memory.

    I keep our conversation in this chat: the last messages of the past { $history_window } verbatim, and summaries of earlier sessions (a session ends after { $idle } of silence). Everything is deleted automatically after { $purge_after }.

    /persona sets how I behave for you, /memory shows what I keep about you, /stats what I store, /reset starts a fresh session, /export sends you your history, /clear deletes it. /help lists everything.

## Who may use the bot

not-allowed = Sorry, this bot is private and you are not on its list of users. Nothing you send here is stored.
not-allowed-as-chat = Sorry, this bot is private: it answers only the people on its list of users, and a message sent as a channel or as an anonymous admin does not show who wrote it. Write as yourself to use it. Nothing you send here is stored.

## Private material asked for in a group

# In the group, after the answer went to the person's private chat.
answered-in-private = I sent you the answer in our private chat, to keep it out of the group.
# In the group, when the bot may not write to the person's private chat.
ask-in-private = I only show this in a private chat, and I cannot write to you there yet. Open a chat with me (tap my name), press Start, and ask there.
# In the group, when it was asked as a channel or an anonymous admin.
private-needs-a-person = I only show this in a private chat, and a message sent as a channel or as an anonymous admin has no private chat I can write to. Ask as yourself in a private chat with me.
# In the group, after /persona <text>: the text is not repeated there.
persona-saved-not-shown = Persona saved. I keep it out of the group; /persona in a private chat with me shows it.
# The answer in the private chat, naming the group it was asked in.
from-group =
    You asked in the group “{ $group }”:

    { $answer }
export-caption-from-group = Your history in the group “{ $group }”.

## Answers instead of a reply from the model

text-only = I can only read text messages for now — stickers, photos, voice and files pass me by. Please write it out in text.
model-unavailable = The model is not answering right now. Your message is saved; please try again in a minute.
model-rate-limited = The model is busy right now (rate limited). Your message is saved; please try again in a minute.
internal-error = Something went wrong on my side and I could not handle that message. Please try again in a moment.
storage-full = I cannot save anything right now because my storage is full. The operator has been told; please try again later.
empty-message = Your message is empty — write something and I will answer.
empty-reply = The model returned an empty answer. Please rephrase or try again.
message-too-long = Your message is { $length } characters long; I accept at most { $max }. Please shorten it or split it into parts.
# For the first message past USER_MAX_PENDING.
too-many-waiting = You are sending messages faster than I can answer: { $max } of yours are already waiting. I will answer those; anything you send before then is not read, so please send it again once I have replied.
# For the first message past USER_MESSAGES_PER_MINUTE.
too-many-per-minute = That is more than { $max } messages in a minute, so I did not read the last one. Please wait a moment and send it again.

## /clear

clear-confirm = Delete all your history in this chat — messages, sessions, summaries and notes? Your persona stays. This cannot be undone.
clear-button-yes = Yes, delete it
clear-button-no = Cancel
clear-cancelled = Nothing was deleted.
# Shown to someone pressing another person's button in a group.
clear-not-yours = Only the person who asked for /clear can confirm it.
cleared = Deleted { $messages ->
        [one] { $messages } message
       *[other] { $messages } messages
    } from { $sessions ->
        [one] { $sessions } session
       *[other] { $sessions } sessions
    }. I no longer remember anything from this chat.

## /reset

reset-done = Started a fresh session. I still keep our earlier conversations and can recall them when they matter.
reset-nothing-open = A fresh session starts with your next message. Earlier conversations are still remembered.

## /persona

persona-reset = Persona reset: I am back to my default behaviour.
persona-none =
    You have no persona set, so I use my default behaviour.
    Set one with /persona <how I should behave>, e.g. /persona Answer briefly, like a pirate.
persona-current =
    Your persona:

    { $persona }

    Change it with /persona <text>, or go back to the default with /persona reset.
persona-saved =
    Persona saved. From now on:

    { $persona }
persona-too-long = That persona is { $length } characters long; at most { $max } are allowed. Please shorten it.

## /export

export-empty = There is nothing to export: no messages are stored for you in this chat.
export-caption = Your history in this chat.
# The Markdown file /export sends: its title and who wrote each message.
export-title = telemem history
export-author-user = You
export-author-bot = Bot
export-author-system = System

## /forget and /memory

forget-usage = Tell me which note to forget by its number, e.g. /forget 2. /memory lists them.
forgot = Forgotten: { $note }
no-such-note = I have no note number { $number }. /memory lists the notes I keep.
memory-no-notes = I keep no notes about you in this chat yet. Lasting facts and preferences you tell me are noted after a session ends.
memory-notes-heading = Notes I keep about you (remove one with /forget <number>):
memory-note = { $number }. { $note } (since { $since })
memory-no-summaries = No session summaries yet: a session is summarized after it ends.
memory-summaries-heading = Summaries of our earlier sessions:

## /stats

stats =
    Your statistics in this chat
    Messages stored: { $stored }
    Messages in the current context: { $in_context }
    Tokens today: { $tokens_today }
    Tokens in total: { $tokens_total }
    Current session: { $session }
    Last activity: { $last_activity }
# The current session's age and start, e.g. "2 hours 5 minutes (since 2026-12-02 09:00 UTC)".
stats-session = { $age } (since { $since })
stats-no-session = none open
stats-never = never

## Durations: "3 days", "1 hour 30 minutes", "45 seconds". Two units at most.

duration-days = { $count ->
        [one] { $count } day
       *[other] { $count } days
    }
duration-hours = { $count ->
        [one] { $count } hour
       *[other] { $count } hours
    }
duration-minutes = { $count ->
        [one] { $count } minute
       *[other] { $count } minutes
    }
duration-seconds = { $count ->
        [one] { $count } second
       *[other] { $count } seconds
    }
# A duration of two units, the larger first.
duration-two-units = { $larger } { $smaller }

## telemem chat, in a terminal

terminal-welcome = telemem chat as user { $user } in chat { $chat }. Type a message and press Enter; /help lists the commands, /quit leaves.
# /clear in a terminal: Telegram asks for the confirmation with buttons.
terminal-cannot-clear = /clear asks for a confirmation with buttons, which a terminal cannot show, so nothing was deleted.
# /export in a terminal: Telegram sends the history as a file.
terminal-cannot-export = /export sends your history as a file, which a terminal cannot receive.
