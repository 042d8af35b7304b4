-- What the summarizer needs to find its work quickly: whether a session has been dealt with, how
-- often summarizing it failed, and when to try again.
ALTER TABLE sessions ADD COLUMN summarized INTEGER NOT NULL DEFAULT 0 CHECK (summarized IN (0, 1));
ALTER TABLE sessions ADD COLUMN summary_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN summary_retry_at INTEGER;

-- Closed sessions still waiting for a summary: a handful at any time, so a small partial index.
CREATE INDEX sessions_awaiting_summary ON sessions (closed_at)
    WHERE closed_at IS NOT NULL AND summarized = 0;

-- Open sessions by last activity, to close the ones idle past the timeout.
CREATE INDEX sessions_open_by_activity ON sessions (last_activity_at) WHERE closed_at IS NULL;

CREATE TRIGGER session_summaries_mark_summarized AFTER INSERT ON session_summaries BEGIN
    UPDATE sessions SET summarized = 1, summary_retry_at = NULL WHERE id = new.session_id;
END;
