-- Recall by meaning (storage/vectors.rs, memory/embedder.rs): every message and session summary
-- gets an embedding vector from the configured embedding model, in the background.
--
-- One row per vector, keyed by its conversation first, so that the vectors of one (chat, user)
-- lie together and a search by meaning reads only that person's rows. `kind` says what the
-- vector belongs to: 0 a message (`source_id` = messages.id), 1 a session summary (`source_id` =
-- session_summaries.session_id). `vector` is the unit-length embedding scaled to signed bytes
-- (sqlite-vec's int8 vectors): a quarter of the size of 32-bit floats, with cosine similarity
-- the same to about two decimal places.
CREATE TABLE memory_vectors (
    chat_id   INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    kind      INTEGER NOT NULL CHECK (kind IN (0, 1)),
    source_id INTEGER NOT NULL,
    vector    BLOB    NOT NULL,
    PRIMARY KEY (chat_id, user_id, kind, source_id)
) WITHOUT ROWID;

-- Which model the stored vectors come from, and how far messages are embedded: every message
-- with an id up to `messages_through` has its vector (or was deleted, or could not be embedded).
-- Message ids only grow, so the messages still to embed are exactly those with a larger id.
-- When the configured model differs from `model`, every vector is deleted and the mark starts
-- again from 0: vectors of two models cannot be compared.
CREATE TABLE embedding_progress (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    model            TEXT,
    messages_through INTEGER NOT NULL
);
INSERT INTO embedding_progress (id, model, messages_through) VALUES (1, NULL, 0);

-- A vector goes with its row, whoever deletes it (/clear, the purge, the size cap).
CREATE TRIGGER messages_delete_vector AFTER DELETE ON messages BEGIN
    DELETE FROM memory_vectors
    WHERE chat_id = old.chat_id AND user_id = old.user_id AND kind = 0 AND source_id = old.id;
END;

CREATE TRIGGER session_summaries_delete_vector AFTER DELETE ON session_summaries BEGIN
    DELETE FROM memory_vectors
    WHERE chat_id = old.chat_id AND user_id = old.user_id AND kind = 1
      AND source_id = old.session_id;
END;

-- A rewritten summary loses its vector and is embedded again with its new text.
CREATE TRIGGER session_summaries_update_vector AFTER UPDATE OF summary ON session_summaries BEGIN
    DELETE FROM memory_vectors
    WHERE chat_id = old.chat_id AND user_id = old.user_id AND kind = 1
      AND source_id = old.session_id;
END;
