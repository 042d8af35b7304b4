//! PostgreSQL: notes about a person, kept by the summarizer or added by hand. Notes added by hand
//! are never dropped by the summarizer's updates. The rules of a note's time and earlier values
//! are the SQLite twin's (`src/storage/notes.rs`).

use super::PgStore;
use super::messages::storable;
use crate::storage::notes::{
    NoteSource, ReplacedRow, after_replacing, earlier_after_change, read_earlier, stored_earlier,
};
use crate::storage::{ConversationKey, NoteAdded, NoteRecord, NoteUpdate, Replaced};

impl PgStore {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        let rows = sqlx::query!(
            r#"SELECT id, note, created_at, confirmed_at, added_by_hand, valid_from, earlier
               FROM user_notes WHERE chat_id = $1 AND user_id = $2
               ORDER BY created_at, id"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|row| {
                Ok(NoteRecord {
                    id: row.id,
                    note: row.note,
                    created_at_ms: row.created_at,
                    confirmed_at_ms: row.confirmed_at,
                    added_by_hand: row.added_by_hand,
                    valid_from_ms: row.valid_from,
                    earlier: read_earlier(row.earlier.as_deref())?,
                })
            })
            .collect()
    }

    /// Makes `notes` the summarizer's complete list for the conversation: notes already stored
    /// keep their creation time and are confirmed at `now_ms`, a note that replaces one of the
    /// summarizer's takes its place (keeping what it said before, see [`Replaced`]), new ones
    /// are added, the rest of the summarizer's are deleted. Notes added by hand all stay,
    /// confirmed at `now_ms` too. `stated_at_ms` is when the session the notes come from took
    /// place: new and changed notes hold since then.
    pub async fn replace_notes(
        &self,
        key: ConversationKey,
        notes: &[NoteUpdate],
        source_session_id: i64,
        stated_at_ms: i64,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        // Mark every current note as unconfirmed (or, added by hand, confirmed), confirm,
        // rewrite or insert each new one, then delete whatever stayed unconfirmed. The first
        // statement locks the conversation's notes, so a replica replacing them at the same time
        // waits.
        sqlx::query!(
            "UPDATE user_notes
             SET confirmed_at = CASE WHEN added_by_hand THEN $3::bigint ELSE -1 END
             WHERE chat_id = $1 AND user_id = $2",
            key.chat_id.0,
            key.user_id.0,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?;
        let source = NoteSource {
            key,
            session_id: source_session_id,
            stated_at_ms,
            now_ms,
        };
        // One statement per note, in the list's order: new notes get ids (their place in the
        // list) in that order, and a note listed twice is simply confirmed twice.
        for update in notes {
            let note = storable(&update.note);
            if let Some(replaced) = &update.replaces
                && rewrite_replaced(&mut transaction, &source, &note, replaced).await?
            {
                continue;
            }
            let earlier = match &update.replaces {
                Some(Replaced::Changed(old)) => {
                    earlier_after_change(&storable(old), None, &[], stated_at_ms)
                }
                _ => Vec::new(),
            };
            sqlx::query!(
                r#"INSERT INTO user_notes (chat_id, user_id, note, source_session_id, created_at,
                                          confirmed_at, valid_from, earlier)
                   VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
                   ON CONFLICT (chat_id, user_id, note)
                       DO UPDATE SET confirmed_at = excluded.confirmed_at"#,
                key.chat_id.0,
                key.user_id.0,
                &*note,
                source_session_id,
                now_ms,
                stated_at_ms,
                stored_earlier(&earlier)?,
            )
            .execute(&mut *transaction)
            .await?;
        }
        sqlx::query!(
            "DELETE FROM user_notes WHERE chat_id = $1 AND user_id = $2 AND confirmed_at = -1",
            key.chat_id.0,
            key.user_id.0,
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await
    }

    /// Adds a note the person wrote. A note with the same text, if the conversation has one
    /// already, becomes theirs and is confirmed at `now_ms`.
    pub async fn add_note_by_hand(
        &self,
        key: ConversationKey,
        note: &str,
        now_ms: i64,
    ) -> Result<NoteAdded, sqlx::Error> {
        let note = storable(note);
        let mut transaction = self.pool.begin().await?;
        let inserted = sqlx::query!(
            "INSERT INTO user_notes
                 (chat_id, user_id, note, created_at, confirmed_at, added_by_hand, valid_from)
             VALUES ($1, $2, $3, $4, $4, true, $4)
             ON CONFLICT (chat_id, user_id, note) DO NOTHING",
            key.chat_id.0,
            key.user_id.0,
            &*note,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        if inserted == 0 {
            sqlx::query!(
                "UPDATE user_notes SET added_by_hand = true, confirmed_at = $4
                 WHERE chat_id = $1 AND user_id = $2 AND note = $3",
                key.chat_id.0,
                key.user_id.0,
                &*note,
                now_ms,
            )
            .execute(&mut *transaction)
            .await?;
        }
        transaction.commit().await?;
        Ok(if inserted == 1 {
            NoteAdded::New
        } else {
            NoteAdded::AlreadyKept
        })
    }

    /// Gives note `note_id` of the conversation the person's text `note`, keeping its place in
    /// the list (its creation time); another note with that text already is removed, as the two
    /// are one now. A changed text holds from `now_ms`, and the old one is kept as its earlier
    /// value. `false` if the conversation has no note with that id.
    pub async fn replace_note_by_hand(
        &self,
        key: ConversationKey,
        note_id: i64,
        note: &str,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        // What SQLite's `UPDATE OR REPLACE` does in one statement: only when the note exists
        // (locked until the end), the other note with the new text goes, then the text changes.
        let Some(old) = sqlx::query!(
            "SELECT note, valid_from, earlier FROM user_notes
             WHERE id = $1 AND chat_id = $2 AND user_id = $3
             FOR UPDATE",
            note_id,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_optional(&mut *transaction)
        .await?
        else {
            return Ok(false);
        };
        let note = storable(note);
        sqlx::query!(
            "DELETE FROM user_notes
             WHERE chat_id = $1 AND user_id = $2 AND note = $3 AND id <> $4",
            key.chat_id.0,
            key.user_id.0,
            &*note,
            note_id,
        )
        .execute(&mut *transaction)
        .await?;
        let old_earlier = read_earlier(old.earlier.as_deref())?;
        let (valid_from, earlier) = if old.note == *note {
            (old.valid_from, old_earlier)
        } else {
            let changed = Replaced::Changed(old.note);
            after_replacing(&changed, old.valid_from, &old_earlier, now_ms)
        };
        sqlx::query!(
            "UPDATE user_notes SET note = $2, added_by_hand = true, confirmed_at = $3,
                                   valid_from = $4, earlier = $5
             WHERE id = $1",
            note_id,
            &*note,
            now_ms,
            valid_from,
            stored_earlier(&earlier)?,
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(true)
    }

    /// Deletes one note of the conversation; `false` if it has no note with that id.
    pub async fn delete_note(
        &self,
        key: ConversationKey,
        note_id: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "DELETE FROM user_notes WHERE id = $1 AND chat_id = $2 AND user_id = $3",
            note_id,
            key.chat_id.0,
            key.user_id.0,
        )
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }
}

/// Rewrites the summarizer's note that `replaced` names into `note`, inside `replace_notes`'s
/// transaction (see the SQLite twin). `false` when there is no such note to rewrite.
async fn rewrite_replaced(
    transaction: &mut sqlx::PgConnection,
    source: &NoteSource,
    note: &str,
    replaced: &Replaced,
) -> Result<bool, sqlx::Error> {
    let row = sqlx::query_as!(
        ReplacedRow,
        "SELECT id, valid_from, earlier FROM user_notes
         WHERE chat_id = $1 AND user_id = $2 AND note = $3 AND NOT added_by_hand
           AND confirmed_at = -1
           AND NOT EXISTS (SELECT 1 FROM user_notes
                           WHERE chat_id = $1 AND user_id = $2 AND note = $4)",
        source.key.chat_id.0,
        source.key.user_id.0,
        &*storable(replaced.old()),
        note,
    )
    .fetch_optional(&mut *transaction)
    .await?;
    let Some(row) = row else {
        return Ok(false);
    };
    let stored = read_earlier(row.earlier.as_deref())?;
    let (valid_from, earlier) =
        after_replacing(replaced, row.valid_from, &stored, source.stated_at_ms);
    sqlx::query!(
        "UPDATE user_notes SET note = $2, confirmed_at = $3, valid_from = $4, earlier = $5,
                               source_session_id = $6
         WHERE id = $1",
        row.id,
        note,
        source.now_ms,
        valid_from,
        stored_earlier(&earlier)?,
        source.session_id,
    )
    .execute(&mut *transaction)
    .await?;
    Ok(true)
}
