-- How much text each person has stored, across all their chats: the UTF-8 byte length of their
-- messages (the bot's replies to them included), session summaries and notes. USER_MAX_STORED_MB
-- caps it per person, so that one person cannot fill DATABASE_MAX_SIZE_MB for everyone. Triggers
-- keep the count exact on every insert, delete (by whoever: /clear, the purge, the cap, a
-- cascade) and rewrite, so checking a person is one read of one row.
CREATE TABLE stored_bytes (
    user_id INTEGER PRIMARY KEY NOT NULL,
    bytes   INTEGER NOT NULL
);

INSERT INTO stored_bytes (user_id, bytes)
SELECT user_id, sum(bytes)
FROM (SELECT user_id, length(CAST(content AS BLOB)) AS bytes FROM messages
      UNION ALL
      SELECT user_id, length(CAST(summary AS BLOB)) FROM session_summaries
      UNION ALL
      SELECT user_id, length(CAST(note AS BLOB)) FROM user_notes)
GROUP BY user_id;

CREATE TRIGGER messages_add_stored_bytes AFTER INSERT ON messages BEGIN
    INSERT INTO stored_bytes (user_id, bytes)
    VALUES (new.user_id, length(CAST(new.content AS BLOB)))
    ON CONFLICT (user_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER messages_remove_stored_bytes AFTER DELETE ON messages BEGIN
    UPDATE stored_bytes SET bytes = bytes - length(CAST(old.content AS BLOB))
    WHERE user_id = old.user_id;
END;

CREATE TRIGGER messages_rewrite_stored_bytes AFTER UPDATE OF content ON messages BEGIN
    UPDATE stored_bytes
    SET bytes = bytes - length(CAST(old.content AS BLOB)) + length(CAST(new.content AS BLOB))
    WHERE user_id = new.user_id;
END;

CREATE TRIGGER session_summaries_add_stored_bytes AFTER INSERT ON session_summaries BEGIN
    INSERT INTO stored_bytes (user_id, bytes)
    VALUES (new.user_id, length(CAST(new.summary AS BLOB)))
    ON CONFLICT (user_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER session_summaries_remove_stored_bytes AFTER DELETE ON session_summaries BEGIN
    UPDATE stored_bytes SET bytes = bytes - length(CAST(old.summary AS BLOB))
    WHERE user_id = old.user_id;
END;

CREATE TRIGGER session_summaries_rewrite_stored_bytes AFTER UPDATE OF summary ON session_summaries
BEGIN
    UPDATE stored_bytes
    SET bytes = bytes - length(CAST(old.summary AS BLOB)) + length(CAST(new.summary AS BLOB))
    WHERE user_id = new.user_id;
END;

CREATE TRIGGER user_notes_add_stored_bytes AFTER INSERT ON user_notes BEGIN
    INSERT INTO stored_bytes (user_id, bytes)
    VALUES (new.user_id, length(CAST(new.note AS BLOB)))
    ON CONFLICT (user_id) DO UPDATE SET bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER user_notes_remove_stored_bytes AFTER DELETE ON user_notes BEGIN
    UPDATE stored_bytes SET bytes = bytes - length(CAST(old.note AS BLOB))
    WHERE user_id = old.user_id;
END;

CREATE TRIGGER user_notes_rewrite_stored_bytes AFTER UPDATE OF note ON user_notes BEGIN
    UPDATE stored_bytes
    SET bytes = bytes - length(CAST(old.note AS BLOB)) + length(CAST(new.note AS BLOB))
    WHERE user_id = new.user_id;
END;

-- People told that their history reached the cap. The row stays while the cap keeps trimming
-- their oldest sessions, so they are told once, not at every trim, and not again after a
-- restart; it goes when their history is back under half the cap, so that reaching the cap
-- again is news again.
CREATE TABLE stored_bytes_notices (
    user_id INTEGER PRIMARY KEY NOT NULL,
    told_at INTEGER NOT NULL
);

-- The cap deletes a person's oldest sessions first, in all their chats.
CREATE INDEX sessions_by_user_activity ON sessions (user_id, last_activity_at);
