//! Generates the long conversations of the evaluation from the texts in `languages.rs`: per
//! language one person talking with the assistant over 30 sessions from January to July
//! (greeting, what they did since last time, small talk, now and then a fact, goodbye), sessions
//! hours or days apart; and one more English person with the same kinds of facts and other
//! values, in the same database. Questions are asked on [`QUESTION_DAY`], each labelled with the
//! turns that answer it and the strings the answer consists of (the gold).
//!
//! Facts are planted before May; the sessions of May, June and the last week hold episodes and
//! small talk only, so that a question about a period is answered by that period's episodes.
//! A seeded generator makes every run see the same conversations. [`check`] verifies the labels.

use std::collections::{BTreeSet, HashSet};

use chrono::{Datelike, NaiveDate, TimeZone, Utc};
use telemem::memory::recall::search_terms;
use telemem::storage::{ChatId, ConversationKey, UserId};

use super::languages::{CHANGES, FACTS, LANGUAGES, Language, NUMBER_FACT, SPREADS, other_language};
use crate::support::baselines::{term_matches, words};
use crate::support::times::{HOUR_MS, MINUTE_MS, SECOND_MS};

/// The idle timeout the evaluation runs with (the default, 30 minutes).
pub const SESSION_IDLE_MS: i64 = 30 * MINUTE_MS;

/// When every question is asked: Wednesday 8 July 2026, 18:00 UTC. "Last week" is 29 June to
/// 5 July, "last month" June.
pub const QUESTION_DAY: (u32, u32) = (7, 8);
const YEAR: i32 = 2026;
const QUESTION_HOUR: i64 = 18;

/// Sessions of an evaluated person: 21 from January to April, then three in May, three in June,
/// two last week and one this week.
const EARLY_SESSIONS: usize = 21;
const LATE_SESSION_DAYS: [(u32, u32); 9] = [
    (5, 5),
    (5, 16),
    (5, 26),
    (6, 4),
    (6, 13),
    (6, 22),
    (7, 1),
    (7, 3),
    (7, 6),
];

/// The other English person's sessions, every 15 days from mid-January.
const OTHER_PERSON_SESSIONS: usize = 12;

/// Small-talk exchanges in a session, besides greeting, episode, facts and goodbye.
const SMALL_TALK_PER_SESSION: std::ops::RangeInclusive<u64> = 2..=5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Asked with a word of the fact.
    Keyword,
    /// Asked in other words, in the fact's language.
    Paraphrase,
    /// Asked in other words, in another language than the fact.
    CrossLanguage,
    /// Told in two sessions; both turns answer.
    Spread,
    /// Told, then changed: the newer turn answers.
    Changed,
    /// "What did we talk about last week?": that period's episodes answer.
    Period,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Keyword,
        Kind::Paraphrase,
        Kind::CrossLanguage,
        Kind::Spread,
        Kind::Changed,
        Kind::Period,
    ];

    /// The kinds answerable without embeddings: all but the paraphrases.
    pub const WITHOUT_MEANING: [Kind; 4] =
        [Kind::Keyword, Kind::Spread, Kind::Changed, Kind::Period];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Keyword => "single fact, keyword question",
            Kind::Paraphrase => "single fact, paraphrase",
            Kind::CrossLanguage => "single fact, paraphrase in another language",
            Kind::Spread => "fact spread over two sessions",
            Kind::Changed => "changed fact: the newer value",
            Kind::Period => "a period (last week, last month, in May)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    Person,
    Assistant,
}

/// One message, at a simulated time.
#[derive(Clone, Debug)]
pub struct Turn {
    pub person: usize,
    pub speaker: Speaker,
    pub at_ms: i64,
    pub text: String,
}

pub struct Person {
    pub key: ConversationKey,
    pub language: &'static str,
    /// Whether questions are asked of this person (the others only share the database).
    pub evaluated: bool,
    /// Every value this person told: in anyone else's prompt, it is a leak.
    pub values: Vec<String>,
    pub sessions: usize,
}

