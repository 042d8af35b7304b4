//! Shapes the model's replies for Telegram: [`markdown_to_telegram_html`] turns the Markdown that
//! LLMs write into the small HTML dialect Telegram accepts with `parse_mode=HTML`, and
//! [`split_for_telegram`] / [`split_plain_text`] cut a long reply into messages that each fit
//! Telegram's length limit.
//!
//! Everything here is a pure function of its input: no teloxide types, no I/O. The renderer only
//! ever emits tags from Telegram's allow-list and escapes everything else, so nothing the model
//! writes (raw HTML, `javascript:` links, stray `<` or `&`) can make Telegram reject the message
//! or smuggle markup into it.
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

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Telegram's limit on one message's text, in UTF-16 code units after entity parsing: the size
/// every split of this module aims at.
pub const TELEGRAM_MAX_CHARS: usize = 4_096;

/// Link schemes Telegram users can safely open; any other link is rendered as its text only.
const ALLOWED_LINK_SCHEMES: [&str; 4] = ["http://", "https://", "tg://", "mailto:"];

/// Renders Markdown as Telegram HTML (`parse_mode=HTML`).
///
/// The output uses only `b`, `i`, `s`, `code`, `pre`, `pre><code class="language-…">`,
/// `a href="…"` and `blockquote`, always properly nested. Block structure is expressed with
/// plain text: blank lines between paragraphs, `• ` / `1. ` list markers, bold headings, and
/// tables as aligned monospace text. An empty or whitespace-only input renders as an empty
/// string, which the caller must not send.
pub fn markdown_to_telegram_html(markdown: &str) -> String {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    let mut renderer = Renderer::default();
    for event in Parser::new_ext(markdown, options) {
        renderer.handle(event);
    }
    renderer.out
}

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

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// Text collected whole before it is emitted, because it must be trimmed or wrapped at its end.
enum Verbatim {
    Code {
        language: Option<String>,
        text: String,
    },
    Html(String),
}

/// A table being collected; Telegram has no tables, so it is emitted as aligned `pre` text.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    header_rows: usize,
}

impl Table {
    fn push_text(&mut self, text: &str) {
        if let Some(cell) = self.rows.last_mut().and_then(|row| row.last_mut()) {
            cell.push_str(text);
        }
    }

    fn to_text(&self) -> String {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|column| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(column))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut lines = Vec::with_capacity(self.rows.len() + 1);
        for (index, row) in self.rows.iter().enumerate() {
            let cells: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(column, width)| {
                    let cell = row.get(column).map(String::as_str).unwrap_or("");
                    let padding = width.saturating_sub(cell.chars().count());
                    format!("{cell}{}", " ".repeat(padding))
                })
                .collect();
            lines.push(cells.join(" | ").trim_end().to_owned());
            if index + 1 == self.header_rows {
                let rule: Vec<String> = widths.iter().map(|width| "-".repeat(*width)).collect();
                lines.push(rule.join("-+-"));
            }
        }
        lines.join("\n")
    }
}

#[derive(Default)]
struct Renderer {
    out: String,
    /// Line breaks owed before the next visible content. Block ends only *owe* their separator,
    /// so nothing trails the last block and closing tags stay glued to their content.
    pending_newlines: usize,
    /// One entry per open list: the next number of an ordered list, `None` for bullets.
    lists: Vec<Option<u64>>,
    /// One entry per open link: whether an `<a>` was emitted (unsafe links are text only).
    links: Vec<bool>,
    /// One entry per open image: its URL and where its alt text began in `out`.
    images: Vec<(String, usize)>,
    /// Telegram cannot nest block quotes, so only the outermost one becomes a tag.
    blockquote_depth: usize,
    verbatim: Option<Verbatim>,
    table: Option<Table>,
}

