//! Reading the model's answer to a summary request: its summary and, when it gives any, the
//! complete new list of notes. The answer is text a model wrote from what people said, so the
//! parser accepts the ways models decorate their sections and never lets a section marker into
//! the summary or a note. A note the model rewrote because the fact changed carries what it
//! replaced (`- Lives in Leipzig (was: Hamburg)`); that marker is read in the many ways a model
//! writes it, in any of the common languages ([`split_replaced`]).

use crate::memory::escape::is_line_break;

use super::cap_chars;

/// A summary is asked for in at most ~600 characters; a longer answer is cut at this length.
pub const SUMMARY_MAX_CHARS: usize = 800;

/// Notes kept per conversation, and the length of one.
pub const MAX_NOTES: usize = 20;
pub const NOTE_MAX_CHARS: usize = 200;

/// What the model's answer means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedSummary {
    pub summary: String,
    /// `Some` when the answer had a NOTES section with at least one note: the complete new list.
    pub notes: Option<Vec<ParsedNote>>,
}

/// One note of the model's new list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedNote {
    pub text: String,
    /// What the note replaced, as the model named it (an old note, or only the old value).
    pub was: Option<String>,
}

impl ParsedNote {
    /// A note that names nothing it replaced.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            was: None,
        }
    }
}

/// Reads the model's answer: a `SUMMARY` section and a `NOTES` section, each opened by a marker at
/// the start of a line (see `section_marker`). The summary is the first non-empty `SUMMARY`
/// section or, without one, the text before the first marker (the whole answer when it has no
/// marker at all). The notes are the items of every `NOTES` section. Marker lines never end up in
/// the summary or a note, and both are cut from the answer itself, so they are always its text.
/// Every Unicode line break ([`is_line_break`]) ends a line, not only `\n`.
pub fn parse_summary_answer(answer: &str) -> ParsedSummary {
    // Every offset below is a line start or where the rest of a marker line begins (a suffix of
    // that line), so every slice starts and ends on a character boundary.
    let mut sections = Sections::default();
    let mut open: Option<(Section, usize)> = None;
    let mut line_start = 0;
    for line in answer.split_inclusive(is_line_break) {
        if let Some((section, content)) = section_marker(line) {
            match open {
                Some((previous, start)) => sections.add(previous, &answer[start..line_start]),
                None => sections.preamble = &answer[..line_start],
            }
            open = Some((section, line_start + line.len() - content.len()));
        }
        line_start += line.len();
    }
    match open {
        Some((last, start)) => sections.add(last, &answer[start..]),
        None => sections.preamble = answer,
    }
    let summary = sections.summary.unwrap_or(sections.preamble.trim());
    ParsedSummary {
        summary: cap_chars(summary, SUMMARY_MAX_CHARS),
        notes: (!sections.notes.is_empty()).then_some(sections.notes),
    }
}

/// The two kinds of section in the model's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Section {
    Summary,
    Notes,
}

/// What [`parse_summary_answer`] has found so far.
#[derive(Default)]
struct Sections<'a> {
    preamble: &'a str,
    summary: Option<&'a str>,
    notes: Vec<ParsedNote>,
}

impl<'a> Sections<'a> {
    fn add(&mut self, section: Section, text: &'a str) {
        match section {
            Section::Summary if self.summary.is_none() && !text.trim().is_empty() => {
                self.summary = Some(text.trim());
            }
            // A model that repeats the heading has said what it had to say the first time.
            Section::Summary => {}
            Section::Notes => add_notes(&mut self.notes, text),
        }
    }
}

/// Characters that may come before a marker: Markdown headings, emphasis, quotes and list bullets.
const MARKER_LEAD: &[char] = &['*', '_', '#', '>', '-', '•'];

/// Characters that may close a marker's emphasis or heading before (or instead of) its colon.
const MARKER_TAIL: &[char] = &['*', '_', '#'];

/// The section a line opens and the rest of the line after its marker, or `None` for a line of
/// content. A marker is the word `SUMMARY` or `NOTES` in any ASCII case at the start of the line
/// (after whitespace and Markdown decoration), followed by a colon (`:` or the full-width `：`),
/// or alone on its line as a heading (`## Notes`, `**Summary**`). Markers repeated on one line
/// (`SUMMARY: NOTES: ...`) all go, and the last one names the section.
pub(super) fn section_marker(line: &str) -> Option<(Section, &str)> {
    let (mut section, mut rest) = one_marker(line)?;
    while let Some((next, after)) = one_marker(rest) {
        (section, rest) = (next, after);
    }
    Some((section, rest))
}

