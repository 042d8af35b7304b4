-- Messages brought in by `telemem import`: see migrations/sqlite/20261204000100_imported_messages.sql.
ALTER TABLE messages ADD COLUMN import_key TEXT;

CREATE UNIQUE INDEX messages_one_per_import_key ON messages (chat_id, user_id, import_key)
    WHERE import_key IS NOT NULL;

-- An import stores up to hundreds of thousands of messages in one transaction. The per-row
-- bookkeeping would update the same few rows (the person's stored bytes, settings and days) once
-- per message, and within one transaction PostgreSQL keeps every version of a row it updated:
-- each update walks the versions before it, so the import slowed down quadratically. Imported
-- rows skip the per-row trigger; the import does the same bookkeeping once per batch
-- (storage/postgres/import.rs), which must follow any change to messages_after_insert().
DROP TRIGGER messages_after_insert ON messages;
CREATE TRIGGER messages_after_insert AFTER INSERT ON messages
    FOR EACH ROW WHEN (NEW.import_key IS NULL) EXECUTE FUNCTION messages_after_insert();
