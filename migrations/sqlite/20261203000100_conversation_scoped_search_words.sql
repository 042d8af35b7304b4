-- Recall's cost no longer grows with other people's messages. The index used to hold plain words
-- with an owner column beside them: FTS5 then read each search word's doclist across every
-- conversation before intersecting it with the owner's, and bm25() counted each word's rows
-- across everyone. Now every indexed word carries its conversation: "parcel" in a message of
-- user 7 in chat 5 is indexed as "o7c5xparcel" (the `owner` token, `x`, the word; "n" marks a
-- negative chat id, and the `x` ends the owner, so that no owner's words can be another's). A
-- search for "o7c5xparcel" or the prefix "o7c5xparc"* reads only that conversation's entries,
-- and BM25's document frequencies are the conversation's own.
--
-- The words are made in SQL, by the view below, so that every connection (the sqlite3 shell
-- included) computes the same text when FTS5 indexes a message and when it removes one; a
-- 'delete' with other words than were indexed would corrupt the index. Every separator listed
-- becomes a space (unicode61 splits there anyway) and the owner goes in front of each remaining
-- run. Text after a separator not in the list (an emoji, a rare symbol) stays without its owner
-- and cannot be found; no search can reach another conversation through it, since every search
-- word starts with the searcher's owner. The replacements are split over nested subqueries
-- only to keep each expression shallow enough for older sqlite3 shells to parse the schema.
-- It is a view, not a generated column of `messages`, so that reading messages never computes it.
CREATE VIEW message_search_words (id, words) AS
SELECT id, owner || 'x' || replace(nullif(trim(text), ''), ' ', ' ' || owner || 'x')
FROM (SELECT id, owner,
             replace(replace(replace(replace(text, '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' ') AS text
    FROM (SELECT id, owner,
                 replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(text, '”', ' '), '„', ' '), '«', ' '), '»', ' '), '‹', ' '), '›', ' '), '–', ' '), '—', ' '), '…', ' '), '·', ' '), '•', ' '), '¿', ' '), '¡', ' '), '  ', ' ') AS text
        FROM (SELECT id, owner,
                     replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(text, '{', ' '), '|', ' '), '}', ' '), '~', ' '), char(9), ' '), char(13), ' '), char(10), ' '), char(160), ' '), char(8239), ' '), char(8201), ' '), '‘', ' '), '’', ' '), '‚', ' '), '“', ' ') AS text
            FROM (SELECT id, owner,
                         replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(text, '/', ' '), ':', ' '), ';', ' '), '<', ' '), '=', ' '), '>', ' '), '?', ' '), '@', ' '), '[', ' '), '\', ' '), ']', ' '), '^', ' '), '_', ' '), '`', ' ') AS text
                FROM (SELECT id, owner,
                             replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(content, '!', ' '), '"', ' '), '#', ' '), '$', ' '), '%', ' '), '&', ' '), '''', ' '), '(', ' '), ')', ' '), '*', ' '), '+', ' '), ',', ' '), '-', ' '), '.', ' ') AS text
                    FROM messages)))));

DROP TRIGGER messages_fts_after_delete;
DROP TRIGGER messages_fts_after_update;
DROP TABLE messages_fts;

CREATE VIRTUAL TABLE messages_fts USING fts5 (
    words,
    content = 'message_search_words',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
-- As before: secure-delete only inside /clear's own transaction (storage/purge.rs).
INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 0);

-- The index starts empty and the background batches (storage/search_index.rs) fill it again from
-- the first message on, without holding up the start: a search meanwhile finds what is indexed.
UPDATE search_index_progress SET indexed_through = 0;

-- Only an indexed message has entries to remove. Before the row goes: the view computes its words
-- from the row itself.
CREATE TRIGGER messages_fts_before_delete BEFORE DELETE ON messages
WHEN old.id <= (SELECT indexed_through FROM search_index_progress) BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, words)
    SELECT 'delete', id, words FROM message_search_words WHERE id = old.id;
END;

-- A message not yet indexed is indexed later with its new text.
CREATE TRIGGER messages_fts_before_update BEFORE UPDATE OF content ON messages
WHEN old.id <= (SELECT indexed_through FROM search_index_progress) BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, words)
    SELECT 'delete', id, words FROM message_search_words WHERE id = old.id;
END;

CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF content ON messages
WHEN new.id <= (SELECT indexed_through FROM search_index_progress) BEGIN
    INSERT INTO messages_fts (rowid, words)
    SELECT id, words FROM message_search_words WHERE id = new.id;
END;
