//! Questions about a period: whether a message asks about a stretch of time ("what did we talk
//! about last week?", "im Mai", "в прошлый понедельник", "el 3 de noviembre") and which one, in
//! UTC. Pure: it reads the text and the current time, nothing else; recall uses the period to
//! bring that period's sessions.
//!
//! It understands English, German, Russian, Spanish and French: yesterday and the day before,
//! this and last week, month and weekend, N days, weeks or months ago, a weekday (the most
//! recent one before today), a month (the most recent one not in the future, or of the year
//! given), last year or a year named after a preposition (`in 2025`, `в 2025 году`) and a date
//! (`3 Nov`, `am 3. November`, `3 ноября`, `el 3 de noviembre`, `2026-11-03`, `03.11.2026`;
//! slashes only with a year and only when day and month cannot be swapped). Words that are also
//! ordinary words (`may`, `march`, `august`, `mars`) count as months only after a preposition or
//! beside a day number, so "May I ask…" or "march forward" ask about no period.
//!
//! The words themselves, in each language and its forms, are in `vocabulary`; this module reads
//! phrases of them and does the date arithmetic.

mod vocabulary;

#[cfg(test)]
mod tests;

use chrono::{Datelike, Days, Months, NaiveDate};
use regex::Regex;
use std::sync::LazyLock;

use vocabulary::{
    AMBIGUOUS_MONTHS, BEFORE_AMBIGUOUS_MONTH, BEFORE_MONTH, BEFORE_WEEKDAY, DAY_MONTH_LINKS, LAST,
    MONTH, MONTH_ABBREVIATIONS, THIS, Unit, WEEK, WEEKDAYS, WEEKEND, YEAR, count_of, day_number,
    month_of, unit_of,
};

/// A stretch of time, `from_ms` inclusive, `to_ms` exclusive (UTC milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub from_ms: i64,
    pub to_ms: i64,
}

/// The period `text` asks about, if it names one, as seen at `now_ms`.
pub fn asked_period(text: &str, now_ms: i64) -> Option<Period> {
    let today = chrono::DateTime::from_timestamp_millis(now_ms)?.date_naive();
    let lower = text.to_lowercase();
    let words = words(&lower);
    let days = numeric_date(&lower, today)
        .or_else(|| named_date(&words, today))
        .or_else(|| relative_days(&words, today))
        .or_else(|| units_ago(&words, today))
        .or_else(|| weekday(&words, today))
        .or_else(|| named_month(&words, today))
        .or_else(|| year(&words, today))?;
    let (first, after_last) = days;
    Some(Period {
        from_ms: start_ms(first)?,
        to_ms: start_ms(after_last)?,
    })
}

/// The days from `.0` up to the day before `.1`.
type DayRange = (NaiveDate, NaiveDate);

fn start_ms(day: NaiveDate) -> Option<i64> {
    Some(day.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
}

fn one_day(day: NaiveDate) -> Option<DayRange> {
    Some((day, day.checked_add_days(Days::new(1))?))
}

/// Runs of letters and digits, keeping ordinal endings (`3rd`, `1er`) with their number.
fn words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect()
}

