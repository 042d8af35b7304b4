//! How numbers read in each language: durations ("1 hour 30 minutes"), sizes ("1.5 MB"),
//! thousands grouped ("1,234") and counted things in their plural form ("1 message").

use crate::i18n::Lang;

/// "3 days", "1 hour 30 minutes", "45 seconds": the two largest units that are not zero.
pub fn human_duration(lang: Lang, total_secs: u64) -> String {
    let units = [
        (86_400, "duration-days"),
        (3_600, "duration-hours"),
        (60, "duration-minutes"),
        (1, "duration-seconds"),
    ];
    let mut parts = Vec::new();
    let mut rest = total_secs;
    for (size, id) in units {
        let count = rest / size;
        if count > 0 {
            parts.push(say!(lang, id, count));
            rest -= count * size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    match <[String; 2]>::try_from(parts) {
        Ok([larger, smaller]) => say!(lang, "duration-two-units", larger, smaller),
        Err(parts) => parts
            .into_iter()
            .next()
            .unwrap_or_else(|| say!(lang, "duration-seconds", count = 0)),
    }
}

/// "512 bytes", "300 KB", "1 MB", "1.5 MB" (1 KB = 1,024 bytes), with the language's decimal mark.
pub fn human_bytes(lang: Lang, bytes: u64) -> String {
    const KB: u64 = 1_024;
    const MB: u64 = KB * KB;
    if bytes >= MB {
        let tenths = (bytes * 10 + MB / 2) / MB;
        let size = if tenths.is_multiple_of(10) {
            format!("{}", tenths / 10)
        } else {
            format!("{}{}{}", tenths / 10, decimal_mark(lang), tenths % 10)
        };
        say!(lang, "size-megabytes", size)
    } else if bytes >= KB {
        say!(lang, "size-kilobytes", size = (bytes + KB / 2) / KB)
    } else {
        say!(lang, "size-bytes", count = bytes)
    }
}

/// The mark between a number's whole part and its tenths.
fn decimal_mark(lang: Lang) -> char {
    match lang {
        Lang::En => '.',
        Lang::De | Lang::Es | Lang::Fr | Lang::Ru => ',',
    }
}

/// The mark between groups of three digits: "1,234" in English, "1.234" in German, "1 234"
/// (a no-break space) in French and Russian.
fn thousands_separator(lang: Lang) -> char {
    match lang {
        Lang::En => ',',
        Lang::De | Lang::Es => '.',
        Lang::Fr => '\u{202f}',
        Lang::Ru => '\u{a0}',
    }
}

/// A count with thousands grouped as `lang` writes them: "1,234,567" in English.
pub fn thousands(lang: Lang, count: u64) -> String {
    let digits = count.to_string();
    let separator = thousands_separator(lang);
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(separator);
        }
        grouped.push(digit);
    }
    grouped
}

/// "1 message", "1,234 tokens": a count of messages or tokens, in the plural form it takes.
pub(super) fn counted(lang: Lang, id: &str, count: i64) -> String {
    let count = count.max(0) as u64;
    say!(lang, id, count, shown = thousands(lang, count))
}
