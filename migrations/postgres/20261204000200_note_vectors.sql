-- Notes are recalled by meaning too: see migrations/sqlite/20261204000200_note_vectors.sql. A
-- table of its own, like SQLite's, so that both backends keep the same shape.
CREATE TABLE note_vectors (
    chat_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    note_id BIGINT NOT NULL,
    vector  BYTEA  NOT NULL,
    PRIMARY KEY (chat_id, user_id, note_id)
);

-- A vector goes with its note, and a note given another text loses it (embedded again).
CREATE FUNCTION user_notes_drop_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.note IS DISTINCT FROM OLD.note THEN
        DELETE FROM note_vectors
        WHERE chat_id = OLD.chat_id AND user_id = OLD.user_id AND note_id = OLD.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER user_notes_drop_vector AFTER DELETE OR UPDATE OF note ON user_notes
    FOR EACH ROW EXECUTE FUNCTION user_notes_drop_vector();
