//! Generates the histories of the multilingual memory evaluation from the texts in
//! `languages.rs`: per language two people, each chatting 70 messages (140 lines with the
//! assistant's scripted replies) in six sessions over three weeks of March 2026, long ones first
//! (a greeting, four to twelve exchanges, a goodbye). Mostly small talk, with the person's facts
//! mentioned in passing: the standing preference and the old values of the two changing facts in
//! the first session, one single fact in each of the first five, the new values in the fifth, and
//! the repeated small-talk line once in every session. The last session, a short one, holds small
//! talk only. Questions are asked three days after it, so nothing is in the raw history's 24
//! hours, and the summaries are the modest model's: a few lines per session, so that most facts
//! must be recalled from the messages themselves.
//!
//! A seeded generator makes every run see the same histories. [`check`] verifies the labels.

use std::collections::HashSet;

use chrono::{NaiveDate, TimeZone, Utc};
use telemem::memory::recall::search_terms;
use telemem::storage::{ChatId, ConversationKey, UserId};

use super::languages::{
    CHANGES, FACTS, LANGUAGES, Language, PEOPLE_PER_LANGUAGE, REPEATS, other_language,
};
use crate::support::baselines::{term_matches, words};
use crate::support::fake_embeddings::{CONCEPTS, embed};
use crate::support::times::{DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS};

/// The idle timeout the evaluation runs with (the default, 30 minutes).
pub const SESSION_IDLE_MS: i64 = 30 * MINUTE_MS;

/// Each person's sessions: the day after Monday 2 March 2026, and the exchanges between the
/// greeting and the goodbye. The questions come three days after the last.
pub const SESSIONS: [(i64, usize); 6] = [(0, 12), (3, 11), (7, 11), (10, 10), (14, 10), (20, 4)];
const QUESTION_DAY: i64 = 23;
const QUESTION_HOUR: i64 = 20;
/// Every person's messages: what makes a history 140 lines long.
pub const MESSAGES_PER_PERSON: usize = 70;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A single fact asked with one of its words.
    Keyword,
    /// Asked in other words, in the person's language.
    Paraphrase,
    /// Asked in other words and in the next language.
    CrossLanguage,
    /// A changed fact, asked with a word of the old statement and none of the new one.
    Changed,
    /// The repeated small-talk line, asked with one of its words.
    Repeated,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Keyword,
        Kind::Paraphrase,
        Kind::CrossLanguage,
        Kind::Changed,
        Kind::Repeated,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Keyword => "keyword",
            Kind::Paraphrase => "other words",
            Kind::CrossLanguage => "other language",
            Kind::Changed => "changed fact",
            Kind::Repeated => "repeated line",
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
    /// The standing preference, as the person wrote it.
    pub preference: &'static str,
    /// What every variant of the repeated line holds (lowercase).
    pub repeated_core: String,
    /// The repeated line as the person typed it each time.
    pub repeated: [&'static str; REPEATS],
    /// Everything that is this person's alone: in anyone else's prompt, it is a leak.
    pub values: Vec<String>,
}

pub struct Question {
    pub person: usize,
    pub kind: Kind,
    /// The language the question is asked in.
    pub language: &'static str,
    pub text: String,
    /// Index into [`Corpus::turns`] of the turn that answers it.
    pub answer: usize,
    /// What must be in the prompt: the value (for the repeated line, its core, any case).
    pub gold: String,
    /// For a changed fact, the old statement's turn and value.
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

    /// The turns of `person`, in time order, with their indices.
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

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }

    fn within(&mut self, range: std::ops::RangeInclusive<i64>) -> i64 {
        range.start() + self.below((range.end() - range.start() + 1) as usize) as i64
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for index in (1..items.len()).rev() {
            items.swap(index, self.below(index + 1));
        }
    }
}

/// Something a person says that a question or a check looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plant {
    Preference,
    Fact(usize),
    ChangedOld(usize),
    ChangedNew(usize),
    Repeated(usize),
}

