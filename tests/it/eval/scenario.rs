//! Generates the evaluation's conversations from the templates in `languages.rs`: per language
//! three people, each with a private chat and a shared group chat, over ten simulated days, and
//! a fourth person whose facts are asked back in other words, change, or (in German) are named
//! by compounds (`scenario/meaning.rs`). Every probe is a turn whose prompt must (or, for
//! isolation, must never) contain a referent.
//!
//! All values are drawn from a seeded generator, so every run sees the same conversations.

use std::collections::HashMap;

use telemem::storage::{ChatId, ConversationKey, UserId};

use super::languages::{LANGUAGES, Language, SECRET_KINDS, SecretKind, TOPIC_KINDS, TopicKind};
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS, MINUTE_MS};

mod meaning;

/// The idle timeout the evaluation runs with (the default, 30 minutes).
pub const SESSION_IDLE_MS: i64 = 30 * MINUTE_MS;

/// How many session summaries a prompt carries (the default, which the evaluation runs with):
/// a fact told more sessions ago than this comes back only through recall.
pub const SUMMARY_COUNT: usize = 3;

/// People per language; they share one group chat.
const PEOPLE_PER_LANGUAGE: usize = 3;

/// Unrelated turns between a session's start and an after-break back-reference; beyond about
/// fifteen, the planted fact has left the last 30 messages.
const FILLER_BEFORE_PROBE: [usize; 11] = [0, 3, 5, 8, 12, 16, 20, 25, 30, 35, 40];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    SameSession,
    SameDayAfterBreak,
    AfterDays,
    Preference,
    /// Asked with the fact's words, more than [`SUMMARY_COUNT`] sessions later.
    BeyondSummaries,
    /// A German compound asked as a phrase, or a phrase asked as a compound.
    Compound,
    /// Asked without any content word of the fact, more than [`SUMMARY_COUNT`] sessions later.
    Paraphrase,
    /// A fact that changed: the new value must be in the prompt, before the old one if both are.
    ChangedFact,
    Isolation,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::SameSession,
        Kind::SameDayAfterBreak,
        Kind::AfterDays,
        Kind::Preference,
        Kind::BeyondSummaries,
        Kind::Compound,
        Kind::Paraphrase,
        Kind::ChangedFact,
        Kind::Isolation,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::SameSession => "same session",
            Kind::SameDayAfterBreak => "same day, after a session break",
            Kind::AfterDays => "after 2–6 days",
            Kind::Preference => "preference, 3–9 days later",
            Kind::BeyondSummaries => "same words, more than 3 sessions later",
            Kind::Compound => "German compound ↔ phrase, days later",
            Kind::Paraphrase => "paraphrase (no word in common), more than 3 sessions later",
            Kind::ChangedFact => "changed fact: the new value, first",
            Kind::Isolation => "isolation (another user's private fact)",
        }
    }
}

/// A turn whose prompt is checked for `referent`.
#[derive(Clone, Debug)]
pub struct Probe {
    pub kind: Kind,
    pub language: &'static str,
    pub referent: String,
    /// For a changed fact, the old value: it may be in the prompt only after the referent.
    pub stale: Option<String>,
}

impl Probe {
    /// Whether `prompt` carries what the probe needs (for isolation: what it must not carry).
    pub fn is_found_in(&self, prompt: &str) -> bool {
        let Some(at) = prompt.find(&self.referent) else {
            return false;
        };
        self.stale
            .as_deref()
            .and_then(|stale| prompt.find(stale))
            .is_none_or(|stale_at| at < stale_at)
    }
}

/// One message a person sends, at a simulated time.
#[derive(Clone, Debug)]
pub struct Turn {
    pub at_ms: i64,
    pub key: ConversationKey,
    pub text: String,
    pub probe: Option<Probe>,
}

/// Everything the evaluation runs.
pub struct Scenario {
    /// All turns of all people, in time order.
    pub turns: Vec<Turn>,
    /// The generated values each person told (facts and secrets): any of them in another
    /// user's prompt is a leak.
    pub private_values: PrivateValues,
    pub people: usize,
    pub languages: Vec<&'static str>,
}

/// Every person's private values, each prompt searched for all of them in one pass: a search
/// per value over every prompt of the run would take most of a debug build's time.
pub struct PrivateValues {
    /// (owner, value), in no particular order.
    values: Vec<(i64, String)>,
    /// Indexes into `values` by the value's first two bytes (as a `u16`).
    by_start: Vec<Vec<usize>>,
}

