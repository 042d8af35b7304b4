-- Conversations in incognito (`/incognito on`): while a (chat, user) has a row here, nothing of
-- its conversation is stored and its prompts carry no memory. The switch is kept per person and
-- chat so that it survives a restart; `/incognito off` deletes the row. It holds no text, and the
-- purge leaves it alone: a switch that vanished by age would start storing a conversation its
-- person had asked to keep out of the database.
CREATE TABLE incognito_conversations (
    chat_id  INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    since_at INTEGER NOT NULL,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;
