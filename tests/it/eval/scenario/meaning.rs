//! The person of each language whose facts need more than shared words to come back
//! (`meaning_templates.rs`): three facts asked days later with their own words and in other
//! words, two facts that change, and in German facts named by a compound and asked by a phrase
//! (or the other way round). They talk in their private chat only, in the morning and in the
//! evening, so that a fact is asked more than a day and more than [`SUMMARY_COUNT`] sessions
//! after it was told: past the raw history and the summaries every prompt carries, only recall
//! can bring it back.

use std::collections::HashMap;

use telemem::memory::recall::search_terms;
use telemem::storage::{ChatId, ConversationKey, UserId};

use super::super::languages::Language;
use super::super::meaning_templates::MeaningTemplates;
use super::{Kind, Probe, Rng, SUMMARY_COUNT, Script, Turn, Values, at};
use crate::support::times::DAY_MS;

/// This person's place among the people of a language (their user id is `1_0L5`).
pub const USER_INDEX: i64 = 5;

/// A value the person told, and when.
struct Told {
    referent: String,
    session: usize,
    at_ms: i64,
}

impl Script<'_> {
    /// Says `template` with `referent` in it.
    fn tell(&mut self, template: &str, referent: &str) -> Told {
        let told = Told {
            referent: referent.to_owned(),
            session: self.sessions,
            at_ms: self.cursor_ms,
        };
        self.say(template.replace("{ref}", referent), None);
        told
    }

    /// Asks for `fact` past the raw history (a day) and the summaries every prompt carries.
    fn ask_long_after(&mut self, text: &str, kind: Kind, fact: &Told) {
        assert!(
            self.sessions - fact.session > SUMMARY_COUNT && self.cursor_ms - fact.at_ms > DAY_MS,
            "{text:?} is asked too soon after its fact"
        );
        self.probe(text.to_owned(), kind, &fact.referent);
    }

    /// Asks for the current value of a fact that changed from `old` to `new`, more than a day
    /// after the change (before, the new value is in the raw history, after the memory block).
    fn ask_current(&mut self, text: &str, old: &Told, new: &Told) {
        assert!(
            old.session < new.session && self.cursor_ms - new.at_ms > DAY_MS,
            "{text:?} is asked too soon after the change"
        );
        let probe = Probe {
            kind: Kind::ChangedFact,
            language: self.language.code,
            referent: new.referent.clone(),
            stale: Some(old.referent.clone()),
        };
        self.say(text.to_owned(), Some(probe));
    }
}

/// Whether `question` has a content word (as recall by words picks them) with the same first
/// four letters as one of `fact`'s.
fn shares_a_word(question: &str, fact: &str) -> bool {
    let stem = |word: &str| word.chars().take(4).collect::<String>();
    let fact_terms = search_terms(fact);
    search_terms(question).iter().any(|asked| {
        fact_terms.iter().any(|told| {
            if asked.chars().count() < 4 || told.chars().count() < 4 {
                asked == told
            } else {
                stem(asked) == stem(told)
            }
        })
    })
}

/// The values this person will tell, in the order of their templates.
struct Facts {
    paraphrased: Vec<String>,
    old: Vec<String>,
    new: Vec<String>,
    compounds: Vec<String>,
}

impl Facts {
    fn generate(language: &Language, values: &mut Values) -> Self {
        let templates = &language.meaning;
        let mut topic = |kind| values.topic_referent(kind, language);
        let paraphrased = templates
            .paraphrased
            .iter()
            .map(|fact| topic(fact.kind))
            .collect();
        let old = templates
            .changes
            .iter()
            .map(|fact| topic(fact.kind))
            .collect();
        let new = templates
            .changes
            .iter()
            .map(|fact| topic(fact.kind))
            .collect();
        let compounds = templates
            .compounds
            .iter()
            .map(|_| values.name(language.cyrillic, 3))
            .collect();
        Self {
            paraphrased,
            old,
            new,
            compounds,
        }
    }

    fn all(&self) -> Vec<String> {
        [&self.paraphrased, &self.old, &self.new, &self.compounds]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }
}

/// This person's ten days; returns the turns and every value they told.
pub fn script_person(
    language: &Language,
    values: &mut Values,
    user_id: i64,
    language_index: usize,
) -> (Vec<Turn>, Vec<String>) {
    let templates = &language.meaning;
    for fact in &templates.paraphrased {
        for question in fact.paraphrases {
            assert!(
                !shares_a_word(question, fact.plant),
                "the paraphrase {question:?} shares a word with {:?}",
                fact.plant
            );
        }
    }
    let facts = Facts::generate(language, values);
    let mut script = Script {
        language,
        rng: Rng(0x5EA7 + language_index as u64),
        turns: Vec::new(),
        key: ConversationKey::new(ChatId(user_id), UserId(user_id)),
        cursor_ms: 0,
        last_by_key: HashMap::new(),
        filler_next: language_index * 11,
        sessions: 0,
    };
    let minute = (language_index as i64 * 11) % 40;
    talk(&mut script, templates, &facts, minute);
    (script.turns, facts.all())
}

/// What the person told on the first two days.
struct Planted {
    /// In the order of the paraphrased templates.
    paraphrased: Vec<Told>,
    /// The first values of the facts that change, in the order of their templates.
    old: Vec<Told>,
    compounds: Vec<Told>,
}

