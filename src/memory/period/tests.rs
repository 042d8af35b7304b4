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