impl Renderer {
    fn handle(&mut self, event: Event<'_>) {
        if self.table.is_some() {
            self.handle_in_table(event);
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                self.flush();
                self.out.push_str("<code>");
                escape_text_into(&mut self.out, &code);
                self.out.push_str("</code>");
            }
            // The model's raw HTML is shown as the text it is, never interpreted.
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            Event::FootnoteReference(label) => self.text(&format!("[{label}]")),
            Event::SoftBreak | Event::HardBreak => self.text("\n"),
            Event::Rule => {
                self.flush();
                self.out.push_str("———");
                self.owe_newlines(2);
            }
            Event::TaskListMarker(checked) => self.text(if checked { "☑ " } else { "☐ " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.flush(),
            Tag::Heading { .. } => self.open("<b>"),
            Tag::BlockQuote(_) => {
                if self.blockquote_depth == 0 {
                    self.open("<blockquote>");
                }
                self.blockquote_depth += 1;
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split_whitespace()
                        .next()
                        .map(str::to_owned)
                        .filter(|language| !language.is_empty()),
                    CodeBlockKind::Indented => None,
                };
                self.verbatim = Some(Verbatim::Code {
                    language,
                    text: String::new(),
                });
            }
            Tag::HtmlBlock => {
                self.flush();
                self.verbatim = Some(Verbatim::Html(String::new()));
            }
            Tag::List(start) => {
                // A list nested in an item starts on the line after the item's own text.
                if !self.lists.is_empty() {
                    self.owe_newlines(1);
                }
                self.lists.push(start);
            }
            Tag::Item => self.start_item(),
            Tag::FootnoteDefinition(label) => self.text(&format!("[{label}]: ")),
            Tag::Table(_) => {
                self.flush();
                self.table = Some(Table::default());
            }
            // Only reachable inside a table, which `handle_in_table` deals with.
            Tag::TableHead | Tag::TableRow | Tag::TableCell => {}
            Tag::Emphasis => self.open("<i>"),
            Tag::Strong => self.open("<b>"),
            Tag::Strikethrough => self.open("<s>"),
            // Telegram has no superscript or subscript; the text alone reads fine.
            Tag::Superscript | Tag::Subscript => {}
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => {
                let href = if link_type == LinkType::Email {
                    format!("mailto:{dest_url}")
                } else {
                    dest_url.to_string()
                };
                let safe = is_allowed_link(&href);
                if safe {
                    let mut tag = String::from("<a href=\"");
                    escape_attribute_into(&mut tag, &href);
                    tag.push_str("\">");
                    self.open(&tag);
                }
                self.links.push(safe);
            }
            Tag::Image { dest_url, .. } => {
                self.flush();
                self.images.push((dest_url.to_string(), self.out.len()));
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::DefinitionList
            | TagEnd::MetadataBlock(_)
            | TagEnd::FootnoteDefinition => self.owe_newlines(2),
            TagEnd::DefinitionListTitle | TagEnd::DefinitionListDefinition => self.owe_newlines(1),
            TagEnd::Heading(_) => {
                self.out.push_str("</b>");
                self.owe_newlines(2);
            }
            TagEnd::BlockQuote(_) => {
                self.blockquote_depth = self.blockquote_depth.saturating_sub(1);
                if self.blockquote_depth == 0 {
                    self.out.push_str("</blockquote>");
                }
                self.owe_newlines(2);
            }
            TagEnd::CodeBlock | TagEnd::HtmlBlock => self.end_verbatim(),
            TagEnd::List(_) => {
                self.lists.pop();
                self.owe_newlines(if self.lists.is_empty() { 2 } else { 1 });
            }
            TagEnd::Item => self.owe_newlines(1),
            TagEnd::Table | TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell => {}
            TagEnd::Emphasis => self.out.push_str("</i>"),
            TagEnd::Strong => self.out.push_str("</b>"),
            TagEnd::Strikethrough => self.out.push_str("</s>"),
            TagEnd::Superscript | TagEnd::Subscript => {}
            TagEnd::Link => {
                if self.links.pop() == Some(true) {
                    self.out.push_str("</a>");
                }
            }
            TagEnd::Image => {
                if let Some((url, alt_start)) = self.images.pop() {
                    let has_alt = self.out.len() > alt_start;
                    match (has_alt, url.is_empty()) {
                        (_, true) => {}
                        (true, false) => self.text(&format!(" ({url})")),
                        (false, false) => self.text(&url),
                    }
                }
            }
        }
    }

    fn handle_in_table(&mut self, event: Event<'_>) {
        let Some(table) = self.table.as_mut() else {
            return;
        };
        match event {
            Event::Start(Tag::TableHead | Tag::TableRow) => table.rows.push(Vec::new()),
            Event::Start(Tag::TableCell) => {
                if let Some(row) = table.rows.last_mut() {
                    row.push(String::new());
                }
            }
            Event::End(TagEnd::TableHead) => table.header_rows = table.rows.len(),
            Event::End(TagEnd::Table) => {
                let text = table.to_text();
                self.table = None;
                self.out.push_str("<pre>");
                escape_text_into(&mut self.out, &text);
                self.out.push_str("</pre>");
                self.owe_newlines(2);
            }
            // `pre` cannot hold formatting, so cells keep only their text.
            Event::Text(text)
            | Event::Code(text)
            | Event::Html(text)
            | Event::InlineHtml(text)
            | Event::InlineMath(text)
            | Event::DisplayMath(text)
            | Event::FootnoteReference(text) => table.push_text(&text),
            Event::SoftBreak | Event::HardBreak => table.push_text(" "),
            Event::Start(_) | Event::End(_) | Event::Rule | Event::TaskListMarker(_) => {}
        }
    }

    fn start_item(&mut self) {
        self.flush();
        let depth = self.lists.len();
        self.out.push_str(&"  ".repeat(depth.saturating_sub(1)));
        match self.lists.last_mut() {
            Some(Some(number)) => {
                self.out.push_str(&format!("{number}. "));
                *number += 1;
            }
            _ => self.out.push_str("• "),
        }
    }

    fn end_verbatim(&mut self) {
        match self.verbatim.take() {
            Some(Verbatim::Code { language, text }) => {
                // The fence's closing line leaves a newline that would show as an empty line.
                let code = text.strip_suffix('\n').unwrap_or(&text);
                match language {
                    Some(language) => {
                        self.out.push_str("<pre><code class=\"language-");
                        escape_attribute_into(&mut self.out, &language);
                        self.out.push_str("\">");
                        escape_text_into(&mut self.out, code);
                        self.out.push_str("</code></pre>");
                    }
                    None => {
                        self.out.push_str("<pre>");
                        escape_text_into(&mut self.out, code);
                        self.out.push_str("</pre>");
                    }
                }
            }
            Some(Verbatim::Html(html)) => escape_text_into(&mut self.out, html.trim_end()),
            None => {}
        }
        self.owe_newlines(2);
    }

    fn text(&mut self, text: &str) {
        match self.verbatim.as_mut() {
            Some(Verbatim::Code { text: buffer, .. } | Verbatim::Html(buffer)) => {
                buffer.push_str(text);
            }
            None => {
                self.flush();
                escape_text_into(&mut self.out, text);
            }
        }
    }

    /// Emits an opening tag after any owed separator, so the separator stays outside the tag.
    fn open(&mut self, tag: &str) {
        self.flush();
        self.out.push_str(tag);
    }

    fn owe_newlines(&mut self, count: usize) {
        self.pending_newlines = self.pending_newlines.max(count);
    }

    fn flush(&mut self) {
        if !self.out.is_empty() {
            self.out.push_str(&"\n".repeat(self.pending_newlines));
        }
        self.pending_newlines = 0;
    }
}

fn is_allowed_link(href: &str) -> bool {
    let href = href.trim_start();
    ALLOWED_LINK_SCHEMES.iter().any(|scheme| {
        href.get(..scheme.len())
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(scheme))
    })
}

