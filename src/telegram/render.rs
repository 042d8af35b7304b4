//! Turns the Markdown that LLMs write into the small HTML dialect Telegram accepts with
//! `parse_mode=HTML` ([`markdown_to_telegram_html`]). Cutting the result into messages that fit
//! Telegram's length limit is [`super::split`]'s job.
//!
//! Everything here is a pure function of its input: no teloxide types, no I/O. The renderer only
//! ever emits tags from Telegram's allow-list and escapes everything else, so nothing the model
//! writes (raw HTML, `javascript:` links, stray `<` or `&`) can make Telegram reject the message
//! or smuggle markup into it.

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

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
            Tag::CodeBlock(kind) => self.start_code_block(kind),
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
            } => self.start_link(link_type, &dest_url),
            Tag::Image { dest_url, .. } => {
                self.flush();
                self.images.push((dest_url.to_string(), self.out.len()));
            }
        }
    }

    /// Collects the code block's text until its end, keeping the fence's language.
    fn start_code_block(&mut self, kind: CodeBlockKind<'_>) {
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

    /// Opens an `<a>` for a link with an allowed scheme; any other link shows its text only.
    fn start_link(&mut self, link_type: LinkType, dest_url: &str) {
        let href = if link_type == LinkType::Email {
            format!("mailto:{dest_url}")
        } else {
            dest_url.to_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What each kind of Markdown becomes: (what the case shows, Markdown, Telegram HTML).
    const CASES: &[(&str, &str, &str)] = &[
        (
            "inline formatting maps to telegram tags",
            "**bold** *italic* ~~gone~~ `x < y`",
            "<b>bold</b> <i>italic</i> <s>gone</s> <code>x &lt; y</code>",
        ),
        (
            "paragraphs are separated by one blank line and nothing trails",
            "first\nline\n\n\n\nsecond\n\n",
            "first\nline\n\nsecond",
        ),
        (
            "special characters in text are escaped",
            "a < b && c > d \"quoted\"",
            "a &lt; b &amp;&amp; c &gt; d \"quoted\"",
        ),
        (
            "raw html from the model is shown as text",
            "say <b onclick=\"x\">hi</b>\n\n<div>\nblock\n</div>",
            "say &lt;b onclick=\"x\"&gt;hi&lt;/b&gt;\n\n&lt;div&gt;\nblock\n&lt;/div&gt;",
        ),
        (
            "headings become bold lines",
            "# Title *here*\ntext",
            "<b>Title <i>here</i></b>\n\ntext",
        ),
        (
            "fenced code keeps its language and loses the closing newline",
            "```rust\nfn main() { a < b }\n```\nafter",
            "<pre><code class=\"language-rust\">fn main() { a &lt; b }</code></pre>\n\nafter",
        ),
        (
            "code without a language is a bare pre",
            "    indented & code\n",
            "<pre>indented &amp; code</pre>",
        ),
        (
            "a hostile code language is escaped inside the attribute",
            "```a\"><b>\nx\n```",
            "<pre><code class=\"language-a&quot;&gt;&lt;b&gt;\">x</code></pre>",
        ),
        (
            "safe links keep an escaped href",
            "[docs](https://example.com/?a=1&b=\"2\")",
            "<a href=\"https://example.com/?a=1&amp;b=&quot;2&quot;\">docs</a>",
        ),
        (
            "unsafe or relative links keep only their text",
            "[click](javascript:alert(1)) [data](data:text/html,x) [rel](/path)",
            "click data rel",
        ),
        (
            "telegram and mail links are allowed",
            "[me](tg://user?id=1) <a@b.cd> <HTTPS://x.y>",
            "<a href=\"tg://user?id=1\">me</a> <a href=\"mailto:a@b.cd\">a@b.cd</a> \
             <a href=\"HTTPS://x.y\">HTTPS://x.y</a>",
        ),
        (
            "images become their alt text and url",
            "![a cat](https://x.y/cat.png) ![](https://x.y/d.png)",
            "a cat (https://x.y/cat.png) https://x.y/d.png",
        ),
        (
            "lists get bullets numbers and indentation",
            "- one\n- two\n  1. a\n  2. b\n- three\n\n3. x\n4. y\n\nend",
            "• one\n• two\n  1. a\n  2. b\n• three\n\n3. x\n4. y\n\nend",
        ),
        (
            "block quotes become one blockquote even when nested",
            "> quoted\n> > deeper\n\nafter",
            "<blockquote>quoted\n\ndeeper</blockquote>\n\nafter",
        ),
        (
            "rules become a dash line",
            "above\n\n---\n\nbelow",
            "above\n\n———\n\nbelow",
        ),
        (
            "hard breaks become newlines",
            "one  \ntwo\\\nthree",
            "one\ntwo\nthree",
        ),
        (
            "tables become aligned monospace text",
            "| name | n |\n|---|---|\n| **a<b** | 10 |\n| cc | 2 |",
            "<pre>name | n\n-----+---\na&lt;b  | 10\ncc   | 2</pre>",
        ),
    ];

    #[test]
    fn markdown_becomes_telegram_html() {
        for (case, markdown, html) in CASES {
            assert_eq!(markdown_to_telegram_html(markdown), *html, "{case}");
        }
    }

    #[test]
    fn empty_markdown_renders_as_an_empty_string() {
        assert_eq!(markdown_to_telegram_html(""), "");
        assert_eq!(markdown_to_telegram_html("  \n\n "), "");
    }
}
