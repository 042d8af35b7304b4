-- Notes are recalled by meaning too (storage/vectors.rs, memory/embedder.rs): every note, the
-- summarizer's and those added by hand, gets an embedding vector in the background, like messages
-- and session summaries.
--
-- A table of its own rather than a third kind in `memory_vectors`: that table's CHECK allows kinds
-- 0 and 1, and SQLite changes a CHECK only by copying the table, every message's vector with it.
-- Keyed by the conversation first, like `memory_vectors`, so a search reads one person's rows.
-- `vector` is the unit-length embedding scaled to signed bytes, of the model in
-- `embedding_progress` (a changed model deletes these too).
CREATE TABLE note_vectors (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    note_id INTEGER NOT NULL,
    vector  BLOB    NOT NULL,
    PRIMARY KEY (chat_id, user_id, note_id)
) WITHOUT ROWID;

-- A vector goes with its note (`/forget`, the summarizer dropping it, `/clear`, the purge).
CREATE TRIGGER user_notes_delete_vector AFTER DELETE ON user_notes BEGIN
    DELETE FROM note_vectors
    WHERE chat_id = old.chat_id AND user_id = old.user_id AND note_id = old.id;
END;

-- A note given another text loses its vector and is embedded again with the new one.
CREATE TRIGGER user_notes_update_vector AFTER UPDATE OF note ON user_notes
WHEN old.note IS NOT new.note BEGIN
    DELETE FROM note_vectors
    WHERE chat_id = old.chat_id AND user_id = old.user_id AND note_id = old.id;
END;