/// Per session, what one person plants in it: the preference and the old values in the first,
/// the single facts in a shuffled order over all but the last, the new values in the one before
/// the last, the repeated line in every session.
fn plan(random: &mut Random) -> Vec<Vec<Plant>> {
    let last = SESSIONS.len() - 1;
    let mut sessions: Vec<Vec<Plant>> = vec![Vec::new(); SESSIONS.len()];
    sessions[0].push(Plant::Preference);
    for change in 0..CHANGES {
        sessions[0].push(Plant::ChangedOld(change));
        sessions[last - 1].push(Plant::ChangedNew(change));
    }
    let mut facts: Vec<usize> = (0..FACTS).collect();
    random.shuffle(&mut facts);
    for (order, &fact) in facts.iter().enumerate() {
        sessions[order % last].push(Plant::Fact(fact));
    }
    for variant in 0..REPEATS {
        sessions[variant % SESSIONS.len()].push(Plant::Repeated(variant));
    }
    sessions
}

/// Midnight UTC of `day` days after Monday 2 March 2026, in ms.
fn day_ms(day: i64) -> i64 {
    let first = NaiveDate::from_ymd_opt(2026, 3, 2).expect("a valid date");
    Utc.from_utc_datetime(&first.and_hms_opt(0, 0, 0).expect("midnight"))
        .timestamp_millis()
        + day * DAY_MS
}

/// The day the questions are asked, as "YYYY-MM-DD HH:MM UTC", for the report.
pub fn question_time() -> String {
    let first = NaiveDate::from_ymd_opt(2026, 3, 2).expect("a valid date");
    let day = first + chrono::Days::new(QUESTION_DAY as u64);
    format!("{day} {QUESTION_HOUR}:00 UTC")
}

pub fn generate() -> Corpus {
    let mut random = Random(0x6d75_6c74_696c_696e);
    let mut people = Vec::new();
    let mut local_turns = Vec::new();
    let mut planted = Vec::new();
    for language in LANGUAGES {
        for rank in 0..PEOPLE_PER_LANGUAGE {
            let person = people.len();
            let user = 8_001 + person as i64;
            let own = &language.people[rank];
            people.push(Person {
                key: ConversationKey::new(ChatId(user), UserId(user)),
                language: language.code,
                preference: own.preference,
                repeated_core: own.repeated_core.to_lowercase(),
                repeated: own.repeated,
                values: person_values(language, rank),
            });
            let plants = plan(&mut random);
            let (turns, told) = tell(person, language, rank, &plants, &mut random);
            local_turns.push(turns);
            planted.push(told);
        }
    }
    let (turns, global) = merge(local_turns);
    let mut questions = Vec::new();
    for (person, who) in people.iter().enumerate() {
        let language = LANGUAGES
            .into_iter()
            .find(|language| language.code == who.language)
            .expect("the person's language");
        let rank = person % PEOPLE_PER_LANGUAGE;
        let turn_of = |wanted: Plant| -> usize {
            let (_, local) = planted[person]
                .iter()
                .find(|(plant, _)| *plant == wanted)
                .expect("every plant is told");
            global[person][*local]
        };
        questions.extend(questions_of(person, language, rank, turn_of));
    }
    Corpus {
        people,
        turns,
        questions,
        asked_at_ms: day_ms(QUESTION_DAY) + QUESTION_HOUR * HOUR_MS,
    }
}

fn person_values(language: &Language, rank: usize) -> Vec<String> {
    let own = &language.people[rank];
    let facts = language.facts.iter().map(|fact| fact.values[rank]);
    let changes = language
        .changes
        .iter()
        .flat_map(|change| change.values[rank]);
    facts
        .chain(changes)
        .chain([own.preference, own.repeated_core])
        .map(str::to_owned)
        .collect()
}

fn fill(template: &str, value: &str) -> String {
    template.replacen("{}", value, 1)
}

fn plant_text(language: &Language, rank: usize, plant: Plant) -> String {
    match plant {
        Plant::Preference => language.people[rank].preference.to_owned(),
        Plant::Fact(fact) => fill(
            language.facts[fact].statement,
            language.facts[fact].values[rank],
        ),
        Plant::ChangedOld(change) => fill(
            language.changes[change].old,
            language.changes[change].values[rank][0],
        ),
        Plant::ChangedNew(change) => fill(
            language.changes[change].new,
            language.changes[change].values[rank][1],
        ),
        Plant::Repeated(variant) => language.people[rank].repeated[variant].to_owned(),
    }
}

