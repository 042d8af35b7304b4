-- Reminders the model set for a person (`set_reminder`), sent in the chat they were asked in.
-- `state` moves pending -> claimed -> sent, or to cancelled (by the person) or failed (Telegram
-- kept refusing). A claim holds until `lease_until`: a reminder claimed and not marked sent by
-- then is claimable again (its sender died, or it waits to be retried). Times are UTC ms.
CREATE TABLE reminders (
    id INTEGER PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    text TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'claimed', 'sent', 'cancelled', 'failed')),
    claimed_by TEXT,
    lease_until INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    sent_at INTEGER,
    telegram_message_id INTEGER
);

-- The delivery job's look: what is waiting, by when it is due.
CREATE INDEX reminders_waiting ON reminders (due_at) WHERE state IN ('pending', 'claimed');
CREATE INDEX reminders_by_person ON reminders (user_id, chat_id);

-- The person's time zone (an IANA name), for reading and showing reminder times.
ALTER TABLE user_settings ADD COLUMN time_zone TEXT;
