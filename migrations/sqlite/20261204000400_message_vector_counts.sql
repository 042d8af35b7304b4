-- The search by meaning keeps each conversation's message vectors in memory (storage/
-- vector_cache.rs) and must know, with one read, whether what it holds is still what is stored,
-- whoever wrote since: this process, another replica, `telemem import`, the purge. Per
-- conversation, how many message vectors were ever added and ever removed; both only grow, so
-- an equal pair means nothing changed. Nothing added since and nothing removed means the held
-- vectors are still current; more added and nothing removed means only the newer ones need
-- reading. A vector replaced in place counts as one removed and one added.
CREATE TABLE message_vector_counts (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    added   INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;

INSERT INTO message_vector_counts (chat_id, user_id, added, removed)
SELECT chat_id, user_id, count(*), 0 FROM memory_vectors WHERE kind = 0 GROUP BY chat_id, user_id;

-- BEFORE, so that an `INSERT OR REPLACE` over an existing row (whose delete fires no trigger
-- without recursive triggers) still counts the replaced vector as removed.
CREATE TRIGGER memory_vectors_count_added BEFORE INSERT ON memory_vectors WHEN new.kind = 0
BEGIN
    INSERT INTO message_vector_counts (chat_id, user_id, added, removed)
    VALUES (new.chat_id, new.user_id, 1,
            EXISTS (SELECT 1 FROM memory_vectors
                    WHERE chat_id = new.chat_id AND user_id = new.user_id AND kind = 0
                      AND source_id = new.source_id))
    ON CONFLICT (chat_id, user_id) DO UPDATE
    SET added = added + 1, removed = removed + excluded.removed;
END;

CREATE TRIGGER memory_vectors_count_removed AFTER DELETE ON memory_vectors WHEN old.kind = 0
BEGIN
    UPDATE message_vector_counts SET removed = removed + 1
    WHERE chat_id = old.chat_id AND user_id = old.user_id;
END;

CREATE TRIGGER memory_vectors_count_replaced AFTER UPDATE ON memory_vectors
WHEN old.kind = 0 OR new.kind = 0
BEGIN
    UPDATE message_vector_counts SET added = added + 1, removed = removed + 1
    WHERE chat_id = old.chat_id AND user_id = old.user_id;
END;
