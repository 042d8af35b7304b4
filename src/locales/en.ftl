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
command-model = Show or choose the model that answers you: /model, or /model <name>.
command-remember = Add a note for me to keep: /remember <text>. Change note n: /remember <n> <new text>.
command-incognito = Keep nothing of this chat and use no memory: /incognito on, /incognito off.
command-cancel = Stop the answer I am writing; what is written so far stays (the Stop button does the same).
command-retry = Answer your last message again; the new answer replaces the old one.

## The admins' part of /help and of their command menu

admin-help-heading = Admin commands (only admins see these):
command-allow = Let someone use the bot, lifting a block: /allow <id>.
command-block = Shut someone out, even if ALLOWED_USERS or ALLOW_ALL_USERS let them in: /block <id>.
command-unblock = Lift a block (ALLOWED_USERS and ALLOW_ALL_USERS decide again): /unblock <id>.
command-limit = Show or set a daily token limit: /limit <id> [<tokens>|off|default].
command-users = Who is allowed, who is blocked, who was active in the last 7 days.
command-usage = Tokens per person today and in the last 30 days: /usage [<id>].

unknown-command =
    I don't know that command. These are the ones I understand:

    { $commands }

## /start

start =
    Hello! I am an AI assistant with a memory.

    I keep our conversation in this chat: the last messages of the past { $history_window } verbatim, and summaries of earlier sessions (a session ends after { $idle } of silence). Everything is deleted automatically after { $purge_after }.

    /persona sets how I behave for you, /memory shows what I keep about you, /remember adds a note, /incognito on stops me storing anything, /stats shows what I store, /reset starts a fresh session, /export sends you your history, /clear deletes it. /help lists everything.

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

text-only = I can't read this kind of message — stickers, videos, archives and other such files pass me by. I read text, photos, voice notes and text documents (and PDFs); please send it as one of those.
tool-searching-memory = 🔧 searching your memory…
tool-remembering = 🔧 taking a note…
tool-setting-reminder = 🔧 setting a reminder…
tool-using = 🔧 using a tool…
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
export-reminders = Reminders

## /forget and /memory

forget-usage = Tell me which note to forget by its number, e.g. /forget 2. /memory lists them.
forgot = Forgotten: { $note }
no-such-note = I have no note number { $number }. /memory lists the notes I keep.
# Above the rest of /memory when incognito is on.
memory-incognito = Incognito is on in this chat: I store nothing of what we say and use none of this in my answers. /incognito off ends it.
memory-no-notes = I keep no notes about you in this chat yet. Lasting facts and preferences you tell me are noted after a session ends; /remember <text> adds one now.
memory-notes-heading = Notes I keep about you:
memory-note = { $number }. { $note } (since { $since })
# A note the person added with /remember.
memory-note-by-hand = { $number }. { $note } (added by you on { $since })
# What a note said before it changed, under the note.
memory-note-earlier = before: { $note } (until { $until })
memory-notes-how-to = Change one: /remember <number> <new text>. Remove one: /forget <number>. Add one: /remember <text>.
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
    Model: { $model }
# Tokens today, as /stats shows them: "1,234 of 50,000 (in all your chats)".
stats-tokens-today-limited = { $used } of { $limit } (in all your chats)
stats-tokens-today = { $used } (in all your chats)
# After the model's name, when the person's chosen model is no longer offered.
stats-model-no-longer-offered = (the model you chose is no longer offered)
stats-incognito = Incognito: on (nothing of this chat is stored)
stats-incognito-tokens = Of today's tokens, in incognito: { $tokens }
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

## Sizes and counts. { $shown } is the count with its thousands grouped ("1,234").

size-megabytes = { $size } MB
size-kilobytes = { $size } KB
size-bytes = { $count ->
        [one] { $count } byte
       *[other] { $count } bytes
    }
count-messages = { $count ->
        [one] { $shown } message
       *[other] { $shown } messages
    }
count-tokens = { $count ->
        [one] { $shown } token
       *[other] { $shown } tokens
    }

