//! Documents: which files can be read (text of any kind, PDF, pictures sent as files), their text,
//! and the two forms that text takes in a turn: the prompt's, within a token budget and cut with
//! a visible marker, and the stored message's, the name, the caption and the first lines.

use crate::tokens::estimate_tokens;

/// How much of a document's text the stored message keeps: enough for summaries and recall to
/// know what the file was about, little enough not to crowd the history.
pub const STORED_START_CHARS: usize = 600;

/// The longest file name kept in a marker.
const NAME_MAX_CHARS: usize = 100;

/// What kind of file a document is, as far as reading it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// Plain text, Markdown, CSV, JSON, source code, configuration, logs.
    Text,
    Pdf,
    /// A picture sent as a file: it is shown to the model like a photo.
    Image,
    /// Archives, executables, media and everything else.
    Other,
}

/// Media types of text that do not start with `text/`.
const TEXT_MEDIA_TYPES: &[&str] = &[
    "application/json",
    "application/ld+json",
    "application/xml",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/javascript",
    "application/x-javascript",
    "application/typescript",
    "application/x-sh",
    "application/x-python",
    "application/x-python-code",
    "application/sql",
    "application/x-tex",
    "application/csv",
    "application/x-ndjson",
];

/// File extensions of text, for the many clients that send text as `application/octet-stream`.
const TEXT_EXTENSIONS: &[&str] = &[
    "txt",
    "text",
    "md",
    "markdown",
    "rst",
    "org",
    "adoc",
    "csv",
    "tsv",
    "json",
    "jsonl",
    "ndjson",
    "xml",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "env",
    "properties",
    "log",
    "tex",
    "bib",
    "srt",
    "vtt",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "svg",
    "rs",
    "py",
    "pyi",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "kts",
    "scala",
    "groovy",
    "gradle",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "cs",
    "fs",
    "rb",
    "php",
    "pl",
    "pm",
    "lua",
    "r",
    "jl",
    "swift",
    "m",
    "mm",
    "dart",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "clj",
    "elm",
    "vue",
    "svelte",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "sql",
    "graphql",
    "proto",
    "dockerfile",
    "makefile",
    "cmake",
    "nix",
    "tf",
    "diff",
    "patch",
];

const IMAGE_EXTENSIONS: &[&str] = &["jpg", "jpeg", "png", "gif", "webp"];

/// The kind of a document from its file name and the media type Telegram reports.
pub fn classify(file_name: Option<&str>, media_type: Option<&str>) -> DocumentKind {
    let media_type = media_type.unwrap_or_default().to_ascii_lowercase();
    let extension = file_name
        .map(str::to_ascii_lowercase)
        .map(|name| match name.rsplit_once('.') {
            Some((_, extension)) => extension.to_owned(),
            // `Dockerfile`, `Makefile`
            None => name,
        })
        .unwrap_or_default();
    let extension = extension.as_str();
    if media_type == "application/pdf" || extension == "pdf" {
        DocumentKind::Pdf
    } else if matches!(
        media_type.as_str(),
        "image/jpeg" | "image/png" | "image/gif" | "image/webp"
    ) || IMAGE_EXTENSIONS.contains(&extension)
    {
        DocumentKind::Image
    } else if media_type.starts_with("text/")
        || TEXT_MEDIA_TYPES.contains(&media_type.as_str())
        || TEXT_EXTENSIONS.contains(&extension)
    {
        DocumentKind::Text
    } else {
        DocumentKind::Other
    }
}

/// Why a document's text could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DocumentError {
    #[error("the file is empty")]
    Empty,
    #[error("the file is not text (not UTF-8, or binary)")]
    NotText,
    #[error("the PDF cannot be read")]
    UnreadablePdf,
    #[error("the PDF holds no text (a scan, or only pictures)")]
    NoTextInPdf,
}

