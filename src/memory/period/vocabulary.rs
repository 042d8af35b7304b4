//! The words of periods in the five languages the questions come in (English, German, Russian,
//! Spanish, French), in the forms they take: month and weekday names, the words that make a name
//! a date (prepositions, "last", "this"), number words and units. Reading phrases of them is
//! [`super`]'s job.

use chrono::Weekday;

/// Month names and their forms, lower case. The abbreviations only count beside a day number.
pub(super) const MONTHS: &[(&str, u32)] = &[
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
pub(super) const AMBIGUOUS_MONTHS: &[&str] = &["may", "march", "august", "mars"];

pub(super) fn month_of(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, month)| *month)
}

/// Words after which a month name means the month: prepositions and "last"/"this".
pub(super) const BEFORE_MONTH: &[&str] = &[
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
pub(super) const BEFORE_AMBIGUOUS_MONTH: &[&str] = &[
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
pub(super) const MONTH_ABBREVIATIONS: &[&str] = &[
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Words between a day number and its month (`3rd of May`, `3 de mayo`, `3-го мая`).
pub(super) const DAY_MONTH_LINKS: &[&str] = &["of", "de", "del", "го"];

/// A day number: `3`, `03`, `3rd`, `1st`, `1er`, from 1 to 31.
pub(super) fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| !c.is_ascii_digit());
    let suffix = &word[digits.len()..];
    if !["", "st", "nd", "rd", "th", "er", "e", "ème", "го", "е"].contains(&suffix) {
        return None;
    }
    digits.parse().ok().filter(|day| (1..=31).contains(day))
}

/// Adjectives for "last" (this one before the current) in the five languages and their forms.
pub(super) const LAST: &[&str] = &[
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
pub(super) const THIS: &[&str] = &[
    "this", "diese", "dieser", "diesen", "dieses", "этой", "эту", "этом", "этот", "esta", "este",
    "cette", "ce",
];
pub(super) const WEEK: &[&str] = &[
    "week",
    "woche",
    "неделе",
    "неделю",
    "неделя",
    "недели",
    "semana",
    "semaine",
];
pub(super) const MONTH: &[&str] = &["month", "monat", "месяце", "месяц", "mes", "mois"];
pub(super) const WEEKEND: &[&str] = &["weekend", "wochenende", "выходные", "выходных"];

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
pub(super) fn count_of(word: &str) -> Option<u32> {
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
pub(super) enum Unit {
    Day,
    Week,
    Month,
}

pub(super) fn unit_of(word: &str) -> Option<Unit> {
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

/// Weekday names, lower case, in the forms a question about the past uses.
pub(super) const WEEKDAYS: &[(&str, Weekday)] = &[
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
pub(super) const BEFORE_WEEKDAY: &[&str] = &[
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

/// Words for "year" in the five languages and their forms.
pub(super) const YEAR: &[&str] = &[
    "year", "jahr", "году", "год", "año", "ano", "année", "annee",
];
