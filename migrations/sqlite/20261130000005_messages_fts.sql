-- Full-text index over message content, for recalling relevant older messages. It is an
-- external-content FTS5 table (the text lives only in `messages`), kept in sync by triggers.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content,
    content = 'messages',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- With secure-delete, a deleted message's terms are removed from the index pages themselves,
-- so /clear and the purge leave no trace of the text behind in the FTS shadow tables.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 1);

CREATE TRIGGER messages_fts_after_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;

CREATE TRIGGER messages_fts_after_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
END;
