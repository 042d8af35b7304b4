-- Whose update this is: the conversation (chat, user) its payload belongs to, so that `/clear`
-- can delete the payloads of that person's unanswered updates with the rest of the conversation.
-- NULL for updates without one (and for rows recorded before, whose payloads were handled).
ALTER TABLE processed_updates ADD COLUMN chat_id INTEGER;
ALTER TABLE processed_updates ADD COLUMN user_id INTEGER;

CREATE INDEX processed_updates_payload_owner ON processed_updates (chat_id, user_id)
    WHERE payload IS NOT NULL;