## Photos, voice notes and documents

# Above the answer to a voice note: what was heard.
media-heard = 🎤 “{ $transcript }”
# Above the answer to a document whose text was cut to fit.
media-document-cut = 📄 The document is long: I read its first { $shown } of { $total } characters.
media-file-too-big = That file is too big for me: Telegram lets bots fetch files of up to 20 MB. Please send a smaller one.
# { $max } is a size, e.g. "1 MB".
media-document-too-big = That document is larger than the { $max } I read. Please send a shorter file, or paste the part that matters.
media-image-too-big = That picture file is too large for the model (over 5 MB). Please send it as a photo instead: Telegram makes it smaller.
media-file-empty = That file is empty, so there is nothing for me to read.
media-image-unreadable = I could not open that picture: it is not a JPEG, PNG, GIF or WebP image, or it is damaged.
media-document-not-text = I could not read that file as text: it looks binary or damaged, or it is not in UTF-8.
media-pdf-unreadable = I could not read that PDF: it seems damaged or protected.
media-pdf-no-text = That PDF has no text I can read; it is probably a scan. Please send its pages as photos.
media-file-unavailable = I could not fetch your file from Telegram just now. Please send it again in a minute.
media-timeout = Fetching and reading your file took too long, so I stopped. Please try again in a minute.
media-voice-not-set-up = Voice notes are not set up on this bot, so I cannot listen to them. Please type your message instead.
media-transcription-unavailable = I could not transcribe your recording: the transcription service is not answering right now. Please try again in a minute, or type it.
media-transcription-refused = I could not make out that recording: the transcription service could not read it. Please record it again, or type it.
media-nothing-heard = I could not hear any words in that recording. Please try again, or type it.
media-vision-not-supported = The model I use cannot look at pictures. Your caption is saved; describe the picture in words, or ask the operator to set VISION_MODEL to a model that can see.

## Stop, /cancel and /retry

# The button under an answer being written.
stop-button = ⏹ Stop
nothing-to-stop = There is nothing to stop: I am not writing an answer for you right now.
# A press on someone else's Stop button.
stop-not-yours = Only the person this answer is for can stop it.
# /cancel in a terminal, which reads the next line only once the answer is complete.
terminal-nothing-to-stop = There is nothing to stop right now. While an answer is being written, Ctrl-C stops it.
nothing-to-retry = There is nothing to answer again: you have not written to me in this chat yet.
retry-while-running = I am still answering your last message. Wait for that answer (or stop it with /cancel), then send /retry.
# What an answer replaced by /retry shows when the new one comes in a message of its own.
replaced-by-newer = ↻ Replaced by a newer answer below.

## /remember

remember-usage = Tell me what to note, e.g. /remember I am vegetarian. To change note 2 (as /memory lists them), write /remember 2 <new text>.
remembered =
    Noted: { $note }
    /memory lists your notes.
already-remembered = I already keep that note: { $note }
note-replaced =
    Note { $number } changed.
    Was: { $old }
    Now: { $new }
note-too-long = That note is { $length } characters long; at most { $max } are allowed. Please shorten it.
too-many-notes = You have added { $max } notes already, as many as I keep. Remove one with /forget <number> (see /memory), or change one with /remember <number> <new text>.

## /model. Model names are never translated.

model-in-use = { $model } answers you.
model-choice-unavailable = The model you chose, { $chosen }, is no longer offered, so { $model } answers you now.
model-unknown = I don't offer a model called “{ $name }”.
model-chosen = From now on { $model } answers you, in all our chats.
# Below the /model menu's buttons.
model-choose-with-buttons = Tap a model to choose it (or write /model <name>):
# Before the list of models where there are no buttons (a terminal).
model-choose-by-name = Choose one with /model <name>:
# A press on someone else's /model menu in a group.
model-menu-not-yours = Only the person who asked for this list can choose here. Write /model for your own.
model-menu-out-of-date = The list of models has changed; here it is again.

## /incognito

