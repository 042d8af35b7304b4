-- Notes a person added themselves (`/remember`, or changed with `/remember <n> <text>`). The
-- summarizer keeps its own list of notes complete and up to date, deleting those it no longer
-- lists; a note added by hand is the person's own words and is never dropped or rewritten by it,
-- only removed by `/forget`, `/clear` or the purge.
ALTER TABLE user_notes ADD COLUMN added_by_hand INTEGER NOT NULL DEFAULT 0
    CHECK (added_by_hand IN (0, 1));