/// One person's turns (indices local) and the local index of each planted turn.
fn tell(
    person: usize,
    language: &Language,
    rank: usize,
    plants: &[Vec<Plant>],
    random: &mut Random,
) -> (Vec<Turn>, Vec<(Plant, usize)>) {
    let mut small_talk: Vec<&str> = language.small_talk.to_vec();
    random.shuffle(&mut small_talk);
    let mut small_talk = small_talk.into_iter().cycle();
    let mut turns = Vec::new();
    let mut told = Vec::new();
    for (session, &(day, exchanges)) in SESSIONS.iter().enumerate() {
        let mut middle: Vec<(String, Option<Plant>)> = plants[session]
            .iter()
            .map(|&plant| (plant_text(language, rank, plant), Some(plant)))
            .collect();
        while middle.len() < exchanges {
            let line = small_talk.next().expect("the small talk cycles");
            middle.push((line.to_owned(), None));
        }
        random.shuffle(&mut middle);
        let start = day_ms(day) + (7 + person as i64) * HOUR_MS;
        let mut clock = start + random.within(0..=40) * MINUTE_MS;
        let mut exchange =
            |text: String, reply: &str, turns: &mut Vec<Turn>, random: &mut Random| {
                let index = turns.len();
                for (speaker, text) in [
                    (Speaker::Person, text),
                    (Speaker::Assistant, reply.to_owned()),
                ] {
                    turns.push(Turn {
                        person,
                        speaker,
                        at_ms: clock,
                        text,
                    });
                    clock += random.within(15..=40) * SECOND_MS;
                }
                clock += random.within(45..=200) * SECOND_MS;
                index
            };
        let greeting = random.pick(language.greetings).to_owned();
        let reply = random.pick(language.greeting_replies);
        exchange(greeting, reply, &mut turns, random);
        for (text, plant) in middle {
            let reply = random.pick(language.replies);
            let index = exchange(text, reply, &mut turns, random);
            if let Some(plant) = plant {
                told.push((plant, index));
            }
        }
        let closing = random.pick(language.closings).to_owned();
        let reply = random.pick(language.closing_replies);
        exchange(closing, reply, &mut turns, random);
    }
    (turns, told)
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

fn questions_of(
    person: usize,
    language: &'static Language,
    rank: usize,
    turn_of: impl Fn(Plant) -> usize,
) -> Vec<Question> {
    let question = |kind, asked_in: &'static str, text: &str, answer, gold: &str| Question {
        person,
        kind,
        language: asked_in,
        text: text.to_owned(),
        answer,
        gold: gold.to_owned(),
        stale: None,
    };
    let other = other_language(language.code);
    let mut questions = Vec::new();
    for (index, fact) in language.facts.iter().enumerate() {
        let turn = turn_of(Plant::Fact(index));
        let value = fact.values[rank];
        let code = language.code;
        questions.push(question(Kind::Keyword, code, fact.keyword, turn, value));
        questions.push(question(
            Kind::Paraphrase,
            code,
            fact.paraphrase,
            turn,
            value,
        ));
        let across = other.facts[index].paraphrase;
        questions.push(question(
            Kind::CrossLanguage,
            other.code,
            across,
            turn,
            value,
        ));
    }
    for (index, change) in language.changes.iter().enumerate() {
        let [old, new] = change.values[rank];
        let turn = turn_of(Plant::ChangedNew(index));
        let mut asked = question(Kind::Changed, language.code, change.question, turn, new);
        asked.stale = Some((turn_of(Plant::ChangedOld(index)), old.to_owned()));
        questions.push(asked);
    }
    let own = &language.people[rank];
    questions.push(question(
        Kind::Repeated,
        language.code,
        own.repeated_question,
        turn_of(Plant::Repeated(0)),
        &own.repeated_core.to_lowercase(),
    ));
    questions
}

/// What is wrong with the generated histories: histories of the wrong length or with a turn in
/// the day before the questions; values told in more than their one turn or by someone else;
/// a repeated line whose variants would be left out as exact copies, or whose core is said
/// elsewhere; paraphrases and changed facts' questions sharing a search term with the turn that
/// answers them, or no concept of the fake model (so the fake model could not find them);
/// keyword questions sharing none. Empty when the corpus is sound.
pub fn check(corpus: &Corpus) -> Vec<String> {
    let mut problems = Vec::new();
    if corpus.languages().len() < 6 {
        problems.push(format!("{} languages, not six", corpus.languages().len()));
    }
    for (person, who) in corpus.people.iter().enumerate() {
        problems.extend(person_problems(corpus, person, who));
    }
    for question in &corpus.questions {
        problems.extend(question_problems(corpus, question));
    }
    problems
}