incognito-is-on = Incognito is on in this chat: I store nothing of what we say and use no memory of earlier conversations, only our last few messages for a few minutes. /incognito off ends it.
incognito-is-off = Incognito is off: I keep our conversation in this chat and remember it. /incognito on stops that: then I store nothing of what we say and use no memory.
incognito-switched-on = Incognito is on. From now on I store nothing of what we say in this chat and use no memory of earlier conversations (your persona still applies); I only keep our last few messages for a few minutes, and forget them when you switch it off. /incognito off ends it.
incognito-switched-off = Incognito is off. I keep our conversation in this chat again and remember it; nothing from the incognito part was kept.

## Limits

# Instead of an answer, past the daily token limit. { $resets_at } is a UTC time, { $wait } a duration.
daily-limit-reached = You have used your { $limit } tokens for today ({ $used } so far), so I did not send this message to the model, and I did not save it. The limit resets at { $resets_at } (in { $wait }); please send it again then.
# Told once when the person's stored history reached its cap.
stored-history-capped = Your stored history with me has reached its limit of { $megabytes } MB, so I deleted your oldest conversations to make room, and I will keep deleting the oldest ones as new ones come in. /export sends you what I still keep.

## The admins' commands. Setting names (ALLOWED_USERS, …) are never translated.

admin-only-in-private = Admin commands work only in a private chat with me, to keep them out of groups.
allow-usage = Tell me whom to let in by their Telegram id, e.g. /allow 123456789.
block-usage = Tell me whom to block by their Telegram id, e.g. /block 123456789.
unblock-usage = Tell me whose block to lift by their Telegram id, e.g. /unblock 123456789.
limit-usage = Usage: /limit <id> shows a person's daily token limit; /limit <id> <tokens> sets it (e.g. /limit 123456789 50000), /limit <id> off lifts it, /limit <id> default goes back to USER_DAILY_TOKEN_LIMIT.
usage-usage = Usage: /usage for everyone's tokens, or /usage <id> for one person's.
cannot-block-yourself = You cannot block yourself.
cannot-block-admin = People in ADMIN_USERS cannot be blocked; take them out of the setting first.
access-allowed = { $user } may use the bot now.
access-already-allowed = { $user } is already allowed; nothing changed.
access-blocked = { $user } is blocked now: I will not answer them, whatever the allow lists say.
access-already-blocked = { $user } is already blocked.
access-unblocked = { $user } is no longer blocked; ALLOWED_USERS and ALLOW_ALL_USERS decide about them again (/allow lets them in).
access-not-blocked = { $user } is not blocked; nothing changed.
# A daily limit, "50,000 tokens a day", and where it comes from, "(USER_DAILY_TOKEN_LIMIT)".
limit-tokens-a-day = { $count ->
        [one] { $shown } token a day
       *[other] { $shown } tokens a day
    }
limit-none = no limit
limit-set-by-admin = set by admin { $admin } with /limit
limit-admins-exempt = admins are exempt
limit-with-source = { $amount } ({ $source })
limit-of = Daily token limit of { $user }: { $limit }.
# /usage <id>. { $tokens } and { $messages } are counts such as "1,234 tokens", "5 messages".
usage-of =
    Usage of { $user }
    Tokens today: { $today }
    Last { $days } days: { $tokens }, { $messages }
    Limit: { $limit }
usage-today-of-limit = { $used } of { $limit }
usage-nobody = Nobody used any tokens in the last { $days } days.
usage-report-heading = Tokens per person, today · last { $days } days:
# /users
users-admins = Admins: { $ids }
users-allow-all = Allowed: everyone (ALLOW_ALL_USERS)
users-allowed-by-admins = Allowed by admins
users-blocked = Blocked
users-nobody = nobody
# One allowed or blocked person: who decided, and when.
users-rule = { $user } (by { $admin }, { $at })
users-nobody-active = Nobody was active in the last { $days } days.
users-active-heading = Active in the last { $days } days:

## Alerts to admins about strangers

