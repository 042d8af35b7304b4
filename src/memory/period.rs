//! Questions about a period: whether a message asks about a stretch of time ("what did we talk
//! about last week?", "im Mai", "в прошлый понедельник", "el 3 de noviembre") and which one, in
//! UTC. Pure: it reads the text and the current time, nothing else; recall uses the period to
//! bring that period's sessions.
//!
//! It understands English, German, Russian, Spanish and French: yesterday and the day before,
//! this and last week, month and weekend, N days, weeks or months ago, a weekday (the most
//! recent one before today), a month (the most recent one not in the future, or of the year
//! given), last year or a year named after a preposition (`in 2025`, `в 2025 году`) and a date (`3 Nov`, `am 3. November`, `3 ноября`, `el 3 de noviembre`, `2026-11-03`,
//! `03.11.2026`; slashes only with a year and only when day and month cannot be swapped). Words
//! that are also ordinary words (`may`, `march`, `august`, `mars`) count as months only after a
//! preposition or beside a day number, so "May I ask…" or "march forward" ask about no period.

use chrono::{Datelike, Days, Months, NaiveDate, Weekday};
use regex::Regex;
use std::sync::LazyLock;

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

/// Month names and their forms, lower case. The abbreviations only count beside a day number.
const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("jan", 1),
    ("januar", 1),
    ("jänner", 1),
    ("janvier", 1),
    ("enero", 1),
    ("январь", 1),
    ("января", 1),
    ("январе", 1),
    ("february", 2),
    ("feb", 2),
    ("februar", 2),
    ("février", 2),
    ("fevrier", 2),
    ("febrero", 2),
    ("февраль", 2),
    ("февраля", 2),
    ("феврале", 2),
    ("march", 3),
    ("mar", 3),
    ("märz", 3),
    ("maerz", 3),
    ("mars", 3),
    ("marzo", 3),
    ("март", 3),
    ("марта", 3),
    ("марте", 3),
    ("april", 4),
    ("apr", 4),
    ("avril", 4),
    ("abril", 4),
    ("апрель", 4),
    ("апреля", 4),
    ("апреле", 4),
    ("may", 5),
    ("mai", 5),
    ("mayo", 5),
    ("май", 5),
    ("мая", 5),
    ("мае", 5),
    ("june", 6),
    ("jun", 6),
    ("juni", 6),
    ("juin", 6),
    ("junio", 6),
    ("июнь", 6),
    ("июня", 6),
    ("июне", 6),
    ("july", 7),
    ("jul", 7),
    ("juli", 7),
    ("juillet", 7),
    ("julio", 7),
    ("июль", 7),
    ("июля", 7),
    ("июле", 7),
    ("august", 8),
    ("aug", 8),
    ("août", 8),
    ("aout", 8),
    ("agosto", 8),
    ("август", 8),
    ("августа", 8),
    ("августе", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("septembre", 9),
    ("septiembre", 9),
    ("setiembre", 9),
    ("сентябрь", 9),
    ("сентября", 9),
    ("сентябре", 9),
    ("october", 10),
    ("oct", 10),
    ("oktober", 10),
    ("octobre", 10),
    ("octubre", 10),
    ("октябрь", 10),
    ("октября", 10),
    ("октябре", 10),
    ("november", 11),
    ("nov", 11),
    ("novembre", 11),
    ("noviembre", 11),
    ("ноябрь", 11),
    ("ноября", 11),
    ("ноябре", 11),
    ("december", 12),
    ("dec", 12),
    ("dezember", 12),
    ("décembre", 12),
    ("decembre", 12),
    ("diciembre", 12),
    ("декабрь", 12),
    ("декабря", 12),
    ("декабре", 12),
];

/// Month names that are ordinary words too (`may`, `march`, `august`, the planet `mars`):
/// months only after a preposition, or before a day number with an ordinal ending or a year.
const AMBIGUOUS_MONTHS: &[&str] = &["may", "march", "august", "mars"];

fn month_of(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, month)| *month)
}

/// Words after which a month name means the month: prepositions and "last"/"this".
const BEFORE_MONTH: &[&str] = &[
    "in",
    "during",
    "last",
    "this",
    "of",
    "im",
    "letzten",
    "vergangenen",
    "diesen",
    "в",
    "во",
    "прошлом",
    "этом",
    "en",
    "de",
    "durante",
];

