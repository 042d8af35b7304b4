-- Tokens used by incognito turns, which leave no message row to carry them: counts only, per
-- person and UTC day (`day_start_at`, the day's first millisecond), so that a person's usage
-- ("tokens today") includes them. No chat id and no text: only how much was used. Purged with
-- everything else older than the retention period.
CREATE TABLE incognito_token_usage (
    user_id      INTEGER NOT NULL,
    day_start_at INTEGER NOT NULL,
    tokens_in    INTEGER NOT NULL DEFAULT 0,
    tokens_out   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day_start_at)
) WITHOUT ROWID;

CREATE INDEX incognito_token_usage_by_day ON incognito_token_usage (day_start_at);
