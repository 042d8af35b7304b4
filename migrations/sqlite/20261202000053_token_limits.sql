-- A person's own daily token limit, set by an admin with /limit: a number of tokens, or NULL for
-- no limit at all (/limit ID off). No row: USER_DAILY_TOKEN_LIMIT applies (/limit ID default
-- deletes the row). Admin decisions, not a person's data: the purge leaves them.
CREATE TABLE token_limits (
    user_id      INTEGER PRIMARY KEY NOT NULL,
    daily_tokens INTEGER CHECK (daily_tokens IS NULL OR daily_tokens > 0),
    set_by       INTEGER NOT NULL,
    set_at       INTEGER NOT NULL
);