/// Of [`BEFORE_MONTH`], those that never come before the verb `may` (`this may be wrong`).
const BEFORE_AMBIGUOUS_MONTH: &[&str] = &[
    "in",
    "during",
    "last",
    "of",
    "im",
    "letzten",
    "vergangenen",
    "в",
    "во",
    "прошлом",
    "en",
    "de",
    "durante",
];

/// Month abbreviations: a month only beside a day number (`mar` is the sea in Spanish).
const MONTH_ABBREVIATIONS: &[&str] = &[
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Words between a day number and its month (`3rd of May`, `3 de mayo`, `3-го мая`).
const DAY_MONTH_LINKS: &[&str] = &["of", "de", "del", "го"];

/// A day number: `3`, `03`, `3rd`, `1st`, `1er`, from 1 to 31.
fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| !c.is_ascii_digit());
    let suffix = &word[digits.len()..];
    if !["", "st", "nd", "rd", "th", "er", "e", "ème", "го", "е"].contains(&suffix) {
        return None;
    }
    digits.parse().ok().filter(|day| (1..=31).contains(day))
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

/// Adjectives for "last" (this one before the current) in the five languages and their forms.
const LAST: &[&str] = &[
    "last",
    "previous",
    "letzte",
    "letzten",
    "letztes",
    "letzter",
    "vergangene",
    "vergangenen",
    "vergangenes",
    "vergangener",
    "vorige",
    "vorigen",
    "voriges",
    "voriger",
    "прошлой",
    "прошлую",
    "прошлая",
    "прошлый",
    "прошлом",
    "прошлые",
    "прошлых",
    "прошлое",
    "предыдущей",
    "предыдущую",
    "предыдущий",
    "предыдущем",
    "pasada",
    "pasado",
    "anterior",
    "dernière",
    "dernier",
    "passée",
    "passé",
    "précédente",
    "précédent",
];
const THIS: &[&str] = &[
    "this", "diese", "dieser", "diesen", "dieses", "этой", "эту", "этом", "этот", "esta", "este",
    "cette", "ce",
];
const WEEK: &[&str] = &[
    "week",
    "woche",
    "неделе",
    "неделю",
    "неделя",
    "недели",
    "semana",
    "semaine",
];
const MONTH: &[&str] = &["month", "monat", "месяце", "месяц", "mes", "mois"];
const WEEKEND: &[&str] = &["weekend", "wochenende", "выходные", "выходных"];

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

/// Small numbers written out, in the five languages (the article counts as one).
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("a", 1),
    ("an", 1),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("ein", 1),
    ("eine", 1),
    ("einem", 1),
    ("einer", 1),
    ("einen", 1),
    ("zwei", 2),
    ("drei", 3),
    ("vier", 4),
    ("fünf", 5),
    ("sechs", 6),
    ("sieben", 7),
    ("acht", 8),
    ("neun", 9),
    ("zehn", 10),
    ("один", 1),
    ("одну", 1),
    ("одна", 1),
    ("два", 2),
    ("две", 2),
    ("три", 3),
    ("четыре", 4),
    ("пять", 5),
    ("шесть", 6),
    ("семь", 7),
    ("восемь", 8),
    ("девять", 9),
    ("десять", 10),
    ("un", 1),
    ("una", 1),
    ("uno", 1),
    ("dos", 2),
    ("tres", 3),
    ("cuatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("siete", 7),
    ("ocho", 8),
    ("nueve", 9),
    ("diez", 10),
    ("une", 1),
    ("deux", 2),
    ("trois", 3),
    ("quatre", 4),
    ("cinq", 5),
    ("sept", 7),
    ("huit", 8),
    ("neuf", 9),
    ("dix", 10),
];

/// A count: digits (up to a year's worth of days) or a small number word.
fn count_of(word: &str) -> Option<u32> {
    if let Ok(count) = word.parse::<u32>() {
        return (1..=366).contains(&count).then_some(count);
    }
    NUMBER_WORDS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, count)| *count)
}

/// What a unit word counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Day,
    Week,
    Month,
}

