-- The full-text index is brought up to date in batches (storage/search_index.rs), no longer by a
-- trigger inside every message's insert. Indexing one message per transaction made FTS5 write a
-- new segment and rewrite its structure record at every commit, and merge those tiny segments
-- again and again: at 1,000 chat turns/s that was about a quarter of the bot's CPU and the
-- writer's slowest rounds (docs/PERFORMANCE.md). A batch of hundreds of messages costs FTS5
-- one segment. Searches stay exact: a search that could miss a message not yet indexed first
-- brings the index up to date.
--
-- `indexed_through`: every message with an id up to this one is in the index (or was deleted).
-- Message ids only grow (AUTOINCREMENT), and every write is serialized, so the messages not yet
-- indexed are exactly those with a larger id. Everything stored so far was indexed by the trigger.
CREATE TABLE search_index_progress (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL
);
INSERT INTO search_index_progress (id, indexed_through)
SELECT 1, coalesce(max(id), 0) FROM messages;

DROP TRIGGER messages_fts_after_insert;

-- Only an indexed message has entries to remove: FTS5's 'delete' of a row it does not hold with
-- that text would corrupt the index.
DROP TRIGGER messages_fts_after_delete;
CREATE TRIGGER messages_fts_after_delete AFTER DELETE ON messages
WHEN old.id <= (SELECT indexed_through FROM search_index_progress) BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content, owner)
    VALUES ('delete', old.id, old.content, old.owner);
END;

-- A message not yet indexed is indexed later with its new text.
DROP TRIGGER messages_fts_after_update;
CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF content ON messages
WHEN old.id <= (SELECT indexed_through FROM search_index_progress) BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content, owner)
    VALUES ('delete', old.id, old.content, old.owner);
    INSERT INTO messages_fts (rowid, content, owner) VALUES (new.id, new.content, new.owner);
END;
