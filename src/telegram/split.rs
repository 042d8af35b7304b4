//! Cuts a reply into messages that each fit Telegram's length limit: rendered Telegram HTML
//! ([`split_for_telegram`]) or plain text ([`split_plain_text`]).
//!
//! Everything here is a pure function of its input: no teloxide types, no I/O.
//!
//! # How splitting counts and where it cuts
//! Telegram measures a message in UTF-16 code units of its *visible* text, after tags are removed
//! and entities such as `&amp;` are decoded, so the splitters count the same way. A cut prefers,
//! in this order: right after a blank line (paragraph), right after a line break, right after a
//! space, and only then anywhere between two characters, avoiding cuts in front of combining
//! marks and joiners. The farthest cut of the best kind within the limit wins.
//!
//! Nothing is dropped or moved: the separator a cut is made at stays at the end of the earlier
//! part, so concatenating the parts' visible text gives back exactly the input's visible text
//! (and, for plain text, exactly the input). Telegram trims whitespace at the ends of a message,
//! which is why keeping the separator costs nothing visible. A part is never empty; a part made
//! only of whitespace is possible only if the input holds a whitespace run longer than `max_len`.
//! Every part holds at least one character, so a `max_len` below 2 can be exceeded by a
//! character that needs two UTF-16 code units.

/// Telegram's limit on one message's text, in UTF-16 code units after entity parsing: the size
/// every split aims at.
pub const TELEGRAM_MAX_CHARS: usize = 4_096;

/// Splits Telegram HTML into parts of at most `max_len` UTF-16 code units of visible text each.
///
/// Tags never cross a cut: tags still open at a cut are closed at the end of the part and
/// reopened, with the same attributes, at the start of the next. Entities and characters are
/// never cut in half. See the module documentation for where cuts go and what is guaranteed.
pub fn split_for_telegram(html: &str, max_len: usize) -> Vec<String> {
    split_pieces(&html_pieces(html), max_len)
}

/// Splits plain text into parts of at most `max_len` UTF-16 code units each, cutting where
/// [`split_for_telegram`] would; concatenating the parts gives back `text` exactly.
pub fn split_plain_text(text: &str, max_len: usize) -> Vec<String> {
    let pieces: Vec<Piece<'_>> = text
        .char_indices()
        .map(|(start, ch)| Piece {
            raw: &text[start..start + ch.len_utf8()],
            kind: PieceKind::Char(ch),
        })
        .collect();
    split_pieces(&pieces, max_len)
}

/// A lexical unit of the text being split; a cut only ever falls between two pieces.
struct Piece<'a> {
    raw: &'a str,
    kind: PieceKind<'a>,
}

enum PieceKind<'a> {
    /// One visible character, written either literally or as an entity like `&amp;`.
    Char(char),
    /// A start tag; its name is needed to close it at a cut.
    Open(&'a str),
    Close,
}

/// Where a cut right after a character falls, worst first; the derived order is the preference.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cut {
    /// Between a character and a combining mark or joiner: splits what the reader sees as one.
    InsideCluster,
    Anywhere,
    AfterSpace,
    AfterLineBreak,
    AfterBlankLine,
}

/// Cuts HTML into pieces without judging it: the input is our own renderer's output (or other
/// valid Telegram HTML), so anything unexpected, like a lone `<`, is kept as a visible character
/// rather than rejected.
fn html_pieces(html: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut index = 0;
    while let Some(ch) = html[index..].chars().next() {
        let rest = &html[index..];
        let piece = match ch {
            '<' => rest.find('>').map(|end| tag_piece(&rest[..=end])),
            '&' => entity_piece(rest),
            _ => None,
        }
        .unwrap_or(Piece {
            raw: &rest[..ch.len_utf8()],
            kind: PieceKind::Char(ch),
        });
        index += piece.raw.len();
        pieces.push(piece);
    }
    pieces
}

fn tag_piece(raw: &str) -> Piece<'_> {
    if raw.starts_with("</") {
        return Piece {
            raw,
            kind: PieceKind::Close,
        };
    }
    let inner = &raw[1..raw.len() - 1];
    let name_end = inner
        .find(|ch: char| ch.is_ascii_whitespace())
        .unwrap_or(inner.len());
    Piece {
        raw,
        kind: PieceKind::Open(&inner[..name_end]),
    }
}

/// The longest entity Telegram accepts is `&#x10FFFF;`, so a `;` further away ends no entity.
const MAX_ENTITY_LEN: usize = 10;

