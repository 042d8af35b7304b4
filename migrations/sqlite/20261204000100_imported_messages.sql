-- Messages brought in by `telemem import` carry a key derived from where they came from (the
-- export's chat and message id, or the line's time, sender and text), unique within their
-- conversation, so that importing the same file again stores nothing twice. Messages written
-- live have none: a person may send the same text twice.
ALTER TABLE messages ADD COLUMN import_key TEXT;

CREATE UNIQUE INDEX messages_one_per_import_key ON messages (chat_id, user_id, import_key)
    WHERE import_key IS NOT NULL;