fn one_marker(text: &str) -> Option<(Section, &str)> {
    let start = text.trim_start_matches(|c: char| c.is_whitespace() || MARKER_LEAD.contains(&c));
    let (section, after_word) = [(Section::Summary, "SUMMARY"), (Section::Notes, "NOTES")]
        .into_iter()
        .find_map(|(section, word)| Some((section, strip_prefix_ascii_case(start, word)?)))?;
    let after_word =
        after_word.trim_start_matches(|c: char| c.is_whitespace() || MARKER_TAIL.contains(&c));
    if after_word.is_empty() {
        return Some((section, after_word));
    }
    let content = after_word.strip_prefix([':', '：'])?;
    // `**SUMMARY:** text`: the emphasis closes right after the colon.
    let content = content.trim_start_matches(['*', '_']).trim_start();
    Some((section, content))
}

/// `text` without `prefix` (ASCII) if it starts with it in any ASCII case. It compares bytes of
/// the text as written: upper-casing a copy first would change byte lengths (Turkish `ı` becomes
/// `I`, Armenian `և` becomes `ԵՒ`, Greek `ΐ` three characters) and so every offset after them.
fn strip_prefix_ascii_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.as_bytes().get(..prefix.len())?;
    // Bytes equal to an ASCII prefix are ASCII characters, so `get` finds a boundary there.
    head.eq_ignore_ascii_case(prefix.as_bytes())
        .then(|| text.get(prefix.len()..))
        .flatten()
}

/// Adds the items of one NOTES section to `notes`: one per line, without list bullets, skipping
/// blanks, "none" and repeats, up to [`MAX_NOTES`]. Every kind of line break ends a line, as in
/// [`parse_summary_answer`], so a note never holds a second line (which a model reading the
/// note later could take for a new section).
fn add_notes(notes: &mut Vec<ParsedNote>, section: &str) {
    for line in section.split(is_line_break) {
        if notes.len() == MAX_NOTES {
            return;
        }
        let note = line.trim().trim_start_matches(['-', '*', '•']).trim();
        let is_none = note.is_empty() || note.trim_matches('.').eq_ignore_ascii_case("none");
        if is_none {
            continue;
        }
        let (text, was) = split_replaced(note);
        let text = cap_chars(text, NOTE_MAX_CHARS);
        if !notes.iter().any(|kept| kept.text == text) {
            let was = was.map(|was| cap_chars(was, NOTE_MAX_CHARS));
            notes.push(ParsedNote { text, was });
        }
    }
}

/// Words a model puts before the value a note replaced, lower case: the prompt asks for `was`,
/// and models translate it into the conversation's language or say it their own way.
const REPLACED_LABELS: &[&str] = &[
    // English
    "was",
    "were",
    "previously",
    "formerly",
    "before",
    "earlier",
    "replaces",
    "replaced",
    "used to be",
    "changed from",
    // German
    "war",
    "waren",
    "vorher",
    "früher",
    "zuvor",
    "bisher",
    "davor",
    "ersetzt",
    "statt",
    // Russian and Ukrainian
    "было",
    "был",
    "была",
    "были",
    "раньше",
    "ранее",
    "прежде",
    "вместо",
    "до этого",
    "було",
    "раніше",
    // Spanish, Portuguese, Italian
    "antes",
    "era",
    "anteriormente",
    "previamente",
    "reemplaza",
    "sustituye",
    "substitui",
    "prima",
    "precedentemente",
    "sostituisce",
    // French
    "avant",
    "auparavant",
    "anciennement",
    "précédemment",
    "était",
    "remplace",
    // Dutch, Polish, Turkish
    "vroeger",
    "voorheen",
    "eerder",
    "wcześniej",
    "było",
    "poprzednio",
    "önceden",
    "eskiden",
    // Chinese, Japanese, Korean
    "以前",
    "之前",
    "原为",
    "原来",
    "曾经",
    "前は",
    "旧",
    "이전",
    "전에",
];