pub struct Question {
    pub person: usize,
    pub kind: Kind,
    /// The language the question is asked in.
    pub language: &'static str,
    pub text: String,
    /// Indices into [`Corpus::turns`] of the turns that answer it.
    pub answers: Vec<usize>,
    /// What the answer consists of: all of it must be in the prompt.
    pub gold: Vec<String>,
    /// For a changed fact, the older turn and value.
    pub stale: Option<(usize, String)>,
}

pub struct Corpus {
    pub people: Vec<Person>,
    /// Everyone's turns in time order.
    pub turns: Vec<Turn>,
    pub questions: Vec<Question>,
    pub asked_at_ms: i64,
}

impl Corpus {
    pub fn languages(&self) -> Vec<&'static str> {
        LANGUAGES.iter().map(|language| language.code).collect()
    }

    /// The turns of `person` before the questions, in time order.
    pub fn turns_of(&self, person: usize) -> impl Iterator<Item = (usize, &Turn)> {
        self.turns
            .iter()
            .enumerate()
            .filter(move |(_, turn)| turn.person == person)
    }
}

/// SplitMix64: small, seeded, the same on every platform.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound.max(1)
    }

    fn within(&mut self, range: std::ops::RangeInclusive<u64>) -> u64 {
        range.start() + self.below(range.end() - range.start() + 1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// What a planted turn says, and which question it serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plant {
    Fact(usize),
    SpreadFirst(usize),
    SpreadSecond(usize),
    ChangedOld(usize),
    ChangedNew(usize),
}

/// One person's plan: values and where they are told.
struct Plan {
    language: &'static Language,
    /// Index of this person among the people of the language (0: the evaluated one).
    rank: usize,
    session_starts: Vec<i64>,
    /// Per session, what is planted in it.
    plants: Vec<Vec<Plant>>,
    episode_names: Vec<&'static str>,
    fact_values: Vec<String>,
}

/// Local turn index of each planted turn and episode, to label the questions.
#[derive(Default)]
struct Told {
    plants: Vec<(Plant, usize)>,
    /// Per session: the episode's local turn index.
    episodes: Vec<usize>,
}

pub fn generate() -> Corpus {
    let mut random = Random(0x5eed_1a2b_3c4d_5e6f);
    let mut used_numbers = HashSet::new();
    let mut plans = Vec::new();
    for (index, language) in LANGUAGES.iter().enumerate() {
        let hour = 7 + 4 * index as i64;
        plans.push(plan(
            language,
            0,
            evaluated_schedule(&mut random, hour),
            &mut random,
            &mut used_numbers,
        ));
    }
    let other = plan(
        LANGUAGES[0],
        1,
        other_schedule(&mut random),
        &mut random,
        &mut used_numbers,
    );
    plans.push(other);

    let mut people = Vec::new();
    let mut local_turns = Vec::new();
    let mut told = Vec::new();
    for (person, plan) in plans.iter().enumerate() {
        let user = 7_001 + person as i64;
        let (turns, person_told) = tell(person, plan, &mut random);
        people.push(Person {
            key: ConversationKey::new(ChatId(user), UserId(user)),
            language: plan.language.code,
            evaluated: plan.rank == 0,
            values: person_values(plan),
            sessions: plan.session_starts.len(),
        });
        local_turns.push(turns);
        told.push(person_told);
    }
    let (turns, global) = merge(local_turns);
    let asked_at_ms = at(QUESTION_DAY.0, QUESTION_DAY.1) + QUESTION_HOUR * HOUR_MS;
    let mut questions = Vec::new();
    for (person, plan) in plans.iter().enumerate() {
        if plan.rank == 0 {
            questions.extend(questions_of(person, plan, &told[person], &global[person]));
        }
    }
    Corpus {
        people,
        turns,
        questions,
        asked_at_ms,
    }
}

/// Midnight UTC of a day of [`YEAR`], in ms.
fn at(month: u32, day: u32) -> i64 {
    let date = NaiveDate::from_ymd_opt(YEAR, month, day).expect("a valid evaluation date");
    Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).expect("midnight"))
        .timestamp_millis()
}