impl PrivateValues {
    fn new(by_owner: HashMap<i64, Vec<String>>) -> Self {
        let values: Vec<(i64, String)> = by_owner
            .into_iter()
            .flat_map(|(owner, values)| values.into_iter().map(move |value| (owner, value)))
            .collect();
        let mut by_start = vec![Vec::new(); usize::from(u16::MAX) + 1];
        for (index, (_, value)) in values.iter().enumerate() {
            let start = Self::start(value.as_bytes()).expect("values have two bytes or more");
            by_start[start].push(index);
        }
        Self { values, by_start }
    }

    fn start(bytes: &[u8]) -> Option<usize> {
        Some(usize::from(u16::from_be_bytes([
            *bytes.first()?,
            *bytes.get(1)?,
        ])))
    }

    /// The values of people other than `user_id` that occur in `text`, each once.
    pub fn of_others_in(&self, user_id: i64, text: &str) -> Vec<&str> {
        let bytes = text.as_bytes();
        let mut found: Vec<usize> = (0..bytes.len())
            .filter_map(|at| Some((at, Self::start(&bytes[at..])?)))
            .flat_map(|(at, start)| {
                self.by_start[start]
                    .iter()
                    .filter(move |&&index| bytes[at..].starts_with(self.values[index].1.as_bytes()))
            })
            .copied()
            .filter(|&index| self.values[index].0 != user_id)
            .collect();
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|index| self.values[index].1.as_str())
            .collect()
    }
}

/// A small deterministic generator (SplitMix64), so the scenario is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn digits(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }

    fn letters(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| char::from(b'A' + self.below(26) as u8))
            .collect()
    }
}

/// Hands out generated values, none equal to or contained in another, so finding one in a
/// prompt can only mean its own message (or memory of it) got there.
struct Values {
    rng: Rng,
    taken: Vec<String>,
}

impl Values {
    fn unique(&mut self, mut make: impl FnMut(&mut Rng) -> String) -> String {
        loop {
            let candidate = make(&mut self.rng);
            let clashes = self
                .taken
                .iter()
                .any(|taken| taken.contains(&candidate) || candidate.contains(taken.as_str()));
            if !clashes {
                self.taken.push(candidate.clone());
                return candidate;
            }
        }
    }

    /// A capitalised made-up name of `syllables` syllables and a closing consonant.
    fn name(&mut self, cyrillic: bool, syllables: usize) -> String {
        self.unique(|rng| invent(rng, cyrillic, syllables, true))
    }

    /// A nickname: three open syllables, e.g. "Kamira".
    fn nickname(&mut self, cyrillic: bool) -> String {
        self.unique(|rng| invent(rng, cyrillic, 3, false))
    }

    fn topic_referent(&mut self, kind: TopicKind, language: &Language) -> String {
        match kind {
            TopicKind::Parcel => self
                .unique(|rng| format!("1Z{}{}{}", rng.letters(2), rng.digits(2), rng.digits(10))),
            TopicKind::Order => self.unique(|rng| format!("{}{}", 3 + rng.below(7), rng.digits(7))),
            TopicKind::Flight => self.unique(|rng| {
                format!(
                    "{}{}{}{}",
                    rng.letters(2),
                    rng.digits(1),
                    rng.letters(2),
                    rng.digits(1)
                )
            }),
            TopicKind::Phone => self.unique(|rng| {
                language
                    .phone
                    .chars()
                    .map(|c| {
                        if c == '#' {
                            char::from(b'0' + rng.below(10) as u8)
                        } else {
                            c
                        }
                    })
                    .collect()
            }),
            TopicKind::Doctor => self.name(language.cyrillic, 3),
            TopicKind::Wifi => self.unique(|rng| {
                const WORDS: &[&str] = &[
                    "amber", "birch", "cobalt", "delta", "ember", "fjord", "gravel", "harbor",
                    "indigo", "juniper", "kestrel", "lumen", "meadow", "nectar", "orbit", "pebble",
                    "quartz", "rowan", "sable", "tundra",
                ];
                format!("{}-{}-{}", rng.pick(WORDS), rng.pick(WORDS), rng.digits(4))
            }),
            TopicKind::Address => self.unique(|rng| {
                let name = invent(rng, language.cyrillic, 2, true);
                let number = 3 + rng.below(90);
                language
                    .address
                    .replace("{name}", &name)
                    .replace("{number}", &number.to_string())
            }),
        }
    }

