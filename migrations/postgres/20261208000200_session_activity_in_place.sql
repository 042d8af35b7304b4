-- Every stored message moves its session's last activity (the messages' insert trigger). With no
-- index reading `last_activity_at`, PostgreSQL updates the session in place (a HOT update)
-- instead of writing a new entry in each of the table's indexes, twice a turn. What read those
-- indexes reads others:
-- - the purge's batches of old sessions go by start (a session is never last active before it
--   started, so those last active before the cutoff started before it too);
-- - the idle sweep reads the open sessions through the one-open-session index;
-- - a person's sessions (their chats, their oldest closed session) go by person.
DROP INDEX sessions_by_last_activity;
DROP INDEX sessions_open_by_activity;
DROP INDEX sessions_by_user_activity;
CREATE INDEX sessions_by_start ON sessions (started_at);
CREATE INDEX sessions_by_user ON sessions (user_id);
-- Room on each page for the updated row beside the old one.
ALTER TABLE sessions SET (fillfactor = 90);