fn escape_text_into(out: &mut String, text: &str) {
    for ch in text.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            _ => out.push(ch),
        }
    }
}

fn escape_attribute_into(out: &mut String, value: &str) {
    for ch in value.chars() {
        match ch {
            '"' => out.push_str("&quot;"),
            _ => escape_text_into(out, ch.encode_utf8(&mut [0; 4])),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Splitting
// ---------------------------------------------------------------------------------------------

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
    fn inline_formatting_maps_to_telegram_tags() {
        let html = markdown_to_telegram_html("**bold** *italic* ~~gone~~ `x < y`");
        assert_eq!(
            html,
            "<b>bold</b> <i>italic</i> <s>gone</s> <code>x &lt; y</code>"
        );
    }

    #[test]
    fn paragraphs_are_separated_by_one_blank_line_and_nothing_trails() {
        let html = markdown_to_telegram_html("first\nline\n\n\n\nsecond\n\n");
        assert_eq!(html, "first\nline\n\nsecond");
    }

    #[test]
    fn special_characters_in_text_are_escaped() {
        let html = markdown_to_telegram_html("a < b && c > d \"quoted\"");
        assert_eq!(html, "a &lt; b &amp;&amp; c &gt; d \"quoted\"");
    }

    #[test]
    fn raw_html_from_the_model_is_shown_as_text() {
        let html = markdown_to_telegram_html("say <b onclick=\"x\">hi</b>\n\n<div>\nblock\n</div>");
        assert_eq!(
            html,
            "say &lt;b onclick=\"x\"&gt;hi&lt;/b&gt;\n\n&lt;div&gt;\nblock\n&lt;/div&gt;"
        );
    }

    #[test]
    fn headings_become_bold_lines() {
        let html = markdown_to_telegram_html("# Title *here*\ntext");
        assert_eq!(html, "<b>Title <i>here</i></b>\n\ntext");
    }

    #[test]
    fn fenced_code_keeps_its_language_and_loses_the_closing_newline() {
        let html = markdown_to_telegram_html("```rust\nfn main() { a < b }\n```\nafter");
        assert_eq!(
            html,
            "<pre><code class=\"language-rust\">fn main() { a &lt; b }</code></pre>\n\nafter"
        );
    }

    #[test]
    fn code_without_a_language_is_a_bare_pre() {
        let html = markdown_to_telegram_html("    indented & code\n");
        assert_eq!(html, "<pre>indented &amp; code</pre>");
    }

    #[test]
    fn a_hostile_code_language_is_escaped_inside_the_attribute() {
        let html = markdown_to_telegram_html("```a\"><b>\nx\n```");
        assert_eq!(
            html,
            "<pre><code class=\"language-a&quot;&gt;&lt;b&gt;\">x</code></pre>"
        );
    }

    #[test]
    fn safe_links_keep_an_escaped_href() {
        let html = markdown_to_telegram_html("[docs](https://example.com/?a=1&b=\"2\")");
        assert_eq!(
            html,
            "<a href=\"https://example.com/?a=1&amp;b=&quot;2&quot;\">docs</a>"
        );
    }

    #[test]
    fn unsafe_or_relative_links_keep_only_their_text() {
        let html = markdown_to_telegram_html(
            "[click](javascript:alert(1)) [data](data:text/html,x) [rel](/path)",
        );
        assert_eq!(html, "click data rel");
    }

    #[test]
    fn telegram_and_mail_links_are_allowed() {
        let html = markdown_to_telegram_html("[me](tg://user?id=1) <a@b.cd> <HTTPS://x.y>");
        assert_eq!(
            html,
            "<a href=\"tg://user?id=1\">me</a> <a href=\"mailto:a@b.cd\">a@b.cd</a> \
             <a href=\"HTTPS://x.y\">HTTPS://x.y</a>"
        );
    }

    #[test]
    fn images_become_their_alt_text_and_url() {
        let html =
            markdown_to_telegram_html("![a cat](https://x.y/cat.png) ![](https://x.y/d.png)");
        assert_eq!(html, "a cat (https://x.y/cat.png) https://x.y/d.png");
    }

    #[test]
    fn lists_get_bullets_numbers_and_indentation() {
        let html =
            markdown_to_telegram_html("- one\n- two\n  1. a\n  2. b\n- three\n\n3. x\n4. y\n\nend");
        assert_eq!(
            html,
            "• one\n• two\n  1. a\n  2. b\n• three\n\n3. x\n4. y\n\nend"
        );
    }

    #[test]
    fn block_quotes_become_one_blockquote_even_when_nested() {
        let html = markdown_to_telegram_html("> quoted\n> > deeper\n\nafter");
        assert_eq!(html, "<blockquote>quoted\n\ndeeper</blockquote>\n\nafter");
    }

    #[test]
    fn rules_become_a_dash_line() {
        let html = markdown_to_telegram_html("above\n\n---\n\nbelow");
        assert_eq!(html, "above\n\n———\n\nbelow");
    }

    #[test]
    fn hard_breaks_become_newlines() {
        let html = markdown_to_telegram_html("one  \ntwo\\\nthree");
        assert_eq!(html, "one\ntwo\nthree");
    }

    #[test]
    fn tables_become_aligned_monospace_text() {
        let html =
            markdown_to_telegram_html("| name | n |\n|---|---|\n| **a<b** | 10 |\n| cc | 2 |");
        assert_eq!(
            html,
            "<pre>name | n\n-----+---\na&lt;b  | 10\ncc   | 2</pre>"
        );
    }

    #[test]
    fn empty_markdown_renders_as_an_empty_string() {
        assert_eq!(markdown_to_telegram_html(""), "");
        assert_eq!(markdown_to_telegram_html("  \n\n "), "");
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

    #[test]
    fn a_blank_line_is_preferred_over_later_line_breaks_and_spaces() {
        let parts = split_plain_text("aaa\n\nbbb\nccc ddd", 14);
        assert_eq!(parts, vec!["aaa\n\n", "bbb\nccc ddd"]);
    }

    #[test]
    fn a_line_break_is_preferred_over_later_spaces() {
        let parts = split_plain_text("aa bb\ncc dd ee", 10);
        assert_eq!(parts, vec!["aa bb\n", "cc dd ee"]);
    }

    #[test]
    fn a_space_is_preferred_over_a_hard_cut() {
        let parts = split_plain_text("aaaa bbbbbbbb", 8);
        assert_eq!(parts, vec!["aaaa ", "bbbbbbbb"]);
    }

    #[test]
    fn a_long_word_is_cut_hard_at_the_limit() {
        let parts = split_plain_text("abcdefghij", 4);
        assert_eq!(parts, vec!["abcd", "efgh", "ij"]);
    }

    #[test]
    fn a_surrogate_pair_is_never_cut() {
        // Each emoji is two UTF-16 code units, so only one fits in three.
        let parts = split_plain_text("😀😀😀", 3);
        assert_eq!(parts, vec!["😀", "😀", "😀"]);
    }

    #[test]
    fn hard_cuts_avoid_separating_a_combining_mark_from_its_letter() {
        let parts = split_plain_text("abe\u{301}", 3);
        assert_eq!(parts, vec!["ab", "e\u{301}"]);
    }

    #[test]
    fn an_entity_counts_as_one_character_and_is_never_cut() {
        let parts = split_for_telegram("a&amp;b&lt;c", 2);
        assert_eq!(parts, vec!["a&amp;", "b&lt;", "c"]);
    }

    #[test]
    fn open_tags_are_closed_and_reopened_with_their_attributes() {
        let html = "<a href=\"https://x.y\"><b>aaa bbb</b></a> ccc";
        let parts = split_for_telegram(html, 4);
        assert_eq!(
            parts,
            vec![
                "<a href=\"https://x.y\"><b>aaa </b></a>",
                "<a href=\"https://x.y\"><b>bbb</b></a> ",
                "ccc",
            ]
        );
    }

    #[test]
    fn an_element_ending_at_a_cut_is_closed_in_the_earlier_part() {
        let parts = split_for_telegram("<i>one </i><b>two</b>", 4);
        assert_eq!(parts, vec!["<i>one </i>", "<b>two</b>"]);
    }

    #[test]
    fn code_blocks_are_reopened_with_their_language() {
        let html = "<pre><code class=\"language-rust\">let a;\nlet b;</code></pre>";
        let parts = split_for_telegram(html, 8);
        assert_eq!(
            parts,
            vec![
                "<pre><code class=\"language-rust\">let a;\n</code></pre>",
                "<pre><code class=\"language-rust\">let b;</code></pre>",
            ]
        );
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