/// The sessions: every fact on the first morning (the compounds over the next sessions), then
/// the questions from day 2 on and the changes on days 3 and 4.
fn talk(script: &mut Script, templates: &MeaningTemplates, facts: &Facts, minute: i64) {
    let planted = tell(script, templates, facts, minute);
    ask(script, templates, facts, &planted, minute);
}

fn open(script: &mut Script, day: i64, hour: i64, minute: i64) {
    let key = script.key;
    script.session(key, at(day, hour, minute));
}

/// Days 0 and 1.
fn tell(script: &mut Script, templates: &MeaningTemplates, facts: &Facts, minute: i64) -> Planted {
    let [address, phone] = &templates.changes;
    open(script, 0, 8, minute);
    script.greet();
    let old_address = script.tell(address.plant_old, &facts.old[0]);
    script.filler(2);
    let mut paraphrased = Vec::new();
    for (fact, value) in templates.paraphrased.iter().zip(&facts.paraphrased) {
        paraphrased.push(script.tell(fact.plant, value));
        script.filler(2);
    }
    let old_phone = script.tell(phone.plant_old, &facts.old[1]);
    script.filler(2);
    let mut compounds = Vec::new();
    for (index, (day, hour)) in [(0, 13), (0, 20), (1, 9), (1, 20)].into_iter().enumerate() {
        open(script, day, hour, minute);
        script.filler(2);
        if let (Some(compound), Some(value)) =
            (templates.compounds.get(index), facts.compounds.get(index))
        {
            compounds.push(script.tell(compound.plant, value));
        }
        script.filler(2);
    }
    Planted {
        paraphrased,
        old: vec![old_address, old_phone],
        compounds,
    }
}

/// Days 2 to 9.
fn ask(
    script: &mut Script,
    templates: &MeaningTemplates,
    facts: &Facts,
    planted: &Planted,
    minute: i64,
) {
    let [address, phone] = &templates.changes;
    let [doctor_asks, plumber_asks, wifi_asks] = &templates.paraphrased;
    let [doctor, plumber, wifi] = &planted.paraphrased[..] else {
        unreachable!("three paraphrased facts")
    };
    let [old_address, old_phone] = &planted.old[..] else {
        unreachable!("two facts that change")
    };
    let ask_compounds = |script: &mut Script, variant: usize| {
        for (compound, fact) in templates.compounds.iter().zip(&planted.compounds) {
            script.ask_long_after(compound.probes[variant], Kind::Compound, fact);
        }
    };

    open(script, 2, 9, minute);
    script.greet();
    script.ask_long_after(doctor_asks.paraphrases[0], Kind::Paraphrase, doctor);
    script.filler(2);
    script.ask_long_after(plumber_asks.keyword, Kind::BeyondSummaries, plumber);
    script.filler(2);
    open(script, 2, 20, minute);
    script.filler(2);
    script.ask_long_after(plumber_asks.paraphrases[0], Kind::Paraphrase, plumber);
    script.ask_long_after(wifi_asks.keyword, Kind::BeyondSummaries, wifi);
    script.filler(2);

    open(script, 3, 9, minute);
    script.greet();
    let new_address = script.tell(address.plant_new, &facts.new[0]);
    script.filler(3);
    open(script, 3, 20, minute);
    script.filler(2);
    script.ask_long_after(wifi_asks.paraphrases[0], Kind::Paraphrase, wifi);
    ask_compounds(script, 0);
    script.filler(2);

    open(script, 4, 9, minute);
    script.filler(2);
    let new_phone = script.tell(phone.plant_new, &facts.new[1]);
    script.filler(2);
    // The move's session is still among the summaries a prompt carries.
    open(script, 4, 20, minute);
    script.filler(2);
    script.ask_current(address.probes[0], old_address, &new_address);
    script.ask_long_after(doctor_asks.keyword, Kind::BeyondSummaries, doctor);
    script.filler(2);

    open(script, 5, 9, minute);
    script.filler(3);
    open(script, 5, 20, minute);
    script.filler(2);
    ask_compounds(script, 1);
    script.filler(1);

    open(script, 6, 9, minute);
    script.greet();
    script.ask_current(phone.probes[0], old_phone, &new_phone);
    script.filler(2);
    script.ask_long_after(doctor_asks.paraphrases[1], Kind::Paraphrase, doctor);
    script.filler(2);
    open(script, 6, 20, minute);
    script.filler(2);
    script.ask_long_after(plumber_asks.paraphrases[1], Kind::Paraphrase, plumber);
    script.filler(2);

    open(script, 7, 9, minute);
    script.filler(2);
    script.ask_long_after(wifi_asks.paraphrases[1], Kind::Paraphrase, wifi);
    script.filler(2);
    open(script, 7, 20, minute);
    script.filler(3);

    open(script, 8, 9, minute);
    script.filler(2);
    script.ask_current(address.probes[1], old_address, &new_address);
    script.filler(2);
    open(script, 8, 20, minute);
    script.filler(3);

    open(script, 9, 9, minute);
    script.filler(2);
    script.ask_current(phone.probes[1], old_phone, &new_phone);
    script.filler(2);
}