fn unit_of(word: &str) -> Option<Unit> {
    const DAY: &[&str] = &[
        "day", "days", "tag", "tagen", "tage", "день", "дня", "дней", "día", "días", "dia", "dias",
        "jour", "jours",
    ];
    const WEEK_UNITS: &[&str] = &[
        "week",
        "weeks",
        "woche",
        "wochen",
        "неделю",
        "недели",
        "недель",
        "semana",
        "semanas",
        "semaine",
        "semaines",
    ];
    const MONTH_UNITS: &[&str] = &[
        "month",
        "months",
        "monat",
        "monaten",
        "monate",
        "месяц",
        "месяца",
        "месяцев",
        "mes",
        "meses",
        "mois",
    ];
    if DAY.contains(&word) {
        Some(Unit::Day)
    } else if WEEK_UNITS.contains(&word) {
        Some(Unit::Week)
    } else if MONTH_UNITS.contains(&word) {
        Some(Unit::Month)
    } else {
        None
    }
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

/// Weekday names, lower case, in the forms a question about the past uses.
const WEEKDAYS: &[(&str, Weekday)] = &[
    ("monday", Weekday::Mon),
    ("montag", Weekday::Mon),
    ("понедельник", Weekday::Mon),
    ("lunes", Weekday::Mon),
    ("lundi", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("dienstag", Weekday::Tue),
    ("вторник", Weekday::Tue),
    ("martes", Weekday::Tue),
    ("mardi", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("mittwoch", Weekday::Wed),
    ("среду", Weekday::Wed),
    ("среда", Weekday::Wed),
    ("miércoles", Weekday::Wed),
    ("miercoles", Weekday::Wed),
    ("mercredi", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("donnerstag", Weekday::Thu),
    ("четверг", Weekday::Thu),
    ("jueves", Weekday::Thu),
    ("jeudi", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("freitag", Weekday::Fri),
    ("пятницу", Weekday::Fri),
    ("пятница", Weekday::Fri),
    ("viernes", Weekday::Fri),
    ("vendredi", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("samstag", Weekday::Sat),
    ("sonnabend", Weekday::Sat),
    ("субботу", Weekday::Sat),
    ("суббота", Weekday::Sat),
    ("sábado", Weekday::Sat),
    ("sabado", Weekday::Sat),
    ("samedi", Weekday::Sat),
    ("sunday", Weekday::Sun),
    ("sonntag", Weekday::Sun),
    ("воскресенье", Weekday::Sun),
    ("domingo", Weekday::Sun),
    ("dimanche", Weekday::Sun),
];

/// Words before a weekday that make it a day (`on`, `am`, `в`, `el`, `last`, ...). French
/// weekdays need none (`qu'avons-nous dit lundi ?`).
const BEFORE_WEEKDAY: &[&str] = &[
    "on",
    "last",
    "am",
    "letzten",
    "vergangenen",
    "в",
    "во",
    "прошлый",
    "прошлую",
    "прошлое",
    "el",
    "le",
    "dernier",
];

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

/// Words for "year" in the five languages and their forms.
const YEAR: &[&str] = &[
    "year", "jahr", "году", "год", "año", "ano", "année", "annee",
];

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Friday, 2026-12-04 16:00 UTC.
    const NOW: i64 = 1_796_400_000_000;

    /// The period's first and last day, `YYYY-MM-DD`.
    fn days(text: &str) -> Option<(String, String)> {
        let period = asked_period(text, NOW)?;
        let day = |ms: i64| {
            chrono::DateTime::from_timestamp_millis(ms)
                .unwrap()
                .date_naive()
                .to_string()
        };
        Some((day(period.from_ms), day(period.to_ms - 1)))
    }

    fn check(cases: &[(&str, &str, &str)]) {
        for (text, first, last) in cases {
            assert_eq!(
                days(text),
                Some(((*first).to_owned(), (*last).to_owned())),
                "{text}"
            );
        }
    }

    fn check_none(texts: &[&str]) {
        for text in texts {
            assert_eq!(days(text), None, "{text}");
        }
    }

    #[test]
    fn a_period_is_whole_utc_days_from_midnight() {
        let period = asked_period("what did we say yesterday?", NOW).unwrap();
        assert_eq!(period.from_ms, 1_796_256_000_000);
        assert_eq!(period.to_ms - period.from_ms, 86_400_000);
    }

    #[test]
    fn english_periods() {
        check(&[
            (
                "What did we talk about yesterday?",
                "2026-12-03",
                "2026-12-03",
            ),
            ("and the day before yesterday?", "2026-12-02", "2026-12-02"),
            (
                "What did we talk about last week?",
                "2026-11-23",
                "2026-11-29",
            ),
            ("anything new this week", "2026-11-30", "2026-12-04"),
            ("Summarize last month for me", "2026-11-01", "2026-11-30"),
            ("what happened this month", "2026-12-01", "2026-12-04"),
            ("What did I plan last weekend?", "2026-11-28", "2026-11-29"),
            ("I told you 3 days ago", "2026-12-01", "2026-12-01"),
            ("we spoke two weeks ago", "2026-11-16", "2026-11-22"),
            ("a month ago I said", "2026-11-01", "2026-11-30"),
            ("What did I say on Monday?", "2026-11-30", "2026-11-30"),
            ("last Friday we met", "2026-11-27", "2026-11-27"),
            ("What did we discuss in May?", "2026-05-01", "2026-05-31"),
            ("in May 2025, where was I?", "2025-05-01", "2025-05-31"),
            ("during August", "2026-08-01", "2026-08-31"),
            ("what did we say in December", "2026-12-01", "2026-12-31"),
            ("What did I tell you on 3 Nov?", "2026-11-03", "2026-11-03"),
            ("on the 3rd of November 2025", "2025-11-03", "2025-11-03"),
            (
                "What did we discuss on May 3rd?",
                "2026-05-03",
                "2026-05-03",
            ),
            ("November 3", "2026-11-03", "2026-11-03"),
            ("on 25 December", "2025-12-25", "2025-12-25"),
            ("on 2026-11-03", "2026-11-03", "2026-11-03"),
            ("what was on 25/11/2026", "2026-11-25", "2026-11-25"),
            ("what was on 11/25/2026", "2026-11-25", "2026-11-25"),
        ]);
    }

    #[test]
    fn english_sentences_with_may_march_or_august_ask_about_no_period() {
        check_none(&[
            "May I ask you something?",
            "This may be wrong",
            "May 3 people join the call?",
            "They will march forward together",
            "I read August Strindberg",
            "The Mai-Tai was great; Maiden voyage next",
            "Let's talk about life on Mars",
            "I have 3 days off",
            "Mix 1/2 cup of flour",
            "It is 11/03/2026 in one country and another day elsewhere",
            "version 1.2.26 is out; it costs 12.50",
            "I weigh 3.5 kg",
            "Remember my birthday",
            "",
        ]);
    }

    #[test]
    fn german_periods() {
        check(&[
            (
                "Was haben wir gestern besprochen?",
                "2026-12-03",
                "2026-12-03",
            ),
            ("Und vorgestern?", "2026-12-02", "2026-12-02"),
            (
                "Worüber haben wir letzte Woche gesprochen?",
                "2026-11-23",
                "2026-11-29",
            ),
            ("in der vergangenen Woche", "2026-11-23", "2026-11-29"),
            ("diese Woche", "2026-11-30", "2026-12-04"),
            ("Was war letzten Monat?", "2026-11-01", "2026-11-30"),
            ("letztes Wochenende", "2026-11-28", "2026-11-29"),
            ("Was habe ich im Mai gesagt?", "2026-05-01", "2026-05-31"),
            ("im März 2025", "2025-03-01", "2025-03-31"),
            ("Was war am Montag?", "2026-11-30", "2026-11-30"),
            (
                "Was habe ich am 3. November erzählt?",
                "2026-11-03",
                "2026-11-03",
            ),
            ("am 03.11.2026", "2026-11-03", "2026-11-03"),
            ("am 03.11.26", "2026-11-03", "2026-11-03"),
            ("vor 3 Tagen", "2026-12-01", "2026-12-01"),
            ("vor zwei Wochen", "2026-11-16", "2026-11-22"),
            ("vor einem Monat", "2026-11-01", "2026-11-30"),
        ]);
        check_none(&[
            "Was machst du hier?",
            "Ich bin hier, bitte antworte",
            "Mailand ist schön, die Maische gärt",
            "Ich stehe vor dem Haus",
            "Montag ist mein Lieblingstag",
        ]);
    }

    #[test]
    fn russian_periods_in_their_cases() {
        check(&[
            ("О чём мы говорили вчера?", "2026-12-03", "2026-12-03"),
            ("а позавчера?", "2026-12-02", "2026-12-02"),
            (
                "Что мы обсуждали на прошлой неделе?",
                "2026-11-23",
                "2026-11-29",
            ),
            ("за прошлую неделю", "2026-11-23", "2026-11-29"),
            ("на этой неделе", "2026-11-30", "2026-12-04"),
            ("в прошлом месяце", "2026-11-01", "2026-11-30"),
            ("на прошлых выходных", "2026-11-28", "2026-11-29"),
            ("Что я говорил в мае?", "2026-05-01", "2026-05-31"),
            ("в мае 2025 года", "2025-05-01", "2025-05-31"),
            ("в марте", "2026-03-01", "2026-03-31"),
            ("Что было в понедельник?", "2026-11-30", "2026-11-30"),
            ("в прошлую среду", "2026-12-02", "2026-12-02"),
            ("во вторник", "2026-12-01", "2026-12-01"),
            ("Что я рассказал 3 ноября?", "2026-11-03", "2026-11-03"),
            ("15 мая", "2026-05-15", "2026-05-15"),
            ("3-го мая", "2026-05-03", "2026-05-03"),
            ("3 дня назад", "2026-12-01", "2026-12-01"),
            ("неделю назад", "2026-11-23", "2026-11-29"),
            ("две недели назад", "2026-11-16", "2026-11-22"),
        ]);
        check_none(&["Майонез закончился", "Понедельник — день тяжёлый", "Я тут"]);
    }

    #[test]
    fn spanish_periods() {
        check(&[
            ("¿De qué hablamos ayer?", "2026-12-03", "2026-12-03"),
            ("¿y anteayer?", "2026-12-02", "2026-12-02"),
            ("antes de ayer", "2026-12-02", "2026-12-02"),
            (
                "¿Qué hablamos la semana pasada?",
                "2026-11-23",
                "2026-11-29",
            ),
            ("esta semana", "2026-11-30", "2026-12-04"),
            ("el mes pasado", "2026-11-01", "2026-11-30"),
            ("el fin de semana pasado", "2026-11-28", "2026-11-29"),
            ("¿Qué te dije en mayo?", "2026-05-01", "2026-05-31"),
            ("¿Qué pasó el lunes?", "2026-11-30", "2026-11-30"),
            ("el 3 de noviembre", "2026-11-03", "2026-11-03"),
            ("el 3 de noviembre de 2025", "2025-11-03", "2025-11-03"),
            ("hace 3 días", "2026-12-01", "2026-12-01"),
            ("hace dos semanas", "2026-11-16", "2026-11-22"),
        ]);
        check_none(&["Hace frío hoy", "Me gusta el mar", "Mayonesa, por favor"]);
    }

    #[test]
    fn french_periods() {
        check(&[
            (
                "De quoi avons-nous parlé hier ?",
                "2026-12-03",
                "2026-12-03",
            ),
            ("et avant-hier ?", "2026-12-02", "2026-12-02"),
            ("la semaine dernière", "2026-11-23", "2026-11-29"),
            ("cette semaine", "2026-11-30", "2026-12-04"),
            ("le mois dernier", "2026-11-01", "2026-11-30"),
            ("ce mois-ci", "2026-12-01", "2026-12-04"),
            ("le week-end dernier", "2026-11-28", "2026-11-29"),
            (
                "Qu'est-ce que je t'ai dit en mai ?",
                "2026-05-01",
                "2026-05-31",
            ),
            ("en mars", "2026-03-01", "2026-03-31"),
            ("Qu'avons-nous dit lundi ?", "2026-11-30", "2026-11-30"),
            ("le 1er novembre", "2026-11-01", "2026-11-01"),
            ("le 3 novembre", "2026-11-03", "2026-11-03"),
            ("il y a 3 jours", "2026-12-01", "2026-12-01"),
            ("il y a deux semaines", "2026-11-16", "2026-11-22"),
        ]);
        check_none(&[
            "La vie sur Mars",
            "Il y a un chat",
            "Maintenant, s'il te plaît",
        ]);
    }

    #[test]
    fn any_text_and_any_time_never_panic() {
        for now in [i64::MIN, -1, 0, NOW, i64::MAX] {
            for text in [
                "yesterday",
                "on 31.02.2026",
                "vor 366 Tagen",
                "on 29 February",
            ] {
                let _ = asked_period(text, now);
            }
        }
        assert_eq!(days("on 31.02.2026"), None, "no such day");
    }
}
