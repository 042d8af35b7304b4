-- The search by meaning keeps each conversation's message vectors in memory (storage/
-- vector_cache.rs): see migrations/sqlite/20261204000400_message_vector_counts.sql. Per
-- conversation, how many message vectors were ever added and ever removed, whichever replica or
-- process wrote them; an update in place counts as one removed and one added.
CREATE TABLE message_vector_counts (
    chat_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    added   BIGINT NOT NULL,
    removed BIGINT NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);

INSERT INTO message_vector_counts (chat_id, user_id, added, removed)
SELECT chat_id, user_id, count(*), 0 FROM memory_vectors WHERE kind = 0 GROUP BY chat_id, user_id;

CREATE FUNCTION memory_vectors_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' AND new.kind = 0 THEN
        INSERT INTO message_vector_counts (chat_id, user_id, added, removed)
        VALUES (new.chat_id, new.user_id, 1, 0)
        ON CONFLICT (chat_id, user_id) DO UPDATE
        SET added = message_vector_counts.added + 1;
    ELSIF TG_OP = 'DELETE' AND old.kind = 0 THEN
        UPDATE message_vector_counts SET removed = removed + 1
        WHERE chat_id = old.chat_id AND user_id = old.user_id;
    ELSIF TG_OP = 'UPDATE' AND (old.kind = 0 OR new.kind = 0) THEN
        UPDATE message_vector_counts SET added = added + 1, removed = removed + 1
        WHERE chat_id = old.chat_id AND user_id = old.user_id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER memory_vectors_count AFTER INSERT OR UPDATE OR DELETE ON memory_vectors
    FOR EACH ROW EXECUTE FUNCTION memory_vectors_count();