/// A note without its marker of what it replaced, and that value: `Lives in Leipzig (was:
/// Hamburg)`, `[vorher: Hamburg]`, `（以前：汉堡）`, or a clause after a dash or semicolon
/// (`Lives in Leipzig — previously: Hamburg`). The label and a colon are both needed: a closing
/// group without them (`Likes tea (green: sencha)`, `Wakes at 7 (before work)`) is part of the
/// note.
fn split_replaced(note: &str) -> (&str, Option<&str>) {
    let trimmed = note.trim_end().trim_end_matches(['.', '。']).trim_end();
    let closing = closing_group(trimmed)
        .and_then(|(text, inside)| replaced_value(inside).map(|was| (text, was)));
    let clause = || {
        trimmed
            .char_indices()
            .filter(|(_, c)| [';', '—', '–', '-', '|', ','].contains(c))
            .find_map(|(at, c)| {
                let was = replaced_value(&trimmed[at + c.len_utf8()..])?;
                Some((&trimmed[..at], was))
            })
    };
    let Some((text, was)) = closing.or_else(clause) else {
        return (note, None);
    };
    let text = text.trim_end().trim_end_matches([',', ';']).trim_end();
    // A marker that names nothing (`(was: none)`) or the note itself goes without a value.
    let is_nothing = was.is_empty()
        || ["none", "nothing", "-", "—", "n/a"].contains(&was.to_lowercase().as_str());
    match text.is_empty() {
        true => (note, None),
        false if is_nothing || was == text => (text, None),
        false => (text, Some(was)),
    }
}

/// The text before a closing `(...)`, `[...]` or `（...）` group at the end of `note`, and
/// what the group holds.
fn closing_group(note: &str) -> Option<(&str, &str)> {
    let (open, close) = [('(', ')'), ('[', ']'), ('（', '）')]
        .into_iter()
        .find(|(_, close)| note.ends_with(*close))?;
    let inner_end = note.len() - close.len_utf8();
    let start = note[..inner_end].rfind(open)?;
    Some((&note[..start], &note[start + open.len_utf8()..inner_end]))
}

