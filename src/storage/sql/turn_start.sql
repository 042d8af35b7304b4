-- What a chat turn reads before it stores the user's message, in one statement (Store::turn_start
-- in sessions.rs): ?1 chat id, ?2 user id, ?3 summaries since (ms), ?4 summary count,
-- ?5 history since (ms), ?6 history's most messages.
SELECT (SELECT persona FROM user_settings WHERE user_id = ?2) AS "persona?: String",
       (SELECT model FROM user_settings WHERE user_id = ?2) AS "model?: String",
       (SELECT time_zone FROM user_settings WHERE user_id = ?2) AS "time_zone?: String",
       EXISTS (SELECT 1 FROM incognito_conversations WHERE chat_id = ?1 AND user_id = ?2)
           AS "incognito!: bool",
       session.id AS "session_id?: i64",
       session.last_activity_at AS "last_activity_at_ms?: i64",
       (SELECT json_group_array(json_object(
                   'id', id, 'note', note, 'created_at_ms', created_at,
                   'confirmed_at_ms', confirmed_at,
                   'added_by_hand', json(iif(added_by_hand, 'true', 'false')),
                   'valid_from_ms', valid_from, 'earlier', json(coalesce(earlier, '[]'))))
        FROM (SELECT id, note, created_at, confirmed_at, added_by_hand, valid_from, earlier
              FROM user_notes
              WHERE chat_id = ?1 AND user_id = ?2
              ORDER BY created_at, id)) AS "notes!: String",
       (SELECT json_group_array(json_object(
                   'session_id', session_id, 'chat_id', chat_id,
                   'user_id', user_id, 'summary', summary,
                   'created_at_ms', created_at,
                   'session_started_at_ms', started_at,
                   'session_last_activity_at_ms', last_activity_at))
        FROM (SELECT * FROM
                  (SELECT summary.session_id, summary.chat_id, summary.user_id,
                          summary.summary, summary.created_at,
                          summarized.started_at, summarized.last_activity_at
                   FROM session_summaries AS summary
                   JOIN sessions AS summarized
                       ON summarized.id = summary.session_id
                   WHERE summary.chat_id = ?1 AND summary.user_id = ?2
                     AND summary.created_at >= ?3
                   ORDER BY summary.created_at DESC, summary.session_id DESC
                   LIMIT +?4)
              ORDER BY created_at, session_id)) AS "summaries!: String",
       (SELECT json_group_array(json_object(
                   'id', id, 'chat_id', chat_id, 'user_id', user_id,
                   'session_id', session_id, 'role', role, 'content', content,
                   'created_at_ms', created_at, 'tokens_in', tokens_in,
                   'tokens_out', tokens_out,
                   'telegram_message_id', telegram_message_id))
        FROM (SELECT * FROM
                  (SELECT * FROM messages
                   WHERE chat_id = ?1 AND user_id = ?2 AND created_at >= ?5
                   ORDER BY created_at DESC, id DESC
                   LIMIT +?6)
              ORDER BY created_at, id)) AS "history!: String",
       EXISTS (SELECT 1 FROM messages
               WHERE chat_id = ?1 AND user_id = ?2 AND created_at < ?5)
           AS "has_messages_before_window!: bool"
FROM (SELECT 1)
LEFT JOIN sessions AS session
    ON session.chat_id = ?1 AND session.user_id = ?2 AND session.closed_at IS NULL