/// An evaluated person's session starts: every five days or so from 12 January, now and then
/// a second session on the same day, then the fixed late sessions; at about `hour` o'clock.
fn evaluated_schedule(random: &mut Random, hour: i64) -> Vec<i64> {
    let january_first = at(1, 1);
    let mut starts = Vec::new();
    for index in 0..EARLY_SESSIONS {
        let start = if index % 7 == 3 {
            starts.last().copied().unwrap_or(january_first) + 5 * HOUR_MS
        } else {
            let day = 11 + 5 * index as i64 + random.within(0..=2) as i64;
            january_first + day * 24 * HOUR_MS + hour * HOUR_MS
        };
        starts.push(start + random.within(0..=90) as i64 * MINUTE_MS);
    }
    for (month, day) in LATE_SESSION_DAYS {
        starts.push(at(month, day) + hour * HOUR_MS + random.within(0..=90) as i64 * MINUTE_MS);
    }
    starts
}

fn other_schedule(random: &mut Random) -> Vec<i64> {
    (0..OTHER_PERSON_SESSIONS)
        .map(|index| {
            at(1, 15)
                + 15 * index as i64 * 24 * HOUR_MS
                + 9 * HOUR_MS
                + random.within(0..=90) as i64 * MINUTE_MS
        })
        .collect()
}

/// Places the facts in the sessions before May: old values of changed facts first, the second
/// part of a spread fact at least four sessions after the first, new values later on.
fn plan(
    language: &'static Language,
    rank: usize,
    session_starts: Vec<i64>,
    random: &mut Random,
    used_numbers: &mut HashSet<u64>,
) -> Plan {
    let sessions = session_starts.len();
    let last_fact_session = sessions.min(EARLY_SESSIONS) - 1;
    let mut plants: Vec<Vec<Plant>> = vec![Vec::new(); sessions];
    let mut place = |plant: Plant, from: usize, to: usize, random: &mut Random| -> usize {
        let to = to.min(last_fact_session);
        let from = from.min(to);
        for _ in 0..64 {
            let session = from + random.below((to - from + 1) as u64) as usize;
            if plants[session].len() < 2 {
                plants[session].push(plant);
                return session;
            }
        }
        plants[from].push(plant);
        from
    };
    for change in 0..CHANGES {
        place(Plant::ChangedOld(change), 0, 4, random);
        place(Plant::ChangedNew(change), 13, 20, random);
    }
    for spread in 0..SPREADS {
        let first = place(Plant::SpreadFirst(spread), 1, 9, random);
        place(Plant::SpreadSecond(spread), first + 4, 19, random);
    }
    for fact in 0..FACTS {
        place(Plant::Fact(fact), 1, 18, random);
    }
    let fact_values = (0..FACTS)
        .map(|fact| {
            if fact == NUMBER_FACT {
                loop {
                    let number = random.within(10_000..=99_999);
                    if used_numbers.insert(number) {
                        return number.to_string();
                    }
                }
            } else {
                language.facts[fact].values[rank].to_owned()
            }
        })
        .collect();
    // Names are taken in turn from the language's list: the other English person's come after
    // the evaluated person's, so nobody shares one.
    let offset = rank * 30;
    let episode_names = (0..sessions)
        .map(|session| language.names[(offset + session) % language.names.len()])
        .collect();
    Plan {
        language,
        rank,
        session_starts,
        plants,
        episode_names,
        fact_values,
    }
}

fn person_values(plan: &Plan) -> Vec<String> {
    let language = plan.language;
    let mut values: Vec<String> = plan.fact_values.clone();
    for spread in &language.spreads {
        values.extend(spread_values(spread.values, plan.rank).map(str::to_owned));
    }
    for change in &language.changes {
        values.extend(spread_values(change.values, plan.rank).map(str::to_owned));
    }
    values.extend(plan.episode_names.iter().map(|name| (*name).to_owned()));
    values
}

