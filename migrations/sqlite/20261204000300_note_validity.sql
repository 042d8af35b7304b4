-- Facts with a time. `valid_from` is when the note's current text became true as far as the
-- conversation tells: the time of the session in which the person stated it (or of the /remember
-- that wrote it), not the time the summarizer ran. `earlier` holds what the note said before it
-- changed, newest first and at most a few values, as a JSON array of objects
-- {"note": text, "from_ms": ms or null, "until_ms": ms}; NULL while the note never changed.
ALTER TABLE user_notes ADD COLUMN valid_from INTEGER NOT NULL DEFAULT 0;
UPDATE user_notes SET valid_from = created_at;
ALTER TABLE user_notes ADD COLUMN earlier TEXT;

-- The person's stored bytes count a note's earlier values too: they are their data as much as
-- the note. `earlier` is NULL on every existing row, so the counts kept so far stay exact.
DROP TRIGGER user_notes_add_stored_bytes;
DROP TRIGGER user_notes_remove_stored_bytes;
DROP TRIGGER user_notes_rewrite_stored_bytes;

CREATE TRIGGER user_notes_add_stored_bytes AFTER INSERT ON user_notes BEGIN
    INSERT INTO stored_bytes (user_id, bytes)
    VALUES (new.user_id, length(CAST(new.note AS BLOB))
                         + coalesce(length(CAST(new.earlier AS BLOB)), 0))
    ON CONFLICT (user_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER user_notes_remove_stored_bytes AFTER DELETE ON user_notes BEGIN
    UPDATE stored_bytes
    SET bytes = bytes - length(CAST(old.note AS BLOB))
                      - coalesce(length(CAST(old.earlier AS BLOB)), 0)
    WHERE user_id = old.user_id;
END;

CREATE TRIGGER user_notes_rewrite_stored_bytes AFTER UPDATE OF note, earlier ON user_notes BEGIN
    UPDATE stored_bytes
    SET bytes = bytes - length(CAST(old.note AS BLOB))
                      - coalesce(length(CAST(old.earlier AS BLOB)), 0)
                      + length(CAST(new.note AS BLOB))
                      + coalesce(length(CAST(new.earlier AS BLOB)), 0)
    WHERE user_id = new.user_id;
END;
