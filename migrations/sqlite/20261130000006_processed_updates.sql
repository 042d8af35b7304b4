-- Telegram update ids already taken in, so a redelivered update is never answered twice.
CREATE TABLE processed_updates (
    update_id   INTEGER PRIMARY KEY NOT NULL,
    received_at INTEGER NOT NULL
);

CREATE INDEX processed_updates_by_time ON processed_updates (received_at);
