//! Notes as facts with a time. Notes a person writes themselves (`/remember`): the text of one,
//! checked once ([`NoteText`]), and how many a conversation may hold; they sit beside the
//! summarizer's notes, in the same list and the same prompts, under the same limits of length
//! and count, and the summarizer never drops them. How the summarizer's new list relates to the
//! notes it had ([`note_updates`]): which note a changed one replaces, named by the model or, when
//! it did not say, found by subject. And how a note reads in the prompt ([`NoteLine`]): current
//! since its date, with what it replaced and until when, so that "where did I live before?" and
//! "since when?" can be answered.

use crate::bounded_text::{LengthError, within_length};
use crate::clock::format_utc_ms;
use crate::memory::escape::one_line;
use crate::storage::{EarlierValue, NoteRecord, NoteUpdate, Replaced};

use super::summary::{MAX_NOTES, NOTE_MAX_CHARS, ParsedNote};

/// Notes added by hand one conversation may hold: every note goes into every prompt, so their
/// number is bounded like the summarizer's.
pub const MAX_NOTES_BY_HAND: usize = MAX_NOTES;

/// A note's text that passed its checks: one line, not empty, not too long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteText(String);

/// Why a note's text was refused.
pub type NoteError = LengthError;

impl NoteText {
    /// `text` as one line (every run of white space, line breaks included, one space), at most
    /// [`NOTE_MAX_CHARS`] characters: a note is one line of the prompt's memory block.
    pub fn parse(text: &str) -> Result<Self, NoteError> {
        let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        within_length(one_line, NOTE_MAX_CHARS).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A durable fact or preference about the person, as the prompt shows it: its text, since when
/// it holds, and what it said before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteLine {
    pub text: String,
    /// Since when the text holds (when it was noted, for a note that never changed).
    pub noted_at_ms: i64,
    /// What the note said before, newest first.
    pub earlier: Vec<EarlierValue>,
}

impl NoteLine {
    /// Every text of the note, current and earlier: what masking secrets must go through before
    /// the note is sent.
    pub fn texts_mut(&mut self) -> impl Iterator<Item = &mut String> {
        std::iter::once(&mut self.text).chain(self.earlier.iter_mut().map(|value| &mut value.note))
    }
}

impl From<NoteRecord> for NoteLine {
    fn from(note: NoteRecord) -> Self {
        Self {
            text: note.note,
            noted_at_ms: note.valid_from_ms,
            earlier: note.earlier,
        }
    }
}

/// A note's line in the prompt's memory block: `- Always answer in English (noted 2026-11-30
/// 14:05 UTC)`, or, for a note that changed, `- Lives in Leipzig (since 2026-11-03; before:
/// Hamburg, until 2026-11-03)`. An earlier value is shown by what differs from the current
/// text (`Hamburg` of `Lives in Hamburg`), so the line stays short and reads as a change.
pub fn note_line(note: &NoteLine) -> String {
    let text = one_line(note.text.trim());
    if note.earlier.is_empty() {
        return format!("- {text} (noted {})", format_utc_ms(note.noted_at_ms));
    }
    let mut line = format!("- {text} (since {}", utc_date(note.noted_at_ms));
    for (index, earlier) in note.earlier.iter().enumerate() {
        line.push_str(if index == 0 {
            "; before: "
        } else {
            "; before that: "
        });
        line.push_str(&one_line(changed_part(&earlier.note, &note.text)));
        if let Some(from_ms) = earlier.from_ms {
            line.push_str(&format!(", from {}", utc_date(from_ms)));
        }
        line.push_str(&format!(", until {}", utc_date(earlier.until_ms)));
    }
    line.push(')');
    line
}

/// The date of a time, `2026-11-03` (UTC).
fn utc_date(time_ms: i64) -> String {
    format_utc_ms(time_ms)
        .split(' ')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The words of `earlier` that differ from `current`: without the words the two start and end
/// with in common, when they have two or more so. All of `earlier` otherwise, and when that
/// leaves nothing (the two are the same words).
fn changed_part<'a>(earlier: &'a str, current: &str) -> &'a str {
    let earlier = earlier.trim();
    let old: Vec<(usize, &str)> = word_spans(earlier);
    let new: Vec<String> = words(current);
    let same = |a: &str, b: &String| a.to_lowercase() == *b;
    let prefix = old
        .iter()
        .zip(&new)
        .take_while(|((_, a), b)| same(a, b))
        .count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix.min(new.len())..].iter().rev())
        .take_while(|((_, a), b)| same(a, b))
        .count();
    let kept = &old[prefix..old.len() - suffix];
    // One word in common (`I`) says nothing about the subject: the whole value reads better.
    match (kept.first(), kept.last()) {
        (Some((start, _)), Some((end, word))) if prefix + suffix >= 2 => {
            &earlier[*start..end + word.len()]
        }
        _ => earlier,
    }
}

