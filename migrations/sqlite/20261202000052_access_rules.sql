-- Who the admins let in (/allow) or shut out (/block), on top of ALLOWED_USERS, ADMIN_USERS and
-- ALLOW_ALL_USERS. A block wins over ALLOWED_USERS and ALLOW_ALL_USERS; ADMIN_USERS cannot be
-- blocked. /unblock deletes the row, which leaves the configured lists to decide. The bot reads
-- the whole table at start and keeps it in memory, so deciding about a message costs no query.
-- Admin decisions, not a person's data: the purge leaves them.
CREATE TABLE access_rules (
    user_id    INTEGER PRIMARY KEY NOT NULL,
    rule       TEXT    NOT NULL CHECK (rule IN ('allow', 'block')),
    changed_by INTEGER NOT NULL,
    changed_at INTEGER NOT NULL
);

-- Strangers the admins were told about: one message per stranger, ever. Only the id: nothing a
-- stranger sends is stored.
CREATE TABLE stranger_alerts (
    user_id    INTEGER PRIMARY KEY NOT NULL,
    alerted_at INTEGER NOT NULL
);
