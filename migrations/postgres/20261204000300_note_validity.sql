-- Facts with a time. `valid_from` is when the note's current text became true as far as the
-- conversation tells: the time of the session in which the person stated it (or of the /remember
-- that wrote it), not the time the summarizer ran. `earlier` holds what the note said before it
-- changed, newest first and at most a few values, as a JSON array of objects
-- {"note": text, "from_ms": ms or null, "until_ms": ms}; NULL while the note never changed.
ALTER TABLE user_notes ADD COLUMN valid_from BIGINT;
UPDATE user_notes SET valid_from = created_at;
ALTER TABLE user_notes ALTER COLUMN valid_from SET NOT NULL;
ALTER TABLE user_notes ADD COLUMN earlier TEXT;

-- The person's stored bytes count a note's earlier values too: they are their data as much as
-- the note. `earlier` is NULL on every existing row, so the counts kept so far stay exact.
CREATE OR REPLACE FUNCTION user_notes_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO stored_bytes (user_id, bytes)
        VALUES (NEW.user_id, octet_length(NEW.note) + coalesce(octet_length(NEW.earlier), 0))
        ON CONFLICT (user_id) DO UPDATE SET bytes = stored_bytes.bytes + excluded.bytes;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE stored_bytes
        SET bytes = bytes - octet_length(OLD.note) - coalesce(octet_length(OLD.earlier), 0)
                          + octet_length(NEW.note) + coalesce(octet_length(NEW.earlier), 0)
        WHERE user_id = NEW.user_id;
    ELSE
        UPDATE stored_bytes
        SET bytes = bytes - octet_length(OLD.note) - coalesce(octet_length(OLD.earlier), 0)
        WHERE user_id = OLD.user_id;
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER user_notes_stored_bytes ON user_notes;
CREATE TRIGGER user_notes_stored_bytes AFTER INSERT OR UPDATE OF note, earlier OR DELETE
    ON user_notes FOR EACH ROW EXECUTE FUNCTION user_notes_stored_bytes();