/// `2026-11-03`, `03.11.2026` or `3.11.26`, and `25/11/2026` or `11/25/2026` when only one
/// reading is a date. A slash without a year (`1/2`) is a fraction as often as a date.
fn numeric_date(lower: &str, today: NaiveDate) -> Option<DayRange> {
    static ISO: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\d.])(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[^\d])").expect("valid pattern")
    });
    static DOTTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\d.])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?:$|[^\d.]|\.(?:$|\D))")
            .expect("valid pattern")
    });
    static SLASHED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?:$|[^\d/])").expect("valid pattern")
    });
    // Most messages hold no digit at all; the patterns' captures are not free.
    if !lower.bytes().any(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let number = |text: &str| text.parse::<u32>().ok();
    if let Some(found) = ISO.captures(lower) {
        let year = found[1].parse().ok()?;
        return one_day(NaiveDate::from_ymd_opt(
            year,
            number(&found[2])?,
            number(&found[3])?,
        )?);
    }
    // A two-digit year only after a two-digit day and month (`03.11.26`): `1.2.26` is as
    // likely a version number.
    if let Some(found) = DOTTED
        .captures(lower)
        .filter(|found| found[3].len() == 4 || found[1].len() + found[2].len() == 4)
    {
        let year = full_year(found[3].parse().ok()?, today);
        return one_day(NaiveDate::from_ymd_opt(
            year,
            number(&found[2])?,
            number(&found[1])?,
        )?);
    }
    let found = SLASHED.captures(lower)?;
    let (first, second, year) = (
        number(&found[1])?,
        number(&found[2])?,
        found[3].parse().ok()?,
    );
    match (first > 12, second > 12) {
        (true, false) => one_day(NaiveDate::from_ymd_opt(year, second, first)?),
        (false, true) => one_day(NaiveDate::from_ymd_opt(year, first, second)?),
        // 11/03/2026 is 11 March in Europe and 3 November in the United States.
        _ => None,
    }
}

/// A two-digit year as the most recent year ending so, not after this one.
fn full_year(year: i32, today: NaiveDate) -> i32 {
    if year >= 100 {
        return year;
    }
    let century = today.year() - today.year().rem_euclid(100);
    if century + year <= today.year() {
        century + year
    } else {
        century - 100 + year
    }
}

/// A year given after a month: `2025`, or `de 2025`.
fn year_after(words: &[&str], at: usize) -> Option<i32> {
    let at = if words
        .get(at)
        .is_some_and(|word| *word == "de" || *word == "of")
    {
        at + 1
    } else {
        at
    };
    let word = words.get(at)?;
    let year: i32 = word.parse().ok()?;
    (word.len() == 4 && (1900..=2200).contains(&year)).then_some(year)
}

/// `3 Nov`, `3rd of November 2025`, `am 3. November`, `3 ноября`, `el 3 de noviembre`,
/// `November 3`, `on May 3rd`: the day given, or the most recent one not in the future.
fn named_date(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    for (at, word) in words.iter().enumerate() {
        let Some(month) = month_of(word) else {
            continue;
        };
        let before = at.checked_sub(1).and_then(|i| words.get(i));
        let link_before = before.is_some_and(|word| DAY_MONTH_LINKS.contains(word));
        let day_at = if link_before {
            at.checked_sub(2)
        } else {
            at.checked_sub(1)
        };
        if let Some(day) = day_at.and_then(|i| day_number(words[i])) {
            return one_day(dated(day, month, year_after(words, at + 1), today)?);
        }
        // `November 3`: a number after the month; for an ordinary word like `may`, only with
        // a preposition before, an ordinal ending or a year (`May 3 people come?` is no date).
        let Some(day_word) = words.get(at + 1) else {
            continue;
        };
        let Some(day) = day_number(day_word) else {
            continue;
        };
        let year = year_after(words, at + 2);
        let is_ordinal = day_word.chars().any(char::is_alphabetic);
        let after_preposition = before.is_some_and(|word| BEFORE_AMBIGUOUS_MONTH.contains(word));
        if !AMBIGUOUS_MONTHS.contains(word) || is_ordinal || after_preposition || year.is_some() {
            return one_day(dated(day, month, year, today)?);
        }
    }
    None
}

/// The day `day` of `month`, in `year` or else the most recent such day not after `today`.
fn dated(day: u32, month: u32, year: Option<i32>, today: NaiveDate) -> Option<NaiveDate> {
    match year {
        Some(year) => NaiveDate::from_ymd_opt(year, month, day),
        None => {
            let this_year = NaiveDate::from_ymd_opt(today.year(), month, day);
            match this_year {
                Some(date) if date <= today => Some(date),
                _ => NaiveDate::from_ymd_opt(today.year() - 1, month, day),
            }
        }
    }
}

