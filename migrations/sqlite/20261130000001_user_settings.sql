-- Per-user settings. One row per Telegram user; the persona is the user's own instruction for how
-- the bot should behave for them. Times are UTC milliseconds since the Unix epoch.
CREATE TABLE user_settings (
    user_id        INTEGER PRIMARY KEY NOT NULL,
    persona        TEXT,
    model          TEXT,
    created_at     INTEGER NOT NULL,
    last_active_at INTEGER NOT NULL
);