/// The two values of a person of `rank` in a spread or changed fact's list.
fn spread_values<'a>(values: &[&'a str], rank: usize) -> [&'a str; 2] {
    [values[2 * rank], values[2 * rank + 1]]
}

/// The turns of one person (indices are local), and where the plants and episodes are.
fn tell(person: usize, plan: &Plan, random: &mut Random) -> (Vec<Turn>, Told) {
    let language = plan.language;
    let mut turns = Vec::new();
    let mut told = Told::default();
    let first_episode = random.below(language.episodes.len() as u64) as usize;
    for (session, &start) in plan.session_starts.iter().enumerate() {
        let mut clock = start;
        let mut exchange =
            |text: String, reply: &str, turns: &mut Vec<Turn>, random: &mut Random| {
                let index = turns.len();
                turns.push(Turn {
                    person,
                    speaker: Speaker::Person,
                    at_ms: clock,
                    text,
                });
                clock += random.within(15..=40) as i64 * SECOND_MS;
                turns.push(Turn {
                    person,
                    speaker: Speaker::Assistant,
                    at_ms: clock,
                    text: reply.to_owned(),
                });
                clock += random.within(60..=240) as i64 * SECOND_MS;
                index
            };
        let greeting = random.pick(language.greetings).to_owned();
        exchange(
            greeting,
            random.pick(language.greeting_replies),
            &mut turns,
            random,
        );
        // Five is prime to the twelve episodes: every one comes before any comes again.
        let template = language.episodes[(first_episode + 5 * session) % language.episodes.len()];
        let episode = fill(template, plan.episode_names[session]);
        told.episodes.push(exchange(
            episode,
            random.pick(language.replies),
            &mut turns,
            random,
        ));

        let small_talk = random.within(SMALL_TALK_PER_SESSION) as usize;
        let plants = &plan.plants[session];
        // Each plant goes after a random number of the small-talk exchanges.
        let mut plant_slots: Vec<(usize, Plant)> = plants
            .iter()
            .map(|plant| (random.below(small_talk as u64 + 1) as usize, *plant))
            .collect();
        plant_slots.sort_by_key(|(slot, _)| *slot);
        let mut pending = plant_slots.into_iter().peekable();
        for slot in 0..=small_talk {
            while let Some((_, plant)) = pending.next_if(|(at, _)| *at == slot) {
                let text = plant_text(plan, plant);
                let reply = random.pick(language.replies);
                told.plants
                    .push((plant, exchange(text, reply, &mut turns, random)));
            }
            if slot < small_talk {
                let text = small_talk_text(language, random);
                exchange(text, random.pick(language.replies), &mut turns, random);
            }
        }
        let closing = random.pick(language.closings).to_owned();
        exchange(
            closing,
            random.pick(language.closing_replies),
            &mut turns,
            random,
        );
    }
    (turns, told)
}

/// One or (now and then) two sentences of small talk; one in four near a fact's topic.
fn small_talk_text(language: &Language, random: &mut Random) -> String {
    if random.below(4) == 0 {
        return random.pick(language.near_topics).to_owned();
    }
    let first = random.pick(language.small_talk);
    if random.below(10) < 3 {
        let second = random.pick(language.small_talk);
        if second != first {
            return format!("{first} {second}");
        }
    }
    first.to_owned()
}

fn fill(template: &str, value: &str) -> String {
    template.replacen("{}", value, 1)
}

