//! Durable user notes, per (chat, user): facts and preferences the summarizer extracted, and
//! notes the person added by hand, which the summarizer's updates never drop. A note is a fact
//! with a time: since when its text holds (`valid_from`), and what it said before it changed
//! (`earlier`, the last [`MAX_EARLIER_VALUES`] values, each with the time it stopped holding).

use std::borrow::Cow;

use super::ConversationKey;
use super::Result;
use super::Store;
use super::backend::Writing;

/// Earlier values kept per note: enough to answer "where did I live before?", bounded so that a
/// note that keeps changing does not grow without end (every note goes into every prompt).
pub const MAX_EARLIER_VALUES: usize = 2;

/// A note as stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct NoteRecord {
    pub id: i64,
    pub note: String,
    pub created_at_ms: i64,
    pub confirmed_at_ms: i64,
    /// Added (or last changed) by the person, not by the summarizer.
    pub added_by_hand: bool,
    /// Since when the note's text holds: the time of the session in which the person said it
    /// (or of the `/remember` that wrote it).
    pub valid_from_ms: i64,
    /// What the note said before, newest first; empty while it never changed.
    #[serde(default)]
    pub earlier: Vec<EarlierValue>,
}

/// A value a note held before it changed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EarlierValue {
    pub note: String,
    /// Since when it held, when known (a value only named as replaced has no start).
    pub from_ms: Option<i64>,
    /// When it stopped holding: when the value after it became true.
    pub until_ms: i64,
}

/// One note of the summarizer's complete new list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteUpdate {
    pub note: String,
    /// The note it takes the place of, if any.
    pub replaces: Option<Replaced>,
}

/// What a new note makes of the note before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// The fact changed: `.0` (a stored note's text, or only the old value the model named)
    /// held until the session that stated the new one.
    Changed(String),
    /// The stored note `.0` says the same in other words: the new text keeps its time and
    /// its earlier values.
    Reworded(String),
}

impl Replaced {
    /// The text replaced.
    pub fn old(&self) -> &str {
        match self {
            Self::Changed(old) | Self::Reworded(old) => old,
        }
    }
}

impl NoteUpdate {
    /// A note that replaces nothing (new, or kept as it was).
    pub fn new(note: impl Into<String>) -> Self {
        Self {
            note: note.into(),
            replaces: None,
        }
    }
}

/// What adding a note by hand did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteAdded {
    /// A new note.
    New,
    /// The conversation had that note already; it is the person's own from now on.
    AlreadyKept,
}

/// The earlier values of a note stored as `earlier` (NULL: none).
pub(super) fn read_earlier(stored: Option<&str>) -> Result<Vec<EarlierValue>> {
    match stored {
        None => Ok(Vec::new()),
        Some(json) => {
            serde_json::from_str(json).map_err(|error| sqlx::Error::Decode(Box::new(error)))
        }
    }
}

/// `earlier` as stored: NULL when empty, so a note that never changed costs no stored bytes.
pub(super) fn stored_earlier(earlier: &[EarlierValue]) -> Result<Option<String>> {
    if earlier.is_empty() {
        return Ok(None);
    }
    serde_json::to_string(earlier)
        .map(Some)
        .map_err(|error| sqlx::Error::Encode(Box::new(error)))
}

/// A note's earlier values once its text `old` (holding since `old_from_ms`, if known) stopped
/// holding at `until_ms`: the old text first, at most [`MAX_EARLIER_VALUES`] in all.
pub(super) fn earlier_after_change(
    old: &str,
    old_from_ms: Option<i64>,
    old_earlier: &[EarlierValue],
    until_ms: i64,
) -> Vec<EarlierValue> {
    let mut earlier = vec![EarlierValue {
        note: old.to_owned(),
        from_ms: old_from_ms,
        until_ms,
    }];
    earlier.extend(old_earlier.iter().cloned());
    earlier.truncate(MAX_EARLIER_VALUES);
    earlier
}

/// The time and earlier values a note gets when `update` takes the place of the stored note
/// (`stored_from_ms`, `stored_earlier`) that held `old`.
pub(super) fn after_replacing(
    replaced: &Replaced,
    stored_from_ms: i64,
    stored_earlier: &[EarlierValue],
    stated_at_ms: i64,
) -> (i64, Vec<EarlierValue>) {
    match replaced {
        Replaced::Reworded(_) => (stored_from_ms, stored_earlier.to_vec()),
        Replaced::Changed(old) => (
            stated_at_ms,
            earlier_after_change(old, Some(stored_from_ms), stored_earlier, stated_at_ms),
        ),
    }
}