    fn secret_referent(&mut self, kind: SecretKind) -> String {
        match kind {
            SecretKind::Salary => {
                self.unique(|rng| format!("{}{}", 4 + rng.below(6), rng.digits(4)))
            }
            SecretKind::DoorCode => {
                self.unique(|rng| format!("{}{}{}", rng.letters(1), rng.digits(4), rng.letters(1)))
            }
            SecretKind::Loan => {
                self.unique(|rng| format!("{}{}50", 1 + rng.below(3), rng.digits(2)))
            }
        }
    }
}

fn invent(rng: &mut Rng, cyrillic: bool, syllables: usize, closed: bool) -> String {
    const LATIN: &[&str] = &[
        "ba", "ka", "lo", "mi", "ne", "ri", "so", "ta", "vu", "do", "fe", "gi", "ha", "jo", "ku",
        "le", "mo", "nu", "pi", "ra", "se", "ti", "vo", "za",
    ];
    const CYRILLIC: &[&str] = &[
        "ба", "ка", "ло", "ми", "не", "ри", "со", "та", "ву", "до", "фе", "ги", "жо", "ку", "ле",
        "мо", "ну", "пи", "ра", "се", "ти", "во", "за",
    ];
    const LATIN_ENDS: &[&str] = &["n", "r", "x", "l", "s", "k", "th"];
    const CYRILLIC_ENDS: &[&str] = &["н", "р", "в", "л", "с", "к"];
    let (parts, ends) = if cyrillic {
        (CYRILLIC, CYRILLIC_ENDS)
    } else {
        (LATIN, LATIN_ENDS)
    };
    let mut name: String = (0..syllables).map(|_| rng.pick(parts)).collect();
    if closed {
        name.push_str(rng.pick(ends));
    }
    capitalise(&name)
}

fn capitalise(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// One planted fact: the filled templates and its referent.
struct Fact {
    plant: String,
    follow_up: String,
    recall: [String; 3],
    referent: String,
    planted_day: i64,
}

/// What one person says about themselves and their private fact.
struct Person {
    user_id: i64,
    company: String,
    secret_kind: SecretKind,
    secret_referent: String,
}

/// Writes one person's turns, session by session.
struct Script<'a> {
    language: &'a Language,
    rng: Rng,
    turns: Vec<Turn>,
    key: ConversationKey,
    cursor_ms: i64,
    last_by_key: HashMap<ConversationKey, i64>,
    filler_next: usize,
    /// Sessions started so far, in any chat.
    sessions: usize,
}

