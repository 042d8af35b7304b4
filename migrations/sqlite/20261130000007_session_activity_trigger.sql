-- A session's last activity is the time of its newest message. Keeping that invariant in a trigger
-- makes storing a message a single statement (one round trip, no explicit transaction) instead of
-- an INSERT and an UPDATE in a transaction: the chat turn's hot path.
CREATE TRIGGER messages_touch_session AFTER INSERT ON messages BEGIN
    UPDATE sessions SET last_activity_at = max(last_activity_at, new.created_at)
    WHERE id = new.session_id;
END;