/// The stored note a summarizer's note replaces, as read before it is rewritten.
pub(super) struct ReplacedRow {
    pub(super) id: i64,
    pub(super) valid_from: i64,
    pub(super) earlier: Option<String>,
}

/// A note as both backends read it, before its earlier values are decoded.
pub(super) struct NoteRow {
    pub(super) id: i64,
    pub(super) note: String,
    pub(super) created_at: i64,
    pub(super) confirmed_at: i64,
    pub(super) added_by_hand: bool,
    pub(super) valid_from: i64,
    pub(super) earlier: Option<String>,
}

impl TryFrom<NoteRow> for NoteRecord {
    type Error = sqlx::Error;

    fn try_from(row: NoteRow) -> Result<Self> {
        Ok(Self {
            id: row.id,
            note: row.note,
            created_at_ms: row.created_at,
            confirmed_at_ms: row.confirmed_at,
            added_by_hand: row.added_by_hand,
            valid_from_ms: row.valid_from,
            earlier: read_earlier(row.earlier.as_deref())?,
        })
    }
}

/// `rows` as records, oldest first as read.
pub(super) fn note_records(rows: Vec<NoteRow>) -> Result<Vec<NoteRecord>> {
    rows.into_iter().map(NoteRecord::try_from).collect()
}

impl NoteAdded {
    /// What adding a note by hand did, from the rows its insert added (none: the note was there).
    pub(super) fn from_inserted(inserted: u64) -> Self {
        if inserted == 1 {
            Self::New
        } else {
            Self::AlreadyKept
        }
    }
}

/// A note as read before the person edits it by hand.
pub(super) struct EditedNote {
    pub(super) note: String,
    pub(super) valid_from: i64,
    pub(super) earlier: Option<String>,
}

/// The time and stored earlier values of `old` once the person's edit gave it the text `note`
/// at `now_ms`: unchanged when the text is, otherwise the old text becomes an earlier value.
pub(super) fn after_hand_edit(
    old: EditedNote,
    note: &str,
    now_ms: i64,
) -> Result<(i64, Option<String>)> {
    let old_earlier = read_earlier(old.earlier.as_deref())?;
    let (valid_from, earlier) = if old.note == note {
        (old.valid_from, old_earlier)
    } else {
        let changed = Replaced::Changed(old.note);
        after_replacing(&changed, old.valid_from, &old_earlier, now_ms)
    };
    Ok((valid_from, stored_earlier(&earlier)?))
}

/// What a rewritten note becomes (see [`Writing::rewrite_note`]).
pub(super) struct NoteRewrite<'a> {
    pub(super) id: i64,
    pub(super) note: &'a str,
    pub(super) valid_from: i64,
    pub(super) earlier: Option<String>,
}

/// Makes `notes` the summarizer's complete list for the conversation of `source` (see
/// `replace_notes`), inside the caller's transaction: confirm, rewrite or insert each new note,
/// then delete whatever stayed unconfirmed. `storable` is the store's [`Store::storable`].
async fn replace_note_list(
    transaction: &mut Writing<'_>,
    storable: impl Fn(&str) -> Cow<'_, str>,
    source: &NoteSource,
    notes: &[NoteUpdate],
) -> Result<()> {
    transaction
        .unconfirm_notes(source.key, source.now_ms)
        .await?;
    // One statement per note, in the list's order: new notes get ids (their place in the list)
    // in that order, and a note listed twice is simply confirmed twice.
    for update in notes {
        let note = storable(&update.note);
        if let Some(replaced) = &update.replaces
            && rewrite_replaced(transaction, &storable, source, &note, replaced).await?
        {
            continue;
        }
        let earlier = match &update.replaces {
            Some(Replaced::Changed(old)) => {
                earlier_after_change(&storable(old), None, &[], source.stated_at_ms)
            }
            _ => Vec::new(),
        };
        transaction
            .upsert_note(source, &note, stored_earlier(&earlier)?)
            .await?;
    }
    transaction.delete_unconfirmed_notes(source.key).await
}

