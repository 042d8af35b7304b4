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

/// The sentences of `cases.txt` and the days each asks about (`None`: no period).
fn table() -> Vec<(&'static str, Option<(String, String)>)> {
    include_str!("cases.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split(" | ").collect();
            match fields[..] {
                [text, "none"] => (text, None),
                [text, first, last] => (text, Some((first.to_owned(), last.to_owned()))),
                _ => panic!("not a case: {line}"),
            }
        })
        .collect()
}

#[test]
fn a_period_is_whole_utc_days_from_midnight() {
    let period = asked_period("what did we say yesterday?", NOW).unwrap();
    assert_eq!(period.from_ms, 1_796_256_000_000);
    assert_eq!(period.to_ms - period.from_ms, 86_400_000);
}

#[test]
fn every_sentence_of_the_table_asks_about_its_days() {
    let table = table();
    assert!(!table.is_empty());
    let wrong: Vec<String> = table
        .into_iter()
        .filter_map(|(text, expected)| {
            let found = days(text);
            (found != expected).then(|| format!("{text:?}: {found:?}, not {expected:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn an_empty_text_asks_about_no_period() {
    assert_eq!(days(""), None);
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