/// The value after a label of [`REPLACED_LABELS`] and a colon at the start of `marker`, without
/// quotes (maybe empty); `None` when `marker` does not start so.
fn replaced_value(marker: &str) -> Option<&str> {
    let marker = marker.trim_start();
    // Compared character by character on the text itself: lower-casing a copy first could
    // change byte lengths and so where the label ends.
    let label_len = REPLACED_LABELS
        .iter()
        .filter_map(|label| {
            let len: usize = marker
                .chars()
                .take(label.chars().count())
                .map(char::len_utf8)
                .sum();
            marker[..len].to_lowercase().eq(*label).then_some(len)
        })
        .max()?;
    let value = marker[label_len..]
        .trim_start()
        .strip_prefix([':', '：', '='])?;
    Some(
        value
            .trim()
            .trim_matches(['"', '\'', '«', '»', '„', '“', '”', '‘', '’', '「', '」'])
            .trim(),
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::memory::strategies::{separated, tricky_or_any};
    use crate::memory::summary::test_support::{hostile_text, reads_as_a_marker};

    #[test]
    fn an_answer_with_both_sections_gives_summary_and_notes() {
        let parsed = parse_summary_answer(
            "SUMMARY:\nAsked where the Chemitek parcel is; UPS 1Z999.\n\nNOTES:\n- Works at Chemitek\n- Always answer in English\n- Works at Chemitek\n",
        );
        assert_eq!(
            parsed.summary,
            "Asked where the Chemitek parcel is; UPS 1Z999."
        );
        assert_eq!(
            parsed.notes,
            notes(&["Works at Chemitek", "Always answer in English"])
        );
    }

    #[test]
    fn notes_saying_none_keep_the_existing_list() {
        let parsed = parse_summary_answer("SUMMARY: Small talk.\nNOTES:\n- none");
        assert_eq!(parsed.summary, "Small talk.");
        assert_eq!(parsed.notes, None);
    }

    #[test]
    fn an_answer_without_markers_is_all_summary_and_long_ones_are_cut() {
        let parsed = parse_summary_answer(&"x".repeat(2_000));
        assert_eq!(parsed.summary.chars().count(), SUMMARY_MAX_CHARS);
        assert_eq!(parsed.notes, None);
    }

    fn notes(notes: &[&str]) -> Option<Vec<ParsedNote>> {
        Some(notes.iter().map(|note| ParsedNote::new(*note)).collect())
    }

    #[test]
    fn answers_whose_letters_change_length_when_upper_cased_are_cut_exactly_at_their_markers() {
        // (the language and why it is hard, the answer, its summary, its notes)
        let cases = [
            (
                "Turkish",
                "SUMMARY:\nKullanıcı, Ankara'daki siparişinin (no. 4711) ne zaman geleceğini sordu; kargo çarşamba bekleniyor.\n\nNOTES:\n- Türkçe yanıt istiyor\n- Ankara'da yaşıyor",
                "Kullanıcı, Ankara'daki siparişinin (no. 4711) ne zaman geleceğini sordu; kargo çarşamba bekleniyor.",
                ["Türkçe yanıt istiyor", "Ankara'da yaşıyor"],
            ),
            (
                "Greek: `ΐ` upper-cases to three characters, four bytes longer",
                "SUMMARY:\nΡώτησε για την πρωτεΐνη στο πρωινό· θα ξαναγράψει την Παρασκευή.\nNOTES:\n- Μιλάει ελληνικά\n- Ταΐζει τη γάτα στις 7",
                "Ρώτησε για την πρωτεΐνη στο πρωινό· θα ξαναγράψει την Παρασκευή.",
                ["Μιλάει ελληνικά", "Ταΐζει τη γάτα στις 7"],
            ),
            (
                "Armenian: `և` upper-cases to `ԵՒ`, two bytes longer",
                "SUMMARY: Հարցրեց Երևանի պատվերի և առաքման ժամկետի մասին։\nNOTES:\n- Ապրում է Երևանում\n- Նախընտրում է հայերեն",
                "Հարցրեց Երևանի պատվերի և առաքման ժամկետի մասին։",
                ["Ապրում է Երևանում", "Նախընտրում է հայերեն"],
            ),
        ];
        for (case, answer, summary, expected_notes) in cases {
            let parsed = parse_summary_answer(answer);
            assert_eq!(parsed.summary, summary, "{case}");
            assert_eq!(parsed.notes, notes(&expected_notes), "{case}");
        }
    }

    #[test]
    fn german_russian_arabic_and_emoji_answers_are_cut_exactly() {
        let cases = [
            (
                "Fragte nach der Straße und dem Maß; Lieferung am Dienstag.",
                "Wohnt in der Großstraße 5",
            ),
            (
                "Пользователь спросил о заказе 4711; доставка в среду.",
                "Говорит по-русски",
            ),
            (
                "سأل المستخدم عن الطلب 4711 وموعد التسليم يوم الأربعاء.",
                "يفضل الردود باللغة العربية",
            ),
            (
                "Planned the trip 🏔️🚆 to Zermatt with the family 👨‍👩‍👧.",
                "Loves trains 🚂",
            ),
        ];
        for (summary, note) in cases {
            let parsed =
                parse_summary_answer(&format!("SUMMARY:\n{summary}\n\nNOTES:\n- {note}\n"));

            assert_eq!(parsed.summary, summary);
            assert_eq!(parsed.notes, notes(&[note]));
        }
    }

    #[test]
    fn markers_in_any_case_and_markdown_decoration_are_recognised() {
        for answer in [
            "**Summary:** Asked about order 4711.\n\n**Notes:**\n- Works at Chemitek",
            "## SUMMARY\nAsked about order 4711.\n## NOTES\n- Works at Chemitek",
            "summary : Asked about order 4711.\nnotes：\n* Works at Chemitek",
            "Here you go.\n\nSUMMARY:\nAsked about order 4711.\n- NOTES:\n- Works at Chemitek",
        ] {
            let parsed = parse_summary_answer(answer);

            assert_eq!(parsed.summary, "Asked about order 4711.", "{answer}");
            assert_eq!(parsed.notes, notes(&["Works at Chemitek"]), "{answer}");
        }
    }

    #[test]
    fn a_marker_word_inside_a_line_is_text() {
        let parsed = parse_summary_answer(
            "SUMMARY: Went through the meeting notes: budget 40k, summary: approved.\nNOTES:\n- Works in finance",
        );
        assert_eq!(
            parsed.summary,
            "Went through the meeting notes: budget 40k, summary: approved."
        );
        assert_eq!(parsed.notes, notes(&["Works in finance"]));
    }

    #[test]
    fn notes_before_the_summary_and_repeated_markers_never_end_up_in_the_text() {
        let parsed = parse_summary_answer(
            "NOTES:\n- Works at Chemitek\nNOTES:\n- NOTES:\nSUMMARY: NOTES: Likes tea\nSUMMARY:\nAsked about order 4711.\nSUMMARY: A second try.",
        );
        assert_eq!(parsed.summary, "Asked about order 4711.");
        assert_eq!(parsed.notes, notes(&["Works at Chemitek", "Likes tea"]));
    }

    #[test]
    fn text_before_the_first_marker_is_the_summary_when_there_is_no_summary_section() {
        let parsed = parse_summary_answer("Asked about order 4711.\nNOTES:\n- none");
        assert_eq!(parsed.summary, "Asked about order 4711.");
        assert_eq!(parsed.notes, None);
    }

    /// Whether `part` is text of `answer`, allowing for the `…` that marks a cut.
    fn is_text_of(answer: &str, part: &str) -> bool {
        answer.contains(part)
            || part
                .strip_suffix('…')
                .is_some_and(|kept| answer.contains(kept))
    }

    fn check_parsed(answer: &str) -> Result<(), TestCaseError> {
        let parsed = parse_summary_answer(answer);
        prop_assert!(
            is_text_of(answer, &parsed.summary),
            "summary {:?}",
            parsed.summary
        );
        for line in parsed.summary.split(is_line_break) {
            prop_assert!(
                !reads_as_a_marker(line),
                "marker in the summary {:?}",
                parsed.summary
            );
        }
        prop_assert!(parsed.summary.chars().count() <= SUMMARY_MAX_CHARS);
        let notes = parsed.notes.unwrap_or_default();
        prop_assert!(notes.len() <= MAX_NOTES);
        for note in notes.iter().map(|note| &note.text) {
            prop_assert!(is_text_of(answer, note), "note {note:?}");
            prop_assert!(
                !note.contains(is_line_break),
                "a note of two lines {note:?}"
            );
            prop_assert!(!reads_as_a_marker(note), "marker as a note {note:?}");
            prop_assert!(!note.is_empty() && note.chars().count() <= NOTE_MAX_CHARS);
        }
        Ok(())
    }

    /// Answers built from markers (well-formed or not), characters whose upper case has another
    /// byte length, list bullets and arbitrary text, on lines or run together.
    fn answer_pieces() -> impl Strategy<Value = String> {
        let piece = tricky_or_any(vec![
            "SUMMARY:",
            "NOTES:",
            "summary",
            "Notes :",
            "**Summary:**",
            "## NOTES",
            "- NOTES:",
            "notes：",
            "SUMMARY: NOTES:",
            "- none",
            "- ",
            "ı",
            "ΐ",
            "և",
            "ß",
            "ŉ",
            "ﬁ",
            "İ",
            "Σ",
            "🏔️",
            "\r",
            "\u{2028}",
            "\u{85}",
        ]);
        separated(piece, vec!["\n", "\n", " ", "", "\r\n"], 0..24)
    }

    /// One line of arbitrary printable text that does not open a section.
    fn text_line() -> impl Strategy<Value = String> {
        "[^\\p{C}\\p{Zl}\\p{Zp}]{1,60}".prop_filter("not a marker", |line| !reads_as_a_marker(line))
    }

    /// One note as the model would write it after its bullet.
    fn note_text() -> impl Strategy<Value = String> {
        text_line().prop_filter("a note kept as written", |note| {
            note.trim() == note
                && !note.starts_with(['-', '*', '•'])
                && !note.trim_matches('.').eq_ignore_ascii_case("none")
        })
    }

    proptest! {
        #[test]
        fn arbitrary_unicode_answers_never_panic_and_leave_no_marker_behind(answer in any::<String>()) {
            check_parsed(&answer)?;
        }

        #[test]
        fn answers_mixing_markers_and_unicode_never_panic_and_leave_no_marker_behind(
            answer in answer_pieces(),
        ) {
            check_parsed(&answer)?;
        }

        #[test]
        fn a_well_formed_answer_in_any_script_gives_back_its_summary_and_notes(
            summary_lines in prop::collection::vec(text_line(), 1..5),
            notes in prop::collection::btree_set(note_text(), 1..6),
        ) {
            let summary = summary_lines.join("\n");
            prop_assume!(!summary.trim().is_empty());
            let notes: Vec<String> = notes.into_iter().collect();
            let bullets: Vec<String> = notes.iter().map(|note| format!("- {note}")).collect();
            let answer = format!("SUMMARY:\n{summary}\n\nNOTES:\n{}\n", bullets.join("\n"));

            let parsed = parse_summary_answer(&answer);

            prop_assert_eq!(parsed.summary, summary.trim());
            let expected = notes.into_iter().map(ParsedNote::new).collect();
            prop_assert_eq!(parsed.notes, Some(expected));
        }
    }

    #[test]
    fn a_marker_after_any_line_break_opens_a_section_and_no_note_spans_two_lines() {
        let parsed = parse_summary_answer(
            "SUMMARY: Chat.\u{2028}NOTES:\u{2029}- Likes tea\r- Owns a bike\u{85}notes: - Plays chess",
        );
        assert_eq!(parsed.summary, "Chat.");
        assert_eq!(
            parsed.notes,
            notes(&["Likes tea", "Owns a bike", "Plays chess"])
        );
    }

    proptest! {
        #[test]
        fn an_answer_echoing_hostile_text_yields_no_note_with_a_second_line(
            echoed in hostile_text(),
        ) {
            check_parsed(&format!("SUMMARY: {echoed}\nNOTES:\n- {echoed}"))?;
        }
    }

    fn changed(text: &str, was: &str) -> ParsedNote {
        ParsedNote {
            text: text.to_owned(),
            was: Some(was.to_owned()),
        }
    }

    #[test]
    fn a_rewritten_note_names_what_it_replaced_in_many_spellings_and_languages() {
        let parsed = parse_summary_answer(
            "SUMMARY: Moved.\nNOTES:\n\
             - Lives in Leipzig (was: Hamburg)\n\
             - Works at BASF [previously: Works at Chemitek].\n\
             - Wohnt in Leipzig (früher: Hamburg)\n\
             - Живёт в Лейпциге (было: Гамбург)\n\
             - Vive en Leipzig (antes: «Hamburgo»)\n\
             - Habite à Leipzig — auparavant : Hambourg\n\
             - 住在莱比锡（以前：汉堡）\n\
             - Drinks tea; WAS: coffee\n\
             - Always answer in German (Was: Always answer in English)",
        );
        assert_eq!(
            parsed.notes,
            Some(vec![
                changed("Lives in Leipzig", "Hamburg"),
                changed("Works at BASF", "Works at Chemitek"),
                changed("Wohnt in Leipzig", "Hamburg"),
                changed("Живёт в Лейпциге", "Гамбург"),
                changed("Vive en Leipzig", "Hamburgo"),
                changed("Habite à Leipzig", "Hambourg"),
                changed("住在莱比锡", "汉堡"),
                changed("Drinks tea", "coffee"),
                changed("Always answer in German", "Always answer in English"),
            ])
        );
    }

    #[test]
    fn a_closing_group_that_is_no_marker_stays_in_the_note() {
        let kept = [
            "Likes tea (green: sencha)",
            "Wakes at 7 (before work)",
            "Lives in Baden-Baden",
            "Was a teacher until 2020",
            "Owns a washing machine (washer: Miele)",
            "Was: a pilot",
        ];
        for note in kept {
            let parsed = parse_summary_answer(&format!("SUMMARY: x\nNOTES:\n- {note}"));
            assert_eq!(parsed.notes, notes(&[note]), "{note}");
        }
    }

    #[test]
    fn a_marker_naming_nothing_or_the_note_itself_goes_without_a_value() {
        let parsed = parse_summary_answer(
            "SUMMARY: x\nNOTES:\n- Has a dog (was: none)\n- Lives in Leipzig (was: Lives in Leipzig)",
        );
        assert_eq!(parsed.notes, notes(&["Has a dog", "Lives in Leipzig"]));
    }
}