/// Rewrites the summarizer's note that `replaced` names into `note`: only a note of the
/// summarizer's not confirmed yet in this update (so one note is never taken by two), and only
/// while no note has the new text already (that one is simply confirmed). `false` when there is
/// no such note to rewrite.
async fn rewrite_replaced(
    transaction: &mut Writing<'_>,
    storable: &impl Fn(&str) -> Cow<'_, str>,
    source: &NoteSource,
    note: &str,
    replaced: &Replaced,
) -> Result<bool> {
    let old = storable(replaced.old());
    let Some(row) = transaction.note_to_rewrite(source.key, &old, note).await? else {
        return Ok(false);
    };
    let stored = read_earlier(row.earlier.as_deref())?;
    let (valid_from, earlier) =
        after_replacing(replaced, row.valid_from, &stored, source.stated_at_ms);
    let rewrite = NoteRewrite {
        id: row.id,
        note,
        valid_from,
        earlier: stored_earlier(&earlier)?,
    };
    transaction.rewrite_note(source, &rewrite).await?;
    Ok(true)
}

/// Where a summarizer's notes come from, for [`rewrite_replaced`].
pub(super) struct NoteSource {
    pub(super) key: ConversationKey,
    pub(super) session_id: i64,
    pub(super) stated_at_ms: i64,
    pub(super) now_ms: i64,
}

impl Store {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>> {
        let rows = run!(
            self.reader.fetch_all,
            query_as!(
                NoteRow,
                sql = r#"SELECT id AS "id!", note, created_at, confirmed_at,
                                added_by_hand AS "added_by_hand: bool", valid_from, earlier
                         FROM user_notes WHERE chat_id = $1 AND user_id = $2
                         ORDER BY created_at, id"#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )?;
        note_records(rows)
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
    ) -> Result<()> {
        let source = NoteSource {
            key,
            session_id: source_session_id,
            stated_at_ms,
            now_ms,
        };
        // On PostgreSQL the first statement locks the conversation's notes, so a replica
        // replacing them at the same time waits.
        begin!(self, transaction);
        replace_note_list(&mut transaction, |text| self.storable(text), &source, notes).await?;
        transaction.commit().await
    }

    /// Adds a note the person wrote. A note with the same text, if the conversation has one
    /// already, becomes theirs and is confirmed at `now_ms`.
    pub async fn add_note_by_hand(
        &self,
        key: ConversationKey,
        note: &str,
        now_ms: i64,
    ) -> Result<NoteAdded> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let note = self.storable(note);
        begin!(self, transaction);
        let inserted = run_in!(
            transaction.execute,
            query!(
                sql = "INSERT INTO user_notes
                           (chat_id, user_id, note, created_at, confirmed_at, added_by_hand, valid_from)
                       VALUES ($1, $2, $3, $4, $4, true, $4)
                       ON CONFLICT (chat_id, user_id, note) DO NOTHING",
                chat_id,
                user_id,
                &*note,
                now_ms,
            ),
        )?;
        if inserted == 0 {
            run_in!(
                transaction.execute,
                query!(
                    sql = "UPDATE user_notes SET added_by_hand = true, confirmed_at = $4
                           WHERE chat_id = $1 AND user_id = $2 AND note = $3",
                    chat_id,
                    user_id,
                    &*note,
                    now_ms,
                ),
            )?;
        }
        transaction.commit().await?;
        Ok(NoteAdded::from_inserted(inserted))
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
    ) -> Result<bool> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let note = self.storable(note);
        begin!(self, transaction);
        // The note, locked until the end on PostgreSQL (SQLite's transaction holds the writer).
        let old = run_in!(
            transaction.fetch_optional,
            query_as!(
                EditedNote,
                sqlite = "SELECT note, valid_from, earlier FROM user_notes
                          WHERE id = ?1 AND chat_id = ?2 AND user_id = ?3",
                postgres = "SELECT note, valid_from, earlier FROM user_notes
                            WHERE id = $1 AND chat_id = $2 AND user_id = $3
                            FOR UPDATE",
                note_id,
                chat_id,
                user_id,
            ),
        )?;
        let Some(old) = old else {
            return Ok(false);
        };
        // The other note goes by a DELETE of its own rather than by SQLite's `UPDATE OR
        // REPLACE`: rows that REPLACE removes skip the delete triggers, and the person's stored
        // bytes would still count that note.
        run_in!(
            transaction.execute,
            query!(
                sql = "DELETE FROM user_notes
                       WHERE chat_id = $2 AND user_id = $3 AND note = $4 AND id <> $1",
                note_id,
                chat_id,
                user_id,
                &*note,
            ),
        )?;
        let (valid_from, earlier) = after_hand_edit(old, &note, now_ms)?;
        run_in!(
            transaction.execute,
            query!(
                sql = "UPDATE user_notes SET note = $2, added_by_hand = true, confirmed_at = $3,
                                             valid_from = $4, earlier = $5
                       WHERE id = $1",
                note_id,
                &*note,
                now_ms,
                valid_from,
                earlier,
            ),
        )?;
        transaction.commit().await?;
        Ok(true)
    }