/// `in May`, `im Mai`, `в мае`, `en mayo`, `en mai`, `last November`, `in May 2025`: the most
/// recent such month not in the future, or that of the year given.
fn named_month(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    for (at, word) in words.iter().enumerate() {
        let Some(month) = month_of(word) else {
            continue;
        };
        if MONTH_ABBREVIATIONS.contains(word) {
            continue;
        }
        let allowed_before = if AMBIGUOUS_MONTHS.contains(word) {
            BEFORE_AMBIGUOUS_MONTH
        } else {
            BEFORE_MONTH
        };
        let before = at.checked_sub(1).map(|i| words[i]);
        if !before.is_some_and(|word| allowed_before.contains(&word)) {
            continue;
        }
        let year = year_after(words, at + 1).unwrap_or_else(|| {
            if month <= today.month() {
                today.year()
            } else {
                today.year() - 1
            }
        });
        let first = NaiveDate::from_ymd_opt(year, month, 1)?;
        return Some((first, first.checked_add_months(Months::new(1))?));
    }
    None
}

/// Whether `words` hold `phrase` (each position one of its alternatives) word by word.
fn has_phrase(words: &[&str], phrase: &[&[&str]]) -> bool {
    words.windows(phrase.len()).any(|window| {
        window
            .iter()
            .zip(phrase)
            .all(|(word, choices)| choices.contains(word))
    })
}

/// Yesterday, the day before, this or last week, month or weekend.
fn relative_days(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    let day_before = has_phrase(words, &[&["day"], &["before"], &["yesterday"]])
        || has_phrase(words, &[&["vorgestern", "позавчера", "anteayer"]])
        || has_phrase(words, &[&["antes"], &["de"], &["ayer"]])
        || has_phrase(words, &[&["avant"], &["hier"]]);
    if day_before {
        return one_day(today.checked_sub_days(Days::new(2))?);
    }
    let yesterday = has_phrase(words, &[&["yesterday", "gestern", "вчера", "ayer"]])
        || (words.contains(&"hier") && reads_as_french(words));
    if yesterday {
        return one_day(today.checked_sub_days(Days::new(1))?);
    }
    let monday =
        today.checked_sub_days(Days::new(u64::from(today.weekday().num_days_from_monday())))?;
    let tomorrow = today.checked_add_days(Days::new(1))?;
    let month_start = today.with_day(1)?;
    let weekend_last = has_phrase(words, &[LAST, WEEKEND])
        || has_phrase(words, &[WEEKEND, LAST])
        || has_phrase(words, &[&["fin"], &["de"], &["semana"], LAST])
        || has_phrase(words, &[&["week"], &["end"], LAST]);
    if weekend_last {
        let saturday = monday.checked_sub_days(Days::new(2))?;
        return Some((saturday, monday));
    }
    if has_phrase(words, &[LAST, WEEK]) || has_phrase(words, &[WEEK, LAST]) {
        return Some((monday.checked_sub_days(Days::new(7))?, monday));
    }
    if has_phrase(words, &[LAST, MONTH]) || has_phrase(words, &[MONTH, LAST]) {
        return Some((month_start.checked_sub_months(Months::new(1))?, month_start));
    }
    if has_phrase(words, &[THIS, WEEK]) {
        return Some((monday, tomorrow));
    }
    if has_phrase(words, &[THIS, MONTH]) {
        return Some((month_start, tomorrow));
    }
    None
}

/// Whether a text with `hier` (French "yesterday", German "here") reads as French: more
/// French than German function words.
fn reads_as_french(words: &[&str]) -> bool {
    const FRENCH: &[&str] = &[
        "je", "tu", "nous", "vous", "on", "il", "elle", "avons", "avez", "as", "ai", "est", "qu",
        "quoi", "que", "de", "la", "le", "les", "des", "du", "soir", "matin", "parlé",
    ];
    const GERMAN: &[&str] = &[
        "ich", "du", "wir", "ihr", "ist", "bin", "was", "haben", "hast", "habe", "der", "die",
        "das", "und", "nicht", "bitte", "sind",
    ];
    let count = |list: &[&str]| words.iter().filter(|word| list.contains(word)).count();
    count(FRENCH) > count(GERMAN)
}

