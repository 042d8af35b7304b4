-- What a chat turn costs the server (docs/PERFORMANCE.md): fewer index entries written for each
-- message stored and each reply delivered.

-- The delivery record (the reply's Telegram message, written once it is sent) changes a column
-- no index reads, so PostgreSQL updates the row in place (a HOT update) instead of writing a new
-- entry in every index. The one-per-Telegram-message index therefore reads a column that only a
-- person's message fills; a reply's stays NULL whatever its Telegram message. The free tenth of
-- each page keeps room for the updated row beside the old one; it is set before the column is
-- added, so that the rewrite the new column causes leaves that room on the existing pages too.
ALTER TABLE messages SET (fillfactor = 90);
ALTER TABLE messages ADD COLUMN user_telegram_message_id BIGINT
    GENERATED ALWAYS AS (CASE WHEN role = 'user' THEN telegram_message_id END) STORED;
DROP INDEX messages_one_per_telegram_message;
CREATE UNIQUE INDEX messages_one_per_telegram_message
    ON messages (chat_id, user_telegram_message_id) WHERE user_telegram_message_id IS NOT NULL;

-- One index on the conversation: every read of a conversation's messages goes by time and then
-- id, and the few that go by id alone (the replies after a message, a search below an id) read
-- the conversation's range of this one.
DROP INDEX messages_by_conversation_time;
DROP INDEX messages_by_conversation_id;
CREATE INDEX messages_by_conversation ON messages (chat_id, user_id, created_at, id);
