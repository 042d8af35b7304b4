-- Fewer writes per chat turn. Each statement of a turn is a round trip to the database thread,
-- so the bookkeeping that always goes with a message is done by triggers in the same statement:
--
-- * a user's message records the user's activity (their settings row, created if missing);
-- * a reply carries the id of the Telegram update it answers (`update_id`): storing it marks the
--   update `replying`, and recording the Telegram id of the message that carried it marks the
--   update `done`. Reply and mark stay one atomic statement, as the crash-safe intake needs.
ALTER TABLE messages ADD COLUMN update_id INTEGER;

CREATE TRIGGER messages_touch_user AFTER INSERT ON messages WHEN new.role = 'user' BEGIN
    INSERT INTO user_settings (user_id, created_at, last_active_at)
    VALUES (new.user_id, new.created_at, new.created_at)
    ON CONFLICT (user_id) DO UPDATE
        SET last_active_at = max(last_active_at, excluded.last_active_at);
END;

CREATE TRIGGER messages_reply_marks_update_replying AFTER INSERT ON messages
WHEN new.role = 'assistant' AND new.update_id IS NOT NULL BEGIN
    UPDATE processed_updates SET state = 'replying'
    WHERE update_id = new.update_id AND state = 'received';
END;

CREATE TRIGGER messages_delivered_reply_marks_update_done
AFTER UPDATE OF telegram_message_id ON messages
WHEN new.role = 'assistant' AND new.update_id IS NOT NULL BEGIN
    UPDATE processed_updates SET state = 'done', payload = NULL WHERE update_id = new.update_id;
END;