/// The words of `text` (runs of letters and digits) with their byte offsets.
fn word_spans(text: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (start, c.is_alphanumeric()) {
            (None, true) => start = Some(at),
            (Some(begin), false) => {
                spans.push((begin, &text[begin..at]));
                start = None;
            }
            _ => {}
        }
    }
    spans
}

/// The words of `text`, lower case, for comparing notes: runs of letters and digits, and every
/// character of a script written without spaces (Chinese, Japanese) a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for (_, word) in word_spans(text) {
        if word.chars().any(is_spaceless) {
            words.extend(word.chars().map(|c| c.to_lowercase().collect::<String>()));
        } else {
            words.push(word.to_lowercase());
        }
    }
    words
}

/// Chinese and Japanese characters: scripts written without spaces between words.
fn is_spaceless(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// The summarizer's new list as updates of the notes it had (`existing`, its own notes, not
/// those added by hand): a note still listed is kept; a note that names what it replaced
/// (`was`) takes the place of the dropped note that value points to (or, pointing to none,
/// keeps the value as its earlier one); a new note without a marker takes the place of a
/// dropped note about the same subject (same leading words, or mostly the same words), as a
/// change, or as a rewording when one's words hold all of the other's.
pub fn note_updates(existing: &[String], parsed: Vec<ParsedNote>) -> Vec<NoteUpdate> {
    let listed: Vec<&str> = parsed.iter().map(|note| note.text.as_str()).collect();
    let mut dropped: Vec<&str> = existing
        .iter()
        .map(String::as_str)
        .filter(|note| !listed.contains(note))
        .collect();
    let mut updates: Vec<NoteUpdate> = Vec::with_capacity(parsed.len());
    let mut unmarked = Vec::new();
    for note in parsed {
        let is_kept = existing.contains(&note.text);
        let replaces = match note.was {
            Some(was) if !is_kept => Some(match take_named(&mut dropped, &was, &note.text) {
                Some(old) => Replaced::Changed(old.to_owned()),
                None => Replaced::Changed(was),
            }),
            _ => None,
        };
        if !is_kept && replaces.is_none() {
            unmarked.push(updates.len());
        }
        updates.push(NoteUpdate {
            note: note.text,
            replaces,
        });
    }
    for (new_index, old) in pair_by_subject(&dropped, &unmarked, &updates) {
        let update = &mut updates[new_index];
        update.replaces = Some(if is_rewording(old, &update.note) {
            Replaced::Reworded(old.to_owned())
        } else {
            Replaced::Changed(old.to_owned())
        });
    }
    updates
}

/// Takes from `dropped` the note that `was` names: the note itself, or else the one holding
/// all of its words that shares most words with the new note `text`.
fn take_named<'a>(dropped: &mut Vec<&'a str>, was: &str, text: &str) -> Option<&'a str> {
    let was_words = words(was);
    let text_words = words(text);
    let index = dropped
        .iter()
        .position(|old| words(old) == was_words)
        .or_else(|| {
            dropped
                .iter()
                .enumerate()
                .filter(|(_, old)| {
                    let old_words = words(old);
                    !was_words.is_empty() && was_words.iter().all(|word| old_words.contains(word))
                })
                .max_by_key(|(_, old)| shared(&words(old), &text_words))
                .map(|(index, _)| index)
        })?;
    Some(dropped.remove(index))
}

