-- Messages brought in by `telemem import`: see migrations/sqlite/20261204000100_imported_messages.sql.
ALTER TABLE messages ADD COLUMN import_key TEXT;

CREATE UNIQUE INDEX messages_one_per_import_key ON messages (chat_id, user_id, import_key)
    WHERE import_key IS NOT NULL;
