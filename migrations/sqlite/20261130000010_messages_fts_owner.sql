-- Recall searches one conversation's messages. Filtering the full-text matches of all users by
-- (chat, user) afterwards costs time proportional to everyone's matches; instead each indexed row
-- carries an owner token ("o<user>c<chat>", "n" for a negative chat id), and a recall query
-- intersects that token's short posting list with the search terms inside FTS5 itself.
DROP TRIGGER messages_fts_after_insert;
DROP TRIGGER messages_fts_after_delete;
DROP TRIGGER messages_fts_after_update;
DROP TABLE messages_fts;

ALTER TABLE messages ADD COLUMN owner TEXT GENERATED ALWAYS AS (
    'o' || user_id || 'c' || CASE WHEN chat_id < 0 THEN 'n' || (-chat_id) ELSE chat_id END
) VIRTUAL;

CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content,
    owner,
    content = 'messages',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- No permanent secure-delete: it rewrites index pages on every delete, which made the purge of
-- 250,000 rows take minutes. The purge leaves delete markers that FTS5's automatic merges drop;
-- /clear switches secure-delete on for its own transaction, so a user's clear leaves no trace
-- of their text in the index pages right away.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 0);
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

CREATE TRIGGER messages_fts_after_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content, owner) VALUES (new.id, new.content, new.owner);
END;

CREATE TRIGGER messages_fts_after_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content, owner)
    VALUES ('delete', old.id, old.content, old.owner);
END;

CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content, owner)
    VALUES ('delete', old.id, old.content, old.owner);
    INSERT INTO messages_fts (rowid, content, owner) VALUES (new.id, new.content, new.owner);
END;