impl Script<'_> {
    /// Starts a session of `key` at `at_ms`, which must be after the key's idle timeout.
    fn session(&mut self, key: ConversationKey, at_ms: i64) {
        if let Some(last) = self.last_by_key.get(&key) {
            assert!(
                at_ms - last > SESSION_IDLE_MS,
                "a planned session break is too short for {key:?}"
            );
        }
        self.key = key;
        self.cursor_ms = at_ms;
        self.sessions += 1;
    }

    /// Starts a session after a break of `minutes`.
    fn session_after(&mut self, key: ConversationKey, minutes: i64) {
        let last = self
            .last_by_key
            .get(&key)
            .copied()
            .unwrap_or(self.cursor_ms);
        self.session(key, last + minutes * MINUTE_MS);
    }

    fn say(&mut self, text: String, probe: Option<Probe>) {
        if let Some(probe) = &probe {
            assert!(
                !text.contains(&probe.referent),
                "a probe must not contain its referent: {text}"
            );
        }
        self.turns.push(Turn {
            at_ms: self.cursor_ms,
            key: self.key,
            text,
            probe,
        });
        self.last_by_key.insert(self.key, self.cursor_ms);
        // The person reads the reply and types the next message: one to four minutes.
        self.cursor_ms += (1 + self.rng.below(4) as i64) * MINUTE_MS;
    }

    fn filler(&mut self, count: usize) {
        for _ in 0..count {
            let filler = self.language.filler;
            let text = filler[self.filler_next % filler.len()].to_owned();
            self.filler_next += 1 + self.rng.below(3);
            self.say(text, None);
        }
    }

    fn greet(&mut self) {
        let text = self.rng.pick(self.language.greetings).to_owned();
        self.say(text, None);
    }

    fn probe(&mut self, text: String, kind: Kind, referent: &str) {
        let probe = Probe {
            kind,
            language: self.language.code,
            referent: referent.to_owned(),
            stale: None,
        };
        self.say(text, Some(probe));
    }

    fn day(&self) -> i64 {
        day_of(self.cursor_ms)
    }

    fn plant(&mut self, fact: &mut Fact) {
        fact.planted_day = self.day();
        self.say(fact.plant.clone(), None);
    }

    fn same_session(&mut self, fact: &Fact) {
        self.probe(fact.follow_up.clone(), Kind::SameSession, &fact.referent);
    }

    fn after_break(&mut self, fact: &Fact, filler: usize) {
        self.filler(filler);
        assert_eq!(
            self.day(),
            fact.planted_day,
            "an after-break probe is on the same day"
        );
        self.probe(
            fact.recall[0].clone(),
            Kind::SameDayAfterBreak,
            &fact.referent,
        );
    }

    fn after_days(&mut self, fact: &Fact, variant: usize) {
        let days = self.day() - fact.planted_day;
        assert!(
            (2..=6).contains(&days),
            "after-days probe {days} days later"
        );
        self.probe(
            fact.recall[variant].clone(),
            Kind::AfterDays,
            &fact.referent,
        );
    }

    fn state_preference(&mut self, statement: &str) -> i64 {
        self.say(statement.to_owned(), None);
        self.day()
    }

    fn probe_preference(&mut self, referent: &str, stated_day: i64) {
        assert!(
            self.day() - stated_day >= 3,
            "a preference is probed 3 days later or more"
        );
        let text = self.rng.pick(self.language.preference_probes).to_owned();
        self.probe(text, Kind::Preference, referent);
    }
}

fn at(day: i64, hour: i64, minute: i64) -> i64 {
    MIDNIGHT_MS + day * DAY_MS + hour * HOUR_MS + minute * MINUTE_MS
}

/// The whole evaluation: five languages, four people each.
pub fn generate() -> Scenario {
    let mut values = Values {
        rng: Rng(0x7e1e_3e3e),
        taken: Vec::new(),
    };
    let mut turns = Vec::new();
    let mut private_values: HashMap<i64, Vec<String>> = HashMap::new();
    let mut people_count = 0;
    for (language_index, language) in LANGUAGES.iter().enumerate() {
        let group_chat = -100_000 - language_index as i64;
        let people: Vec<Person> = (0..PEOPLE_PER_LANGUAGE)
            .map(|index| {
                let secret_kind = SECRET_KINDS[index % SECRET_KINDS.len()];
                Person {
                    user_id: 1_000 + 10 * language_index as i64 + index as i64,
                    company: values.name(false, 2),
                    secret_kind,
                    secret_referent: values.secret_referent(secret_kind),
                }
            })
            .collect();
        for (index, person) in people.iter().enumerate() {
            let target = &people[(index + 1) % people.len()];
            let global_index = language_index * PEOPLE_PER_LANGUAGE + index;
            let (person_turns, facts) = script_person(
                language,
                &mut values,
                person,
                target,
                group_chat,
                global_index,
            );
            turns.extend(person_turns);
            let told = private_values.entry(person.user_id).or_default();
            told.extend(facts);
            told.push(person.secret_referent.clone());
            people_count += 1;
        }
    }
    // After everyone else, so that their generated values stay the same.
    for (language_index, language) in LANGUAGES.iter().enumerate() {
        let user_id = 1_000 + 10 * language_index as i64 + meaning::USER_INDEX;
        let (person_turns, told) =
            meaning::script_person(language, &mut values, user_id, language_index);
        turns.extend(person_turns);
        private_values.insert(user_id, told);
        people_count += 1;
    }
    // Stable: turns of one person at the same minute keep their order.
    turns.sort_by_key(|turn| turn.at_ms);
    Scenario {
        turns,
        private_values: PrivateValues::new(private_values),
        people: people_count,
        languages: LANGUAGES.iter().map(|language| language.code).collect(),
    }
}