/// `3 days ago`, `vor 3 Tagen`, `3 дня назад`, `неделю назад`, `hace 3 días`, `il y a 3
/// jours`: that day, that (Monday to Sunday) week, or that calendar month.
fn units_ago(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    let (count, unit) = (0..words.len()).find_map(|at| count_ago(words, at))?;
    match unit {
        Unit::Day => one_day(today.checked_sub_days(Days::new(u64::from(count)))?),
        Unit::Week => {
            let monday = today
                .checked_sub_days(Days::new(u64::from(today.weekday().num_days_from_monday())))?;
            let first = monday.checked_sub_days(Days::new(7 * u64::from(count)))?;
            Some((first, first.checked_add_days(Days::new(7))?))
        }
        Unit::Month => {
            let first = today.with_day(1)?.checked_sub_months(Months::new(count))?;
            Some((first, first.checked_add_months(Months::new(1))?))
        }
    }
}

/// The count and unit of an "ago" phrase starting at word `at`.
fn count_ago(words: &[&str], at: usize) -> Option<(u32, Unit)> {
    let word = |offset: usize| words.get(at + offset).copied();
    match word(0)? {
        // vor 3 Tagen, hace 3 días
        "vor" | "hace" => Some((count_of(word(1)?)?, unit_of(word(2)?)?)),
        // il y a 3 jours
        "il" if word(1) == Some("y") && word(2) == Some("a") => {
            Some((count_of(word(3)?)?, unit_of(word(4)?)?))
        }
        first => {
            // 3 days ago, 3 дня назад, неделю назад
            if let Some(unit) = unit_of(first)
                && word(1) == Some("назад")
            {
                let count = at.checked_sub(1).and_then(|i| count_of(words[i]));
                return Some((count.unwrap_or(1), unit));
            }
            let count = count_of(first)?;
            let unit = unit_of(word(1)?)?;
            (word(2)? == "ago").then_some((count, unit))
        }
    }
}

/// `on Monday`, `am Montag`, `в понедельник`, `el lunes`, `lundi dernier`: the most recent such
/// day before today (a week ago when today is that day).
fn weekday(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    const FRENCH: &[&str] = &[
        "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
    ];
    for (at, word) in words.iter().enumerate() {
        let Some((_, day)) = WEEKDAYS.iter().find(|(name, _)| name == word) else {
            continue;
        };
        let before = at.checked_sub(1).map(|i| words[i]);
        let after = words.get(at + 1).copied();
        let named_as_a_day = FRENCH.contains(word)
            || before.is_some_and(|word| BEFORE_WEEKDAY.contains(&word))
            || after.is_some_and(|word| LAST.contains(&word));
        if !named_as_a_day {
            continue;
        }
        let back = (7 + today.weekday().num_days_from_monday() - day.num_days_from_monday()) % 7;
        let back = if back == 0 { 7 } else { back };
        return one_day(today.checked_sub_days(Days::new(u64::from(back)))?);
    }
    None
}

/// `last year`, `letztes Jahr`, `в прошлом году`, `el año pasado`, `l'année dernière`, and a
/// year after a preposition, not in the future: `in 2025`, `im Jahr 2025`, `в 2025 году`,
/// `en 2025`.
fn year(words: &[&str], today: NaiveDate) -> Option<DayRange> {
    let whole = |year: i32| {
        Some((
            NaiveDate::from_ymd_opt(year, 1, 1)?,
            NaiveDate::from_ymd_opt(year + 1, 1, 1)?,
        ))
    };
    if has_phrase(words, &[LAST, YEAR]) || has_phrase(words, &[YEAR, LAST]) {
        return whole(today.year() - 1);
    }
    const BEFORE_YEAR: &[&str] = &["in", "during", "im", "jahr", "в", "во", "en", "durante"];
    words.windows(2).find_map(|pair| {
        let named: i32 = pair[1].parse().ok()?;
        let is_year = pair[1].len() == 4 && (1900..=today.year()).contains(&named);
        (BEFORE_YEAR.contains(&pair[0]) && is_year).then(|| whole(named))?
    })
}