fn plant_text(plan: &Plan, plant: Plant) -> String {
    let language = plan.language;
    match plant {
        Plant::Fact(fact) => fill(language.facts[fact].statement, &plan.fact_values[fact]),
        Plant::SpreadFirst(spread) => {
            let [first, _] = spread_values(language.spreads[spread].values, plan.rank);
            fill(language.spreads[spread].first, first)
        }
        Plant::SpreadSecond(spread) => {
            let [_, second] = spread_values(language.spreads[spread].values, plan.rank);
            fill(language.spreads[spread].second, second)
        }
        Plant::ChangedOld(change) => {
            let [old, _] = spread_values(language.changes[change].values, plan.rank);
            fill(language.changes[change].old, old)
        }
        Plant::ChangedNew(change) => {
            let [_, new] = spread_values(language.changes[change].values, plan.rank);
            fill(language.changes[change].new, new)
        }
    }
}

/// Everyone's turns in one time order; per person, the global index of each local turn.
fn merge(local_turns: Vec<Vec<Turn>>) -> (Vec<Turn>, Vec<Vec<usize>>) {
    let mut order: Vec<(i64, usize, usize)> = local_turns
        .iter()
        .enumerate()
        .flat_map(|(person, turns)| {
            turns
                .iter()
                .enumerate()
                .map(move |(local, turn)| (turn.at_ms, person, local))
        })
        .collect();
    order.sort_unstable();
    let mut global: Vec<Vec<usize>> = local_turns
        .iter()
        .map(|turns| vec![0; turns.len()])
        .collect();
    let mut turns = Vec::with_capacity(order.len());
    for (index, (_, person, local)) in order.into_iter().enumerate() {
        global[person][local] = index;
        turns.push(local_turns[person][local].clone());
    }
    (turns, global)
}

fn questions_of(person: usize, plan: &Plan, told: &Told, global: &[usize]) -> Vec<Question> {
    let language = plan.language;
    let turn_of = |wanted: Plant| -> usize {
        let local = told
            .plants
            .iter()
            .find(|(plant, _)| *plant == wanted)
            .map(|(_, local)| *local)
            .expect("every plant is told");
        global[local]
    };
    let question = |kind, asked_in: &'static str, text: &str, answers, gold| Question {
        person,
        kind,
        language: asked_in,
        text: text.to_owned(),
        answers,
        gold,
        stale: None,
    };
    let mut questions = Vec::new();
    let other = other_language(language.code);
    for fact in 0..FACTS {
        let turn = turn_of(Plant::Fact(fact));
        let value = plan.fact_values[fact].clone();
        let texts = &language.facts[fact];
        questions.push(question(
            Kind::Keyword,
            language.code,
            texts.keyword,
            vec![turn],
            vec![value.clone()],
        ));
        questions.push(question(
            Kind::Paraphrase,
            language.code,
            texts.paraphrase,
            vec![turn],
            vec![value.clone()],
        ));
        let across = other.facts[fact].paraphrase;
        questions.push(question(
            Kind::CrossLanguage,
            other.code,
            across,
            vec![turn],
            vec![value],
        ));
    }
    for (index, spread) in language.spreads.iter().enumerate() {
        let answers = vec![
            turn_of(Plant::SpreadFirst(index)),
            turn_of(Plant::SpreadSecond(index)),
        ];
        let gold = spread_values(spread.values, plan.rank)
            .map(str::to_owned)
            .to_vec();
        questions.push(question(
            Kind::Spread,
            language.code,
            spread.question,
            answers,
            gold,
        ));
    }
    for (index, change) in language.changes.iter().enumerate() {
        let [old, new] = spread_values(change.values, plan.rank);
        let mut asked = question(
            Kind::Changed,
            language.code,
            change.question,
            vec![turn_of(Plant::ChangedNew(index))],
            vec![new.to_owned()],
        );
        asked.stale = Some((turn_of(Plant::ChangedOld(index)), old.to_owned()));
        questions.push(asked);
    }
    let periods = &language.periods;
    let in_range = |from: (u32, u32), to: (u32, u32)| -> (Vec<usize>, Vec<String>) {
        let (from, to) = (at(from.0, from.1), at(to.0, to.1));
        plan.session_starts
            .iter()
            .enumerate()
            .filter(|(_, start)| (from..to).contains(*start))
            .map(|(session, _)| {
                (
                    global[told.episodes[session]],
                    plan.episode_names[session].to_owned(),
                )
            })
            .unzip()
    };
    for (text, from, to) in [
        (periods.last_week, (6, 29), (7, 6)),
        (periods.last_month, (6, 1), (7, 1)),
        (periods.in_may, (5, 1), (6, 1)),
    ] {
        let (answers, gold) = in_range(from, to);
        questions.push(question(Kind::Period, language.code, text, answers, gold));
    }
    questions
}