/// One person's ten days; returns the turns and the referents of the facts they planted.
fn script_person(
    language: &Language,
    values: &mut Values,
    person: &Person,
    target: &Person,
    group_chat: i64,
    global_index: usize,
) -> (Vec<Turn>, Vec<String>) {
    let private = ConversationKey::new(ChatId(person.user_id), UserId(person.user_id));
    let group = ConversationKey::new(ChatId(group_chat), UserId(person.user_id));
    let nick = values.nickname(language.cyrillic);
    let fill = |template: &str, referent: &str| -> String {
        template
            .replace("{company}", &person.company)
            .replace("{nick}", &nick)
            .replace("{ref}", referent)
    };

    // Six of the seven topics, a different one left out for each person.
    let mut facts: Vec<Fact> = TOPIC_KINDS
        .iter()
        .enumerate()
        .filter(|(topic_index, _)| *topic_index != global_index % TOPIC_KINDS.len())
        .map(|(topic_index, kind)| {
            let topic = &language.topics[topic_index];
            let referent = values.topic_referent(*kind, language);
            let brand = values.name(false, 2);
            let place = values.name(language.cyrillic, 2);
            let city = language.cities[(global_index + topic_index) % language.cities.len()];
            let person_name = language.people[(global_index + topic_index) % language.people.len()];
            let expand = |template: &str| {
                template
                    .replace("{brand}", &brand)
                    .replace("{place}", &place)
                    .replace("{city}", city)
                    .replace("{person}", person_name)
                    .replace("{ref}", &referent)
            };
            Fact {
                plant: expand(topic.plant),
                follow_up: expand(topic.follow_up),
                recall: topic.recall.map(expand),
                referent: referent.clone(),
                planted_day: 0,
            }
        })
        .collect();
    // Each person states three of the four preferences.
    let preferences: Vec<(String, String)> = (0..3)
        .map(|offset| {
            let preference = &language.preferences[(global_index + offset) % 4];
            (
                fill(preference.statement, ""),
                fill(preference.referent, ""),
            )
        })
        .collect();
    let secret = &language.secrets[SECRET_KINDS
        .iter()
        .position(|kind| *kind == person.secret_kind)
        .expect("a known secret kind")];
    let secret_statement = fill(secret.statement, &person.secret_referent);
    let target_secret = &language.secrets[SECRET_KINDS
        .iter()
        .position(|kind| *kind == target.secret_kind)
        .expect("a known secret kind")];
    let isolation_probe =
        |variant: usize| target_secret.probes[variant].replace("{company}", &target.company);

    let mut script = Script {
        language,
        rng: Rng(0xE7A1 + global_index as u64),
        turns: Vec::new(),
        key: private,
        cursor_ms: 0,
        last_by_key: HashMap::new(),
        filler_next: global_index * 7,
        sessions: 0,
    };
    let jitter = (global_index as i64 * 7) % 40;
    let filler_before =
        |k: usize| FILLER_BEFORE_PROBE[(global_index * 5 + k) % FILLER_BEFORE_PROBE.len()];
    let break_minutes = |k: i64| 35 + (global_index as i64 * 37 + k * 53) % 120;
    let [f0, f1, f2, f3, f4, f5] = &mut facts[..] else {
        unreachable!("six facts per person")
    };

    // Day 0: morning, a session after a break, the group in the evening, private again.
    script.session(private, at(0, 8, jitter));
    script.greet();
    let preference0_day = script.state_preference(&preferences[0].0);
    script.plant(f0);
    script.filler(1 + global_index % 2);
    script.same_session(f0);
    script.plant(f1);
    script.filler(1);
    script.same_session(f1);
    script.filler(2);

    script.session_after(private, break_minutes(0));
    script.after_break(f0, filler_before(0));
    script.plant(f2);
    script.filler(1);
    script.same_session(f2);
    script.after_break(f1, filler_before(1));
    script.filler(2);

    script.session(group, at(0, 18, jitter));
    script.greet();
    script.say(secret_statement.clone(), None);
    script.filler(2);

    let evening = (script.last_by_key[&private] + 40 * MINUTE_MS).max(at(0, 19, jitter));
    script.session(private, evening);
    let preference1_day = script.state_preference(&preferences[1].0);
    script.say(secret_statement, None);
    script.after_break(f2, filler_before(2));
    script.filler(2);

    script.session(group, at(0, 22, jitter / 2));
    script.filler(1);
    script.probe(isolation_probe(0), Kind::Isolation, &target.secret_referent);
    script.filler(1);

    // Day 1: two more facts, probed after a break.
    script.session(private, at(1, 9, jitter));
    script.greet();
    script.plant(f3);
    script.filler(1);
    script.same_session(f3);
    script.plant(f4);
    script.filler(2);
    script.same_session(f4);
    script.filler(3);
    script.session_after(private, break_minutes(1));
    script.after_break(f3, filler_before(3));
    script.after_break(f4, filler_before(4));
    script.filler(2);

    // Days 2 to 9: back-references days later, preferences, isolation.
    script.session(private, at(2, 8, jitter));
    script.greet();
    script.after_days(f0, 1);
    script.plant(f5);
    script.filler(1);
    script.same_session(f5);
    let preference2_day = script.state_preference(&preferences[2].0);
    script.filler(3);
    script.session(private, at(2, 19, jitter));
    script.filler(2);
    script.after_days(f1, 1);
    script.filler(2);

    script.session(private, at(3, 8, jitter));
    script.filler(1);
    script.probe_preference(&preferences[0].1, preference0_day);
    script.filler(2);
    script.after_days(f2, 1);
    script.filler(3);
    script.session(private, at(3, 19, jitter));
    script.filler(2);
    script.after_days(f3, 1);
    script.filler(2);

    script.session(private, at(4, 9, jitter));
    script.filler(2);
    script.after_days(f4, 1);
    script.probe_preference(&preferences[1].1, preference1_day);
    script.filler(2);
    script.session(group, at(4, 12, jitter));
    script.filler(1);
    script.probe(isolation_probe(1), Kind::Isolation, &target.secret_referent);
    script.filler(1);

    script.session(private, at(5, 9, jitter));
    script.filler(1);
    script.after_days(f1, 2);
    script.probe(isolation_probe(2), Kind::Isolation, &target.secret_referent);
    script.probe_preference(&preferences[2].1, preference2_day);
    script.after_days(f5, 1);
    script.filler(3);

    script.session(private, at(6, 9, jitter));
    script.filler(2);
    script.after_days(f0, 2);
    script.filler(1);
    script.after_days(f2, 2);
    script.after_days(f4, 2);
    script.filler(2);

    script.session(private, at(7, 9, jitter));
    script.filler(3);
    script.after_days(f3, 2);
    script.filler(1);

    script.session(private, at(8, 9, jitter));
    script.filler(2);
    script.probe_preference(&preferences[0].1, preference0_day);
    script.after_days(f5, 2);
    script.filler(3);
    script.session(group, at(8, 12, jitter));
    script.probe(isolation_probe(2), Kind::Isolation, &target.secret_referent);
    script.filler(1);

    script.session(private, at(9, 9, jitter));
    script.filler(2);
    script.probe_preference(&preferences[1].1, preference1_day);
    script.probe_preference(&preferences[2].1, preference2_day);
    script.filler(2);

    let referents = facts.into_iter().map(|fact| fact.referent).collect();
    (script.turns, referents)
}

/// The simulated day (0 to 9) of a time.
pub fn day_of(at_ms: i64) -> i64 {
    (at_ms - MIDNIGHT_MS).div_euclid(DAY_MS)
}

/// "day 3 09:12" for a simulated time, for listing misses.
pub fn format_day(at_ms: i64) -> String {
    let minutes = (at_ms - MIDNIGHT_MS).rem_euclid(DAY_MS) / MINUTE_MS;
    format!(
        "day {} {:02}:{:02}",
        day_of(at_ms),
        minutes / 60,
        minutes % 60
    )
}

#[test]
fn private_values_are_found_wherever_they_occur_and_only_for_others() {
    let values = PrivateValues::new(HashMap::from([
        (1, vec!["+44 7336 639897".to_owned(), "Nulekar".to_owned()]),
        (2, vec!["улица Мижос, 34".to_owned()]),
    ]));
    let text = "Dr. Nulekar (улица Мижос, 34), call +44 7336 639897; Nulekar again";

    assert_eq!(values.of_others_in(3, text).len(), 3);
    assert_eq!(values.of_others_in(2, text), ["+44 7336 639897", "Nulekar"]);
    assert!(values.of_others_in(3, "+44 7336 63989 Nulekr").is_empty());
}