/// The text of a text file: UTF-8 (a byte-order mark is dropped) without NUL bytes, not blank.
pub fn text_of_text_file(bytes: &[u8]) -> Result<String, DocumentError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|_| DocumentError::NotText)?;
    if text.contains('\0') {
        return Err(DocumentError::NotText);
    }
    if text.trim().is_empty() {
        return Err(DocumentError::Empty);
    }
    Ok(text.to_owned())
}

/// The text of a PDF; a scan without a text layer has none. A file someone sent may be built to
/// trip the parser: a panic in it is caught and reported like any unreadable PDF.
pub fn text_of_pdf(bytes: &[u8]) -> Result<String, DocumentError> {
    if !bytes.starts_with(b"%PDF") {
        return Err(DocumentError::UnreadablePdf);
    }
    let extracted = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes));
    let text = match extracted {
        Ok(Ok(text)) => text,
        Ok(Err(_)) | Err(_) => return Err(DocumentError::UnreadablePdf),
    };
    if text.trim().is_empty() {
        return Err(DocumentError::NoTextInPdf);
    }
    Ok(text.trim().to_owned())
}

/// A document as a turn uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentTurn {
    /// The person's message as stored: marker, caption, the start of the text.
    pub stored: String,
    /// What the model reads: marker, caption, the text within the budget.
    pub prompt: String,
    /// Set when the text was cut to fit the budget.
    pub cut: Option<Cut>,
}

/// How much of a document's text the model was shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub shown_chars: usize,
    pub total_chars: usize,
}

/// The marker of a document named `name`: `[document: name]`, the name on one line.
pub fn document_marker(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| if c.is_control() || c == ']' { ' ' } else { c })
        .take(NAME_MAX_CHARS)
        .collect();
    let name = name.trim();
    let name = if name.is_empty() { "untitled" } else { name };
    format!("[document: {name}]")
}

/// The turn for a document named `name` with `caption` and `text`: its text goes to the model
/// within `budget_tokens` (estimated), cut with a marker that says how much is missing.
pub fn document_turn(name: &str, caption: &str, text: &str, budget_tokens: usize) -> DocumentTurn {
    let marker = document_marker(name);
    let caption = caption.trim();
    let head = if caption.is_empty() {
        marker.clone()
    } else {
        format!("{marker} {caption}")
    };
    let text = text.trim_end();
    let total_chars = text.chars().count();
    let shown = prefix_within(text, budget_tokens);
    let shown_chars = shown.chars().count();
    let cut = (shown_chars < total_chars).then_some(Cut {
        shown_chars,
        total_chars,
    });
    let mut prompt = format!("{head}\n\n<document name=\"{marker}\">\n{shown}");
    if cut.is_some() {
        prompt.push_str(&format!(
            "\n[… cut here: the remaining {} of {total_chars} characters are not shown …]",
            total_chars - shown_chars
        ));
    }
    prompt.push_str("\n</document>");
    let start = prefix_of_chars(text, STORED_START_CHARS);
    let ellipsis = if start.len() < text.len() { " …" } else { "" };
    DocumentTurn {
        stored: format!("{head}\n\n{start}{ellipsis}"),
        prompt,
        cut,
    }
}

/// The longest prefix of `text` whose estimated tokens fit `budget_tokens`, ending at a line
/// break or a space when one is near, so the cut does not split a word.
fn prefix_within(text: &str, budget_tokens: usize) -> &str {
    if estimate_tokens(text) <= budget_tokens {
        return text;
    }
    // The estimate grows with the prefix, so the longest fitting prefix is found by bisection
    // over character boundaries.
    let boundaries: Vec<usize> = text.char_indices().map(|(index, _)| index).collect();
    let (mut fits, mut too_long) = (0, boundaries.len());
    while too_long - fits > 1 {
        let middle = (fits + too_long) / 2;
        if estimate_tokens(&text[..boundaries[middle]]) <= budget_tokens {
            fits = middle;
        } else {
            too_long = middle;
        }
    }
    let prefix = &text[..boundaries[fits]];
    let near = prefix.len().saturating_sub(200);
    match prefix.rfind(['\n', ' ']) {
        Some(space) if space > near => &prefix[..space],
        _ => prefix,
    }
}

