-- Every message exchanged, user and assistant alike, keyed by (chat, user) so that members of a
-- group never share history.
CREATE TABLE messages (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id             INTEGER NOT NULL,
    user_id             INTEGER NOT NULL,
    session_id          INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role                TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    content             TEXT    NOT NULL,
    created_at          INTEGER NOT NULL,
    tokens_in           INTEGER NOT NULL DEFAULT 0,
    tokens_out          INTEGER NOT NULL DEFAULT 0,
    telegram_message_id INTEGER
);

-- The history query ("last N of this (chat, user) since T, newest first") is a range scan of this
-- index followed by a short walk backwards.
CREATE INDEX messages_by_conversation_time ON messages (chat_id, user_id, created_at);

-- Serves the batched purge of messages older than the cut-off.
CREATE INDEX messages_by_time ON messages (created_at);

-- Serves the cascade from sessions and per-session reads (summaries).
CREATE INDEX messages_by_session ON messages (session_id);
