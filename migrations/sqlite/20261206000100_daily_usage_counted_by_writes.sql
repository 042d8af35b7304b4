-- A stored message is counted in `daily_usage` by the statements that store messages
-- (storage/usage.rs says which) rather than by a trigger for each row. The bot's turns store
-- their messages in combined rounds (storage/combined.rs): a round counts all its new messages
-- with one upsert per person and day, where the trigger updated the same few rows once per
-- message. How a message counts is unchanged: a user's message is one message, every message its
-- tokens in and out, on the UTC day of its `created_at`.
DROP TRIGGER messages_count_daily_usage;