/// The first `chars` characters of `text`.
fn prefix_of_chars(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_files_are_known_by_media_type_or_extension() {
        let cases = [
            (Some("notes.md"), None, DocumentKind::Text),
            (Some("data"), Some("application/json"), DocumentKind::Text),
            (
                Some("main.RS"),
                Some("application/octet-stream"),
                DocumentKind::Text,
            ),
            (Some("Dockerfile"), None, DocumentKind::Text),
            (Some("report.pdf"), None, DocumentKind::Pdf),
            (Some("scan"), Some("image/png"), DocumentKind::Image),
            (
                Some("backup.zip"),
                Some("application/zip"),
                DocumentKind::Other,
            ),
            (None, None, DocumentKind::Other),
        ];
        for (file_name, media_type, kind) in cases {
            assert_eq!(
                classify(file_name, media_type),
                kind,
                "{file_name:?} {media_type:?}"
            );
        }
    }

    #[test]
    fn text_must_be_utf8_without_nul_and_not_blank() {
        assert_eq!(text_of_text_file(b"\xEF\xBB\xBFhello").unwrap(), "hello");
        assert_eq!(
            text_of_text_file(b"\xff\xfe\x00h"),
            Err(DocumentError::NotText)
        );
        assert_eq!(text_of_text_file(b"a\0b"), Err(DocumentError::NotText));
        assert_eq!(text_of_text_file(b" \n "), Err(DocumentError::Empty));
    }

    #[test]
    fn a_pdf_gives_its_text_and_a_broken_one_is_unreadable() {
        let pdf = include_bytes!("../../tests/data/invoice.pdf");
        assert_eq!(text_of_pdf(pdf).unwrap(), "Invoice 4711 for Chemitek");
        assert_eq!(text_of_pdf(&pdf[..300]), Err(DocumentError::UnreadablePdf));
        assert_eq!(
            text_of_pdf(b"PK\x03\x04"),
            Err(DocumentError::UnreadablePdf)
        );
    }

    #[test]
    fn a_short_document_goes_whole_to_the_model_and_its_start_is_stored() {
        let turn = document_turn("list.txt", "my list", "milk\neggs\n", 1_000);
        assert_eq!(turn.cut, None);
        assert_eq!(
            turn.prompt,
            "[document: list.txt] my list\n\n<document name=\"[document: list.txt]\">\nmilk\neggs\n</document>"
        );
        assert_eq!(turn.stored, "[document: list.txt] my list\n\nmilk\neggs");
    }

    #[test]
    fn a_long_document_is_cut_to_the_budget_with_a_visible_marker() {
        let text = "word ".repeat(10_000);
        let turn = document_turn("long.txt", "", &text, 500);
        let cut = turn.cut.expect("cut");
        assert_eq!(cut.total_chars, text.trim_end().chars().count());
        assert!(cut.shown_chars < cut.total_chars);
        assert!(
            estimate_tokens(&turn.prompt) <= 500 + 60,
            "{}",
            turn.prompt.len()
        );
        assert!(turn.prompt.contains("[… cut here: the remaining"));
        assert!(turn.stored.ends_with(" …"));
        assert!(turn.stored.chars().count() < STORED_START_CHARS + 40);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "ü".repeat(5_000);
        let turn = document_turn("umlaut.txt", "", &text, 100);
        assert!(turn.cut.is_some());
        assert!(turn.prompt.contains('ü'));
    }

    #[test]
    fn a_file_name_cannot_break_out_of_its_marker() {
        assert_eq!(
            document_marker("evil]\nname.txt"),
            "[document: evil  name.txt]"
        );
        assert_eq!(document_marker("  "), "[document: untitled]");
    }
}