# { $handle } is " (@username)" or nothing.
stranger-alert = Someone not on the allow list wrote to me: { $name }{ $handle }, id { $id }. I told them the bot is private and stored nothing they sent.
stranger-button-allow = Allow
stranger-button-block = Block
# Added to the alert once an admin pressed a button.
stranger-allowed-by = Allowed by { $admin } (id { $admin_id }).
stranger-blocked-by = Blocked by { $admin } (id { $admin_id }).
only-admins-decide = Only admins can decide this.

# The Mini App (the bot's side), and /settings.
command-settings = Show your settings: persona, model, incognito, time zone.
webapp-failed = Something went wrong on my side. Please try again in a moment.
webapp-too-many = That was a lot at once. Please wait { $seconds } s and try again.
webapp-private-chat = Private chat with me
webapp-group-chat = Group chat { $id }
webapp-memory-button = 🧠 See and edit my memory
webapp-settings-button = ⚙️ Change settings
webapp-export-sent = I sent the file to our private chat.
webapp-menu-button = Memory
settings-heading = Your settings:
settings-persona = Persona: { $persona }
settings-persona-default = Persona: the default
settings-model = Model: { $model }
settings-incognito-on = Incognito in this chat: on
settings-incognito-off = Incognito in this chat: off
settings-time-zone = Time zone: { $zone }
settings-time-zone-default = Time zone: { $zone } (the default)
settings-how-to-change = Change them with /persona, /model, /incognito and /timezone.

# Tools: reminders, time zones, /tools.
command-timezone = Show or set your time zone for reminders: /timezone Europe/Berlin, or /timezone reset.
command-reminders = List your reminders, with buttons to cancel them.
command-tools = Show the tools I can use for you.
reminder-due = ⏰ Reminder: { $text }
reminder-late = ⏰ Reminder (due { $due }; I was offline then): { $text }
reminders-heading = Your reminders:
reminders-none = You have no reminders. Ask me, for example: “remind me tomorrow at 9 to call Anna”.
reminders-zone = Times are in your time zone, { $zone }.
reminders-zone-default = Times are in { $zone }; set yours with /timezone, e.g. /timezone Europe/Berlin.
reminder-cancel-button = ✖ Cancel { $number }
reminder-cancelled = Reminder cancelled.
reminder-already-gone = That reminder was already sent or cancelled.
reminder-not-yours = These are someone else's reminders.
timezone-current = Your time zone is { $zone }; it is { $time } there now. Change it with /timezone <zone>, e.g. /timezone America/New_York.
timezone-default = You have not set a time zone, so I use { $zone } (it is { $time } there now). Set yours with /timezone <zone>, e.g. /timezone Europe/Berlin.
timezone-set = Your time zone is now { $zone }; it is { $time } there.
timezone-reset = Your time zone is forgotten; I use { $zone } again.
timezone-unknown = I do not know the time zone “{ $name }”. Use a name like Europe/Berlin, America/New_York or Asia/Tokyo.
tools-heading = Tools I can use for you:
tools-off = Tools are turned off on this bot.
tools-unsupported = The model { $model } cannot use tools, so I answer without them.
tools-incognito-note = In incognito I use only tools that store nothing.

## Inline mode

inline-title = Ask { $bot }
inline-waiting = ⏳ Thinking…