/// Pairs new notes without a marker (`unmarked`, indexes into `updates`) with dropped notes
/// about the same subject, the most alike first, each note in one pair at most.
fn pair_by_subject<'a>(
    dropped: &[&'a str],
    unmarked: &[usize],
    updates: &[NoteUpdate],
) -> Vec<(usize, &'a str)> {
    let mut candidates: Vec<(u32, usize, usize)> = Vec::new();
    for &new_index in unmarked {
        let new_words = words(&updates[new_index].note);
        for (old_index, old) in dropped.iter().enumerate() {
            if let Some(score) = same_subject(&words(old), &new_words) {
                candidates.push((score, new_index, old_index));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut new_taken, mut old_taken) = (Vec::new(), Vec::new());
    let mut pairs = Vec::new();
    for (_, new_index, old_index) in candidates {
        if new_taken.contains(&new_index) || old_taken.contains(&old_index) {
            continue;
        }
        new_taken.push(new_index);
        old_taken.push(old_index);
        pairs.push((new_index, dropped[old_index]));
    }
    pairs
}

/// How alike two notes' subjects are (higher: more), or `None` when they are about different
/// things. Same subject: at least two leading words in common covering half of the shorter note
/// (`Lives in Hamburg` / `Lives in Leipzig`), or at least half of all their words shared.
fn same_subject(old: &[String], new: &[String]) -> Option<u32> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let shorter = old.len().min(new.len());
    let common = shared(old, new);
    let all = old.len() + new.len() - common;
    let by_prefix = prefix >= 2 && prefix * 2 >= shorter;
    let by_words = all > 0 && common * 2 >= all;
    (by_prefix || by_words).then(|| u32::try_from(prefix * 1000 + common).unwrap_or(u32::MAX))
}

/// How many distinct words of `a` are in `b`.
fn shared(a: &[String], b: &[String]) -> usize {
    let mut seen: Vec<&String> = Vec::new();
    for word in a {
        if b.contains(word) && !seen.contains(&word) {
            seen.push(word);
        }
    }
    seen.len()
}

/// Whether one note's words hold all of the other's: the same fact, said more or less fully.
fn is_rewording(old: &str, new: &str) -> bool {
    let (old, new) = (words(old), words(new));
    old.iter().all(|word| new.contains(word)) || new.iter().all(|word| old.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_one_line_of_limited_length() {
        assert_eq!(
            NoteText::parse("  I am\nvegetarian \u{2028} since 2019 ").unwrap(),
            NoteText("I am vegetarian since 2019".to_owned())
        );
        assert_eq!(NoteText::parse(" \n "), Err(NoteError::Empty));
        assert_eq!(
            NoteText::parse(&"ä".repeat(NOTE_MAX_CHARS + 1)),
            Err(NoteError::TooLong {
                length: NOTE_MAX_CHARS + 1,
                max: NOTE_MAX_CHARS
            })
        );
        assert!(NoteText::parse(&"ä".repeat(NOTE_MAX_CHARS)).is_ok());
    }

    fn existing(notes: &[&str]) -> Vec<String> {
        notes.iter().map(|note| (*note).to_owned()).collect()
    }

    fn parsed(notes: &[(&str, Option<&str>)]) -> Vec<ParsedNote> {
        notes
            .iter()
            .map(|(text, was)| ParsedNote {
                text: (*text).to_owned(),
                was: was.map(str::to_owned),
            })
            .collect()
    }

    /// What a note replaced when its subject's value changed from `old`.
    fn changed(old: &str) -> Option<Replaced> {
        Some(Replaced::Changed(old.to_owned()))
    }

    /// What a note replaced when it said `old` in other words.
    fn reworded(old: &str) -> Option<Replaced> {
        Some(Replaced::Reworded(old.to_owned()))
    }

    fn replaces(updates: &[NoteUpdate]) -> Vec<(&str, Option<Replaced>)> {
        updates
            .iter()
            .map(|update| (update.note.as_str(), update.replaces.clone()))
            .collect()
    }

    /// One run of [`note_updates`]: the notes before, the summarizer's new notes with the old
    /// values they mark as replaced, and what each new note is taken to replace.
    struct PairingCase {
        shows: &'static str,
        before: &'static [&'static str],
        summarized: &'static [(&'static str, Option<&'static str>)],
        replaces: Vec<(&'static str, Option<Replaced>)>,
    }

    #[test]
    fn new_notes_pair_with_the_dropped_notes_they_replace() {
        let cases = [
            PairingCase {
                shows: "a marker naming the old value points to the dropped note that holds it",
                before: &[
                    "Always answer in English",
                    "Lives in Hamburg",
                    "Works at Chemitek",
                ],
                summarized: &[
                    ("Always answer in English", None),
                    ("Lives in Leipzig", Some("Hamburg")),
                    ("Works at BASF", Some("Works at Chemitek")),
                ],
                replaces: vec![
                    ("Always answer in English", None),
                    ("Lives in Leipzig", changed("Lives in Hamburg")),
                    ("Works at BASF", changed("Works at Chemitek")),
                ],
            },
            PairingCase {
                shows: "a marker pointing to no note keeps the old value itself",
                before: &["Has a cat"],
                summarized: &[
                    ("Has a cat", Some("dog")),
                    ("Lives in Leipzig", Some("Hamburg")),
                ],
                replaces: vec![
                    ("Has a cat", None),
                    ("Lives in Leipzig", changed("Hamburg")),
                ],
            },
            PairingCase {
                shows: "without a marker a dropped note and a new one about the same subject pair up",
                before: &[
                    "Lives in Hamburg",
                    "Живёт в Гамбурге",
                    "Trabaja en Chemitek",
                    "Has a dog named Rex",
                    "Is vegetarian",
                ],
                summarized: &[
                    ("Plays chess", None),
                    ("Живёт в Лейпциге", None),
                    ("Lives in Leipzig", None),
                    ("Trabaja en BASF desde marzo", None),
                    ("Has a dog named Rex, a beagle", None),
                ],
                replaces: vec![
                    ("Plays chess", None),
                    ("Живёт в Лейпциге", changed("Живёт в Гамбурге")),
                    ("Lives in Leipzig", changed("Lives in Hamburg")),
                    (
                        "Trabaja en BASF desde marzo",
                        changed("Trabaja en Chemitek"),
                    ),
                    (
                        "Has a dog named Rex, a beagle",
                        reworded("Has a dog named Rex"),
                    ),
                ],
            },
            PairingCase {
                shows: "notes about different things do not pair and chinese pairs by characters",
                before: &["Is vegetarian", "Always answer in English", "住在东京"],
                summarized: &[
                    ("Plays the violin", None),
                    ("Likes green tea", None),
                    ("住在大阪", None),
                ],
                replaces: vec![
                    ("Plays the violin", None),
                    ("Likes green tea", None),
                    ("住在大阪", changed("住在东京")),
                ],
            },
        ];
        for case in cases {
            let updates = note_updates(&existing(case.before), parsed(case.summarized));
            assert_eq!(replaces(&updates), case.replaces, "{}", case.shows);
        }
    }

    #[test]
    fn a_note_that_changed_reads_as_current_since_its_date_with_what_it_replaced() {
        // 2026-11-03 10:00 UTC and 2026-05-01 09:00 UTC
        let (moved, before) = (1_793_700_000_000, 1_777_626_000_000);
        let line = note_line(&NoteLine {
            text: "Lives in Leipzig".to_owned(),
            noted_at_ms: moved,
            earlier: vec![
                EarlierValue {
                    note: "Lives in Hamburg".to_owned(),
                    from_ms: Some(before),
                    until_ms: moved,
                },
                EarlierValue {
                    note: "Berlin".to_owned(),
                    from_ms: None,
                    until_ms: before,
                },
            ],
        });
        assert_eq!(
            line,
            "- Lives in Leipzig (since 2026-11-03; before: Hamburg, from 2026-05-01, \
             until 2026-11-03; before that: Berlin, until 2026-05-01)"
        );
        let unchanged = note_line(&NoteLine {
            text: "Always answer in English".to_owned(),
            noted_at_ms: moved,
            earlier: Vec::new(),
        });
        assert_eq!(
            unchanged,
            "- Always answer in English (noted 2026-11-03 10:00 UTC)"
        );
    }

    #[test]
    fn the_changed_part_of_an_earlier_value_is_what_differs_from_the_current_text() {
        assert_eq!(
            changed_part("Lives in Hamburg", "Lives in Leipzig"),
            "Hamburg"
        );
        assert_eq!(
            changed_part(
                "Works at Chemitek as a chemist",
                "Works at BASF as a chemist"
            ),
            "Chemitek"
        );
        assert_eq!(changed_part("Hamburg", "Lives in Leipzig"), "Hamburg");
        assert_eq!(
            changed_part("I am vegetarian", "I eat fish now"),
            "I am vegetarian"
        );
        assert_eq!(
            changed_part("Lives in Leipzig", "lives in leipzig"),
            "Lives in Leipzig"
        );
        assert_eq!(
            changed_part("Живёт в Гамбурге", "Живёт в Лейпциге"),
            "Гамбурге"
        );
    }

    #[test]
    fn every_text_of_a_note_can_be_masked() {
        let mut line = NoteLine {
            text: "PIN 1234".to_owned(),
            noted_at_ms: 0,
            earlier: vec![EarlierValue {
                note: "PIN 9876".to_owned(),
                from_ms: None,
                until_ms: 0,
            }],
        };
        line.texts_mut()
            .for_each(|text| *text = text.replace(char::is_numeric, "*"));
        assert_eq!(line.text, "PIN ****");
        assert_eq!(line.earlier[0].note, "PIN ****");
    }
}
