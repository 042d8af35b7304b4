-- Durable facts and preferences a user stated ("always answer in English", "my company is
-- Chemitek"), extracted by the summarizer and injected into every prompt of that conversation
-- until changed. Keyed by (chat, user) like all history: a fact told in a private chat never
-- surfaces in a group.
CREATE TABLE user_notes (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id           INTEGER NOT NULL,
    user_id           INTEGER NOT NULL,
    note              TEXT    NOT NULL,
    source_session_id INTEGER REFERENCES sessions (id) ON DELETE SET NULL,
    created_at        INTEGER NOT NULL,
    -- Last time the summarizer confirmed the note still holds; the purge goes by this.
    confirmed_at      INTEGER NOT NULL,
    UNIQUE (chat_id, user_id, note)
);

CREATE INDEX user_notes_by_time ON user_notes (confirmed_at);
