-- One LLM-written (or extractive fallback) summary per closed session.
CREATE TABLE session_summaries (
    session_id INTEGER PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    chat_id    INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    summary    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE INDEX session_summaries_by_conversation
    ON session_summaries (chat_id, user_id, created_at);