fn entity_piece(rest: &str) -> Option<Piece<'_>> {
    let end = rest
        .bytes()
        .take(MAX_ENTITY_LEN)
        .position(|byte| byte == b';')?;
    let raw = &rest[..=end];
    let ch = decode_entity(&raw[1..end])?;
    Some(Piece {
        raw,
        kind: PieceKind::Char(ch),
    })
}

fn decode_entity(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

/// Marks that belong to the character before them; a hard cut in front of one would split what
/// the reader sees as a single symbol. A heuristic over the common ranges, not full Unicode
/// grapheme segmentation, which would need a dependency for a last-resort case.
fn continues_previous(ch: char) -> bool {
    matches!(ch,
        '\u{0300}'..='\u{036F}'
        | '\u{0483}'..='\u{0489}'
        | '\u{0591}'..='\u{05C7}'
        | '\u{0610}'..='\u{061A}'
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}'
        | '\u{0900}'..='\u{0903}'
        | '\u{093A}'..='\u{094F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{200C}'..='\u{200D}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{3099}'..='\u{309A}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FE20}'..='\u{FE2F}'
        | '\u{1F3FB}'..='\u{1F3FF}'
        | '\u{E0020}'..='\u{E007F}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// For every piece, the quality of a cut right after it (`None` for tags, which are not cut
/// points: a cut goes after the character before them).
fn cut_qualities(pieces: &[Piece<'_>]) -> Vec<Option<Cut>> {
    let chars: Vec<(usize, char)> = pieces
        .iter()
        .enumerate()
        .filter_map(|(index, piece)| match piece.kind {
            PieceKind::Char(ch) => Some((index, ch)),
            _ => None,
        })
        .collect();
    let mut qualities = vec![None; pieces.len()];
    for (position, &(index, ch)) in chars.iter().enumerate() {
        let previous = position.checked_sub(1).map(|before| chars[before].1);
        let next = chars.get(position + 1).map(|&(_, next)| next);
        let quality = if ch == '\u{200D}' || next.is_some_and(continues_previous) {
            Cut::InsideCluster
        } else if ch == '\n' && previous == Some('\n') {
            Cut::AfterBlankLine
        } else if ch == '\n' {
            Cut::AfterLineBreak
        } else if ch == ' ' || ch == '\t' {
            Cut::AfterSpace
        } else {
            Cut::Anywhere
        };
        qualities[index] = Some(quality);
    }
    qualities
}

/// The end (exclusive) of the part starting at `start`: the best cut among the pieces that fit.
fn part_end(
    pieces: &[Piece<'_>],
    qualities: &[Option<Cut>],
    start: usize,
    max_len: usize,
) -> usize {
    let mut used = 0;
    let mut best: Option<(Cut, usize)> = None;
    for (index, piece) in pieces.iter().enumerate().skip(start) {
        let PieceKind::Char(ch) = piece.kind else {
            continue;
        };
        used += ch.len_utf16();
        // The first character always goes in (`best` is still empty), or a part could be empty.
        if used > max_len
            && let Some((_, end)) = best
        {
            return end;
        }
        if let Some(quality) = qualities[index]
            && best.is_none_or(|(best_quality, _)| quality >= best_quality)
        {
            best = Some((quality, index + 1));
        }
    }
    pieces.len()
}

fn split_pieces(pieces: &[Piece<'_>], max_len: usize) -> Vec<String> {
    let qualities = cut_qualities(pieces);
    let has_char_from = |from: usize| {
        pieces[from..]
            .iter()
            .any(|piece| matches!(piece.kind, PieceKind::Char(_)))
    };
    let mut parts = Vec::new();
    // Start tags open at the current position, to reopen at the start of the next part.
    let mut open: Vec<&Piece<'_>> = Vec::new();
    let mut start = 0;
    while start < pieces.len() {
        let mut end = part_end(pieces, &qualities, start, max_len);
        // End tags right after the cut close elements that end there; they belong to this part.
        while end < pieces.len() && matches!(pieces[end].kind, PieceKind::Close) {
            end += 1;
        }
        // Trailing tags with no text after them would make an invisible part of their own.
        if !has_char_from(end) {
            end = pieces.len();
        }
        let mut part: String = open.iter().map(|piece| piece.raw).collect();
        for piece in &pieces[start..end] {
            part.push_str(piece.raw);
            match piece.kind {
                PieceKind::Open(_) => open.push(piece),
                PieceKind::Close => {
                    open.pop();
                }
                PieceKind::Char(_) => {}
            }
        }
        for piece in open.iter().rev() {
            if let PieceKind::Open(name) = piece.kind {
                part.push_str(&format!("</{name}>"));
            }
        }
        parts.push(part);
        start = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telegram::render::markdown_to_telegram_html;

    fn visible_len(html: &str) -> usize {
        html_pieces(html)
            .iter()
            .map(|piece| match piece.kind {
                PieceKind::Char(ch) => ch.len_utf16(),
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn short_html_is_returned_as_one_unchanged_part() {
        let html = "<b>hi</b> &amp; bye";
        assert_eq!(
            split_for_telegram(html, TELEGRAM_MAX_CHARS),
            vec![html.to_owned()]
        );
    }

    #[test]
    fn empty_input_gives_no_parts() {
        assert!(split_for_telegram("", 10).is_empty());
        assert!(split_plain_text("", 10).is_empty());
    }

    /// Where text is cut: (what the case shows, the splitter, its input, the limit, the parts).
    type SplitCase = (
        &'static str,
        fn(&str, usize) -> Vec<String>,
        &'static str,
        usize,
        &'static [&'static str],
    );

    const CUTS: &[SplitCase] = &[
        (
            "a blank line is preferred over later line breaks and spaces",
            split_plain_text,
            "aaa\n\nbbb\nccc ddd",
            14,
            &["aaa\n\n", "bbb\nccc ddd"],
        ),
        (
            "a line break is preferred over later spaces",
            split_plain_text,
            "aa bb\ncc dd ee",
            10,
            &["aa bb\n", "cc dd ee"],
        ),
        (
            "a space is preferred over a hard cut",
            split_plain_text,
            "aaaa bbbbbbbb",
            8,
            &["aaaa ", "bbbbbbbb"],
        ),
        (
            "a long word is cut hard at the limit",
            split_plain_text,
            "abcdefghij",
            4,
            &["abcd", "efgh", "ij"],
        ),
        (
            // Each emoji is two UTF-16 code units, so only one fits in three.
            "a surrogate pair is never cut",
            split_plain_text,
            "😀😀😀",
            3,
            &["😀", "😀", "😀"],
        ),
        (
            "hard cuts avoid separating a combining mark from its letter",
            split_plain_text,
            "abe\u{301}",
            3,
            &["ab", "e\u{301}"],
        ),
        (
            "an entity counts as one character and is never cut",
            split_for_telegram,
            "a&amp;b&lt;c",
            2,
            &["a&amp;", "b&lt;", "c"],
        ),
        (
            "open tags are closed and reopened with their attributes",
            split_for_telegram,
            "<a href=\"https://x.y\"><b>aaa bbb</b></a> ccc",
            4,
            &[
                "<a href=\"https://x.y\"><b>aaa </b></a>",
                "<a href=\"https://x.y\"><b>bbb</b></a> ",
                "ccc",
            ],
        ),
        (
            "an element ending at a cut is closed in the earlier part",
            split_for_telegram,
            "<i>one </i><b>two</b>",
            4,
            &["<i>one </i>", "<b>two</b>"],
        ),
        (
            "code blocks are reopened with their language",
            split_for_telegram,
            "<pre><code class=\"language-rust\">let a;\nlet b;</code></pre>",
            8,
            &[
                "<pre><code class=\"language-rust\">let a;\n</code></pre>",
                "<pre><code class=\"language-rust\">let b;</code></pre>",
            ],
        ),
    ];

    #[test]
    fn text_is_cut_where_it_reads_best_and_html_stays_well_formed() {
        for (case, split, input, limit, parts) in CUTS {
            assert_eq!(split(input, *limit), *parts, "{case}");
        }
    }

    #[test]
    fn every_html_part_fits_the_limit_in_utf16_units() {
        let html = markdown_to_telegram_html(&"word 😀 **bold** `a<b` \n".repeat(300));
        let parts = split_for_telegram(&html, 100);
        assert!(parts.len() > 1);
        assert!(parts.iter().all(|part| visible_len(part) <= 100));
    }

    #[test]
    fn plain_text_parts_concatenate_to_the_input() {
        let text = "אבג דהו 漢字 e\u{301}\n\n".repeat(50) + &"x".repeat(500);
        let parts = split_plain_text(&text, 37);
        assert_eq!(parts.concat(), text);
        assert!(
            parts
                .iter()
                .all(|part| part.encode_utf16().count() <= 37 && !part.is_empty())
        );
    }
}