## Mini App page
# The page's sentences (src/webapp/page/), sent to it by /app/api/me. Plain text, no variables.
# The page names app-kind-*, app-role-* and app-access-* (and app-allow, app-block, app-unblock)
# after the values the API gives.
app-title = Your memory
app-tab-memory = Memory
app-tab-search = Search
app-tab-settings = Settings
app-tab-usage = Usage
app-tab-admin = Admin
app-chat = Chat
app-private-chat = Private chat
app-group-chat = Group chats
app-notes = Notes
app-no-notes = No notes yet.
app-since = Since
app-until = until
app-earlier = Earlier versions
app-add-note = Add note
app-add-note-placeholder = Something I should remember…
app-save = Save
app-cancel = Cancel
app-edit = Edit
app-remove = Remove
app-confirm-remove-summary = Remove this summary? I will no longer remember that conversation.
app-summaries = Conversation summaries
app-no-summaries = No summaries yet.
app-search = Search
app-search-placeholder = Words or a question…
app-no-results = Nothing found.
app-kind-message = Message
app-kind-summary = Summary
app-kind-note = Note
app-role-user = You
app-role-assistant = Bot
app-role-system = System
app-persona = Persona
app-persona-placeholder = How should I talk to you? Leave empty for the default.
app-model = Model
app-incognito = Incognito: remember nothing from this chat
app-time-zone = Time zone
app-time-zone-hint = A name like Europe/Berlin; leave empty for the default.
app-export = Export
app-export-json = Download as JSON
app-export-markdown = Download as Markdown
app-tokens-per-day = Tokens per day, last 30 days
app-today = Today
app-daily-limit = Daily limit
app-no-limit = No daily limit
app-images-today = Pictures today
app-speech-today = Speech today
app-admin-usage = Everyone's tokens per day
app-admin-people = People
app-user = User
app-messages = Messages
app-tokens = Tokens
app-limit = Limit
app-access = Access
app-access-allowed = allowed
app-access-blocked = blocked
app-access-admin = admin
app-access-stranger = unknown
app-allow = Allow
app-block = Block
app-unblock = Unblock
app-set-limit = Set limit
app-limit-placeholder = number, off or default
app-strangers = Strangers who wrote
app-no-strangers = No strangers wrote.
app-saved = Saved.
app-error = Something went wrong. Please try again.
app-forbidden = You may not do this.
app-open-from-telegram = Open this page from the bot in Telegram.

## Voice answers, /tts, /voice and /image

command-voice = Choose when I answer aloud too: /voice on, /voice off, or /voice auto (when you speak).
command-tts = Read a text aloud as a voice message: /tts <text>.
command-image = Draw a picture: /image <description>.
# $mode is on, off or auto.
voice-state = Voice answers: { $mode ->
        [on] on (every answer is read aloud too)
        [off] off (text only)
       *[auto] auto (read aloud when you send a voice message)
    }. Change it with /voice on, /voice off or /voice auto.
voice-set = Done. Voice answers: { $mode ->
        [on] on (every answer is read aloud too)
        [off] off (text only)
       *[auto] auto (read aloud when you send a voice message)
    }.
speech-not-set-up = Speaking is not set up on this bot (the operator can set TTS_BASE_URL).
tts-usage = Write the text to read after the command: /tts <text>.
tts-too-long = That text has { $length } characters; I read at most { $max } aloud at once. Please send a shorter one.
speech-failed = I could not read that aloud just now: the speech service did not answer. Please try again later.
speech-limit-reached = You have used today's { $limit } seconds of speech, so you get text only until { $resets_at } (in { $wait }).
image-not-set-up = Drawing is not set up on this bot (the operator can set IMAGE_BASE_URL).
image-usage = Write what to draw after the command: /image <description>, for example /image a red fox in the snow.
image-too-long = That description has { $length } characters; at most { $max } are accepted. Please shorten it.
image-unsafe = The image service declined to draw that. Its reason: { $reason }
image-unsafe-no-reason = The image service declined to draw that.
image-timed-out = The image service took too long to draw that. Please try again later.
image-failed = I could not draw that just now: the image service failed. Please try again later.
image-limit-reached = You have used today's { $limit } pictures. You can ask for more after { $resets_at } (in { $wait }).
stats-images-today = Pictures today: { $used }
stats-images-today-limited = Pictures today: { $used } of { $limit }
stats-speech-today = Speech today: { $used } s
stats-speech-today-limited = Speech today: { $used } s of { $limit } s
usage-media = Pictures: { $images }, speech: { $seconds } s
terminal-cannot-send-media = Voice messages and pictures are sent in Telegram; a terminal cannot play or show them.
