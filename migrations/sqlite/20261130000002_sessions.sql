-- A session is one stretch of conversation between a user and the bot in one chat; it closes after
-- an idle timeout or on /reset. At most one session per (chat, user) is open at a time.
CREATE TABLE sessions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id          INTEGER NOT NULL,
    user_id          INTEGER NOT NULL,
    started_at       INTEGER NOT NULL,
    last_activity_at INTEGER NOT NULL,
    closed_at        INTEGER,
    CHECK (last_activity_at >= started_at)
);

CREATE UNIQUE INDEX sessions_one_open_per_conversation
    ON sessions (chat_id, user_id) WHERE closed_at IS NULL;

CREATE INDEX sessions_by_conversation ON sessions (chat_id, user_id, started_at);

-- Serves the purge, which removes sessions whose last activity is older than the cut-off.
CREATE INDEX sessions_by_last_activity ON sessions (last_activity_at);