fn person_problems(corpus: &Corpus, person: usize, who: &Person) -> Vec<String> {
    let mut problems = Vec::new();
    let name = format!("person {person} ({})", who.language);
    let said: Vec<&Turn> = corpus
        .turns_of(person)
        .map(|(_, turn)| turn)
        .filter(|turn| turn.speaker == Speaker::Person)
        .collect();
    let lines = corpus.turns_of(person).count();
    if said.len() != MESSAGES_PER_PERSON || lines != 2 * MESSAGES_PER_PERSON {
        problems.push(format!("{name}: {lines} lines, {} messages", said.len()));
    }
    if corpus
        .turns_of(person)
        .any(|(_, turn)| corpus.asked_at_ms - turn.at_ms < DAY_MS)
    {
        problems.push(format!("{name}: a turn within a day of the questions"));
    }
    for value in &who.values {
        let holders = said
            .iter()
            .filter(|turn| contains_folded(&turn.text, value))
            .count();
        let expected = if *value == who.repeated_core {
            REPEATS
        } else {
            1
        };
        if holders != expected {
            problems.push(format!("{name}: {value:?} is in {holders} turns"));
        }
        let elsewhere = corpus
            .turns
            .iter()
            .any(|turn| turn.person != person && contains_folded(&turn.text, value));
        if elsewhere {
            problems.push(format!("{name}: {value:?} is in someone else's turn"));
        }
    }
    let distinct: HashSet<String> = who
        .repeated
        .iter()
        .map(|variant| variant.trim().to_lowercase())
        .collect();
    if distinct.len() < 4 || distinct.len() == REPEATS {
        problems.push(format!(
            "{name}: {} distinct repeated lines, want near-duplicates and an exact one",
            distinct.len()
        ));
    }
    problems
}

fn contains_folded(text: &str, value: &str) -> bool {
    text.to_lowercase().contains(&value.to_lowercase())
}

fn question_problems(corpus: &Corpus, question: &Question) -> Vec<String> {
    let mut problems = Vec::new();
    let name = format!("{:?} {:?}", question.kind, question.text);
    let Some(answer) = corpus.turns.get(question.answer) else {
        return vec![format!("{name}: no answering turn")];
    };
    if answer.person != question.person || answer.speaker != Speaker::Person {
        problems.push(format!(
            "{name}: the answer is not the person's own message"
        ));
    }
    if !contains_folded(&answer.text, &question.gold) {
        problems.push(format!("{name}: {:?} is not in its answer", question.gold));
    }
    let shared = shared_terms(&question.text, &answer.text);
    match question.kind {
        Kind::Keyword | Kind::Repeated if shared.is_empty() => {
            problems.push(format!("{name}: shares no word with {:?}", answer.text));
        }
        Kind::Paraphrase | Kind::CrossLanguage | Kind::Changed if !shared.is_empty() => {
            problems.push(format!("{name}: shares {shared:?} with {:?}", answer.text));
        }
        _ => {}
    }
    let needs_meaning = matches!(
        question.kind,
        Kind::Paraphrase | Kind::CrossLanguage | Kind::Changed
    );
    if needs_meaning && !shares_a_concept(&question.text, &answer.text) {
        problems.push(format!(
            "{name}: the fake model's concept table links it to no concept of {:?}",
            answer.text
        ));
    }
    if let Some((stale, _)) = &question.stale {
        let old = &corpus.turns[*stale].text;
        if shared_terms(&question.text, old).is_empty() {
            problems.push(format!("{name}: shares no word with the old {old:?}"));
        }
    }
    problems
}

/// The search terms of `question` that find a word of `text`, as recall looks.
fn shared_terms(question: &str, text: &str) -> Vec<String> {
    let text_words = words(text);
    search_terms(question)
        .into_iter()
        .filter(|term| text_words.iter().any(|word| term_matches(term, word)))
        .collect()
}

/// Whether the fake embedding model puts a word of each text in one concept.
fn shares_a_concept(question: &str, text: &str) -> bool {
    let (question, text) = (embed(question), embed(text));
    (0..CONCEPTS.len()).any(|concept| question[concept] > 0.0 && text[concept] > 0.0)
}