    /// Deletes one note of the conversation; `false` if it has no note with that id.
    pub async fn delete_note(&self, key: ConversationKey, note_id: i64) -> Result<bool> {
        let result = run!(
            self.writer.execute,
            query!(
                sql = "DELETE FROM user_notes WHERE id = $1 AND chat_id = $2 AND user_id = $3",
                note_id,
                key.chat_id.0,
                key.user_id.0,
            ),
        )?;
        Ok(result == 1)
    }
}

/// The statements that make a summarizer's list the conversation's notes, each run inside the
/// transaction of `Store::replace_notes`; [`replace_note_list`] decides their order and what each
/// note becomes.
impl Writing<'_> {
    /// Marks every note of the conversation unconfirmed, except those added by hand, which are
    /// confirmed at `now_ms`.
    async fn unconfirm_notes(&mut self, key: ConversationKey, now_ms: i64) -> Result<()> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(
                sqlite = "UPDATE user_notes SET confirmed_at = iif(added_by_hand, ?3, -1)
                          WHERE chat_id = ?1 AND user_id = ?2",
                postgres = "UPDATE user_notes
                            SET confirmed_at = CASE WHEN added_by_hand THEN $3::bigint ELSE -1 END
                            WHERE chat_id = $1 AND user_id = $2",
                chat_id,
                user_id,
                now_ms,
            ),
        )?;
        Ok(())
    }

    /// The summarizer's note with the text `old`, not confirmed yet in this update, while no
    /// note has the text `note` already.
    async fn note_to_rewrite(
        &mut self,
        key: ConversationKey,
        old: &str,
        note: &str,
    ) -> Result<Option<ReplacedRow>> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let transaction = self;
        run_in!(
            transaction.fetch_optional,
            query_as!(
                ReplacedRow,
                sql = r#"SELECT id AS "id!", valid_from, earlier FROM user_notes
                         WHERE chat_id = $1 AND user_id = $2 AND note = $3 AND NOT added_by_hand
                           AND confirmed_at = -1
                           AND NOT EXISTS (SELECT 1 FROM user_notes
                                           WHERE chat_id = $1 AND user_id = $2 AND note = $4)"#,
                chat_id,
                user_id,
                old,
                note,
            ),
        )
    }

    /// Gives the note `rewrite.id` its new text, time and earlier values.
    async fn rewrite_note(&mut self, source: &NoteSource, rewrite: &NoteRewrite<'_>) -> Result<()> {
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(
                sql = "UPDATE user_notes SET note = $2, confirmed_at = $3, valid_from = $4, earlier = $5,
                                             source_session_id = $6
                       WHERE id = $1",
                rewrite.id,
                rewrite.note,
                source.now_ms,
                rewrite.valid_from,
                rewrite.earlier,
                source.session_id,
            ),
        )?;
        Ok(())
    }

    /// Adds `note` (confirming it if the conversation has it already).
    async fn upsert_note(
        &mut self,
        source: &NoteSource,
        note: &str,
        earlier: Option<String>,
    ) -> Result<()> {
        let (chat_id, user_id) = (source.key.chat_id.0, source.key.user_id.0);
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(
                sql = r#"INSERT INTO user_notes (chat_id, user_id, note, source_session_id, created_at,
                                                confirmed_at, valid_from, earlier)
                         VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
                         ON CONFLICT (chat_id, user_id, note)
                             DO UPDATE SET confirmed_at = excluded.confirmed_at"#,
                chat_id,
                user_id,
                note,
                source.session_id,
                source.now_ms,
                source.stated_at_ms,
                earlier,
            ),
        )?;
        Ok(())
    }

    /// Deletes the conversation's notes that stayed unconfirmed.
    async fn delete_unconfirmed_notes(&mut self, key: ConversationKey) -> Result<()> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let transaction = self;
        run_in!(
            transaction.execute,
            query!(
                sql = "DELETE FROM user_notes WHERE chat_id = $1 AND user_id = $2 AND confirmed_at = -1",
                chat_id,
                user_id,
            ),
        )?;
        Ok(())
    }
}