/// What is wrong with the generated corpus: labels that do not point at the person's own
/// earlier turns holding the gold, gold found in other turns, a person's value in another
/// person's text, paraphrases sharing a search term with their fact, keyword questions sharing
/// none, conversations of the wrong length. Empty when the corpus is sound.
pub fn check(corpus: &Corpus) -> Vec<String> {
    let mut problems = Vec::new();
    for (person, who) in corpus.people.iter().enumerate() {
        let turns = corpus.turns_of(person).count();
        if who.evaluated && !(300..=600).contains(&turns) {
            problems.push(format!("{}: {turns} turns, not 300–600", who.language));
        }
        for (other, them) in corpus.people.iter().enumerate() {
            if other == person {
                continue;
            }
            for value in &who.values {
                if let Some((_, turn)) = corpus
                    .turns_of(other)
                    .find(|(_, turn)| turn.text.contains(value.as_str()))
                {
                    problems.push(format!(
                        "{value:?} of person {person} is in person {other}'s ({}) {:?}",
                        them.language, turn.text
                    ));
                }
            }
        }
    }
    for question in &corpus.questions {
        problems.extend(question_problems(corpus, question));
    }
    problems
}

fn question_problems(corpus: &Corpus, question: &Question) -> Vec<String> {
    let mut problems = Vec::new();
    let name = format!("{:?} {:?}", question.kind, question.text);
    if question.answers.is_empty() || question.gold.is_empty() {
        problems.push(format!("{name}: no answer"));
    }
    for &answer in &question.answers {
        match corpus.turns.get(answer) {
            Some(turn)
                if turn.person == question.person
                    && turn.speaker == Speaker::Person
                    && turn.at_ms < corpus.asked_at_ms => {}
            _ => problems.push(format!(
                "{name}: answer {answer} is not the person's earlier turn"
            )),
        }
    }
    for gold in &question.gold {
        let holders: BTreeSet<usize> = corpus
            .turns_of(question.person)
            .filter(|(_, turn)| turn.text.contains(gold.as_str()))
            .map(|(index, _)| index)
            .collect();
        if holders.is_empty() || !holders.iter().all(|index| question.answers.contains(index)) {
            problems.push(format!(
                "{name}: {gold:?} is in turns {holders:?}, answers {:?}",
                question.answers
            ));
        }
    }
    let fact_words: Vec<String> = question
        .answers
        .iter()
        .filter_map(|&answer| corpus.turns.get(answer))
        .flat_map(|turn| words(&turn.text))
        .collect();
    let shared: Vec<String> = search_terms(&question.text)
        .into_iter()
        .filter(|term| fact_words.iter().any(|word| term_matches(term, word)))
        .collect();
    match question.kind {
        Kind::Paraphrase | Kind::CrossLanguage if !shared.is_empty() => {
            problems.push(format!("{name}: shares {shared:?} with its fact"));
        }
        Kind::Keyword if shared.is_empty() => {
            problems.push(format!("{name}: shares no word with its fact"));
        }
        _ => {}
    }
    problems
}

/// The day of the question as "YYYY-MM-DD", for the report.
pub fn question_day() -> String {
    let date = NaiveDate::from_ymd_opt(YEAR, QUESTION_DAY.0, QUESTION_DAY.1).expect("a date");
    format!("{} ({})", date, date.weekday())
}
