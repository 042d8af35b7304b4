-- Crash-safe intake: an update is stored (with its payload) before Telegram is told it arrived,
-- and goes through received -> replying -> done. After a crash, updates still `received` are
-- handled again; one left `replying` may already have been answered, so it is not answered twice.
-- Existing rows were fully handled under the old scheme.
ALTER TABLE processed_updates ADD COLUMN payload TEXT;
ALTER TABLE processed_updates ADD COLUMN state TEXT NOT NULL DEFAULT 'done'
    CHECK (state IN ('received', 'replying', 'done'));

CREATE INDEX processed_updates_unfinished ON processed_updates (update_id) WHERE state <> 'done';

-- A user message handled again after a crash is stored once: Telegram's message id is unique in
-- its chat.
CREATE UNIQUE INDEX messages_one_per_telegram_message ON messages (chat_id, telegram_message_id)
    WHERE role = 'user' AND telegram_message_id IS NOT NULL;
