//! One relevance scale for everything memory can put into a prompt: notes, the sentences of
//! session summaries and older messages are ranked together by how well they answer the new
//! message, not by their kind.
//!
//! Two signals rank the pool of candidates. By words: BM25 over the pool itself, with the same
//! search terms recall sends to the full-text index ([`crate::memory::terms::recall_terms`]),
//! so that a summary sentence or a note that shares the question's words ranks beside the
//! message that does. By meaning: the cosine similarity of each candidate's stored vector to the
//! new message's, where the model gave one. The two rankings are fused by reciprocal rank
//! ([`fuse_rankings`]): only ranks count, never a model's raw cosine, whose range differs from
//! one model to the next (0.7–0.9 for E5, 0–0.8 for MiniLM). Which candidates may enter the
//! ranking by meaning at all is decided before, against a floor calibrated for the model in use
//! ([`crate::memory::meaning`]).
//!
//! Summaries are ranked by sentence: a long summary gives the budget only its sentences that
//! answer the question, instead of crowding out the one message that does.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use crate::storage::SearchTerm;

/// BM25's term saturation: the second occurrence of a word adds less than the first.
const BM25_K1: f64 = 1.2;
/// BM25's length normalisation: a long text does not win by being long.
const BM25_B: f64 = 0.75;

/// The constant of reciprocal rank fusion: a candidate's score is the sum of `1 / (K + rank)`
/// over the rankings it appears in. The method's authors use 60, for rankings of a thousand
/// documents; a prompt holds a few dozen candidates, and at 2 the first places of each ranking
/// count clearly more than the tenth (measured on LoCoMo, docs/PERFORMANCE.md: the turn that
/// answers is usually near the top of one ranking, rarely high in all), while a candidate both
/// rankings place well still beats one that only one places first.
pub const FUSION_K: f64 = 2.0;

/// The words of lowercased `text` as the lexical scoring sees them: runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

fn term_matches(term: &SearchTerm, word: &str) -> bool {
    match term {
        SearchTerm::Word(term) => word == term,
        SearchTerm::Prefix(prefix) => word.starts_with(prefix.as_str()),
    }
}

/// BM25 score of every text of `documents` for `terms`, with the statistics of `documents`
/// themselves (how many of them hold a term, their average length). Zero for a text sharing no
/// term; the scores of one call compare with each other, not with another call's.
pub fn lexical_scores(terms: &[SearchTerm], documents: &[&str]) -> Vec<f64> {
    if terms.is_empty() || documents.is_empty() {
        return vec![0.0; documents.len()];
    }
    let lowercased: Vec<String> = documents.iter().map(|text| text.to_lowercase()).collect();
    let documents: Vec<Vec<&str>> = lowercased
        .iter()
        .map(|text| words(text).collect())
        .collect();
    let counts: Vec<Vec<usize>> = documents
        .iter()
        .map(|document| {
            terms
                .iter()
                .map(|term| {
                    document
                        .iter()
                        .filter(|word| term_matches(term, word))
                        .count()
                })
                .collect()
        })
        .collect();
    let total = documents.len() as f64;
    let average_length = (documents.iter().map(Vec::len).sum::<usize>() as f64 / total).max(1.0);
    let inverse_frequencies: Vec<f64> = (0..terms.len())
        .map(|term| {
            let holding = counts.iter().filter(|counts| counts[term] > 0).count() as f64;
            ((total - holding + 0.5) / (holding + 0.5) + 1.0).ln()
        })
        .collect();
    documents
        .iter()
        .zip(&counts)
        .map(|(document, counts)| {
            let length_norm = 1.0 - BM25_B + BM25_B * document.len() as f64 / average_length;
            counts
                .iter()
                .zip(&inverse_frequencies)
                .filter(|(count, _)| **count > 0)
                .map(|(count, idf)| {
                    let count = *count as f64;
                    idf * count * (BM25_K1 + 1.0) / (count + BM25_K1 * length_norm)
                })
                .sum()
        })
        .collect()
}

/// The indexes of `scores` above zero, best first (on equal scores the later index first: the
/// candidates are listed oldest first, and the newer of two equal ones is more likely current).
pub fn ranking(scores: &[f64]) -> Vec<usize> {
    let mut ranked: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    ranked.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
    ranked
}

/// Reciprocal rank fusion of rankings of candidate indexes, each a list of places (best
/// first) holding one candidate or several that share the place: the fused score of each of
/// `candidates` candidates, zero for one no ranking holds.
pub fn fuse_rankings(candidates: usize, rankings: &[&[Vec<usize>]]) -> Vec<f64> {
    let mut scores = vec![0.0; candidates];
    for ranking in rankings {
        for (rank, place) in ranking.iter().enumerate() {
            for &candidate in place {
                if let Some(score) = scores.get_mut(candidate) {
                    *score += 1.0 / (FUSION_K + rank as f64 + 1.0);
                }
            }
        }
    }
    scores
}

/// A ranking of single candidates as places.
pub fn places(ranking: &[usize]) -> Vec<Vec<usize>> {
    ranking.iter().map(|candidate| vec![*candidate]).collect()
}

/// Two texts whose words overlap at least this much (shared words over all their words) say the
/// same thing for a prompt: "Ayer vi un documental sobre ballenas" and "Ayer vi un documental
/// sobre ballenas, ¡increíble!" take one place.
const NEAR_DUPLICATE_OVERLAP: f64 = 0.75;

/// The distinct words of a text, lowercased, as near-duplicates are compared: each word's hash,
/// sorted, so that two sets are compared by one merge without allocating (recall compares
/// every ranked line with those above it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordSet(Vec<u64>);

impl WordSet {
    fn len(&self) -> usize {
        self.0.len()
    }

    /// How many words the two sets share.
    fn shared(&self, other: &WordSet) -> usize {
        let (mut a, mut b) = (self.0.iter().peekable(), other.0.iter().peekable());
        let mut shared = 0;
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            match x.cmp(y) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    a.next();
                    b.next();
                }
            }
        }
        shared
    }
}

/// The distinct words of `text`, lowercased, as near-duplicates are compared.
pub fn word_set(text: &str) -> WordSet {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let mut hashes: Vec<u64> = words(&text.to_lowercase())
        .map(|word| hasher.hash_one(word))
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    WordSet(hashes)
}

/// A text of at least this many words whose words are nearly all in another text (see
/// [`CONTAINED_SHARE`]) adds nothing beside it: a summary sentence that quotes the line.
const CONTAINED_FROM_WORDS: usize = 5;
const CONTAINED_SHARE: f64 = 0.9;

/// Whether two texts, as [`word_set`]s, say the same thing for a prompt: the same words, or
/// nearly (see [`NEAR_DUPLICATE_OVERLAP`]), or the shorter one's words within the longer one's
/// ("On Monday the person said: Yesterday I watched a documentary about whales" holds
/// "Yesterday I watched a documentary about whales").
pub fn near_duplicates(a: &WordSet, b: &WordSet) -> bool {
    let shared = a.shared(b);
    let all = a.len() + b.len() - shared;
    let smaller = a.len().min(b.len());
    let overlaps = all > 0 && shared as f64 / all as f64 >= NEAR_DUPLICATE_OVERLAP;
    let contained =
        smaller >= CONTAINED_FROM_WORDS && shared as f64 / smaller as f64 >= CONTAINED_SHARE;
    overlaps || contained
}

/// Word starts that announce a change of a fact ("we moved", "my new address", "теперь",
/// "nicht mehr"), in the languages the bot speaks and Italian and Portuguese.
const CHANGE_MARKERS: &[&str] = &[
    "moved",
    "new ",
    "now ",
    "no longer",
    "umgezogen",
    "neue",
    "neuer ",
    "neues ",
    "neu ",
    "inzwischen",
    "nicht mehr",
    "mudado",
    "mudamos",
    "mudé",
    "nueva",
    "nuevo",
    "ya no",
    "déménag",
    "nouvelle",
    "nouveau",
    "ne plus",
    "n'est plus",
    "переех",
    "новый",
    "новая",
    "новое",
    "новые",
    "новую",
    "теперь",
    "больше не",
    "trasferit",
    "nuovo",
    "nuova",
    "non più",
    "mudei",
    "novo ",
    "nova ",
    "não mais",
];

/// Whether `text` says that something changed: a message that does must not lose to the old
/// statement it replaces, which often shares more words with the question ("Where do I live
/// now?" and "I live at …") while the new one says "we moved, our new address is …".
pub fn announces_change(text: &str) -> bool {
    // One pass for all the markers (recall asks this of every candidate of every turn).
    static MARKERS: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasick::new(CHANGE_MARKERS).expect("the change markers are plain text")
    });
    // A marker at the end of the text may end in the space it would be followed by.
    let lower = text.to_lowercase() + " ";
    MARKERS.find_overlapping_iter(&lower).any(|found| {
        lower[..found.start()]
            .chars()
            .next_back()
            .is_none_or(|before| !before.is_alphanumeric())
    })
}

/// The sentences of a summary, each trimmed: split after `.`, `!`, `?`, `…` or `;` followed by
/// white space, and at line breaks, never inside a number ("4.5") or an abbreviation without a
/// following space. A text without such a break is one sentence.
pub fn sentences(text: &str) -> Vec<String> {
    let mut sentences = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            push_sentence(&mut sentences, &mut current);
            continue;
        }
        current.push(c);
        let ends = matches!(c, '.' | '!' | '?' | '…' | ';' | '。' | '！' | '？');
        if ends && chars.peek().is_none_or(|next| next.is_whitespace()) {
            push_sentence(&mut sentences, &mut current);
        }
    }
    push_sentence(&mut sentences, &mut current);
    sentences
}

fn push_sentence(sentences: &mut Vec<String>, current: &mut String) {
    let sentence = current.trim();
    if !sentence.is_empty() {
        sentences.push(sentence.to_owned());
    }
    current.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str) -> SearchTerm {
        SearchTerm::Word(text.to_owned())
    }

    #[test]
    fn a_text_sharing_the_rarer_word_ranks_first() {
        let documents = [
            "We talked about the weather and the parcel.",
            "The parcel from Chemitek has tracking number 4711.",
            "Nothing in common here.",
            "Another parcel arrived.",
        ];
        let scores = lexical_scores(&[word("parcel"), word("chemitek")], &documents);
        assert_eq!(ranking(&scores), [1, 3, 0]);
        assert_eq!(scores[2], 0.0);
    }

    #[test]
    fn prefixes_match_inflected_words() {
        let scores = lexical_scores(
            &[SearchTerm::Prefix("hautarz".to_owned())],
            &["Termin beim Hautarzt am Montag", "Zahnarzt"],
        );
        assert!(scores[0] > 0.0 && scores[1] == 0.0, "{scores:?}");
    }

    #[test]
    fn fused_rankings_favour_candidates_both_place_well() {
        let scores = fuse_rankings(4, &[&places(&[1, 2, 3]), &places(&[2, 0])]);
        assert_eq!(ranking(&scores), [2, 1, 0, 3]);
        let shared = fuse_rankings(3, &[&[vec![0, 1], vec![2]]]);
        assert_eq!(shared[0], shared[1]);
        assert!(shared[1] > shared[2]);
    }

    #[test]
    fn small_variations_of_a_line_are_near_duplicates_and_other_lines_are_not() {
        let line = word_set("Ayer vi un documental sobre ballenas…");
        let variation = word_set("ayer vi un documental sobre ballenas, ¡increíble!");
        let another = word_set("Ayer vi un documental sobre Leipzig y sus calles");
        assert!(near_duplicates(&line, &variation));
        assert!(near_duplicates(
            &line,
            &word_set("AYER vi un documental sobre ballenas!!")
        ));
        assert!(!near_duplicates(&line, &another));
        assert!(!near_duplicates(&word_set(""), &word_set("")));
        let quoted = word_set(
            "On 2026-03-16 the person said: Yesterday I watched a documentary about whales - they sing",
        );
        assert!(near_duplicates(
            &word_set("Yesterday I watched a documentary about whales…"),
            &quoted
        ));
        assert!(!near_duplicates(
            &word_set("My address is Old Road 12"),
            &word_set("My new address is New Lane 3, we moved")
        ));
    }

    #[test]
    fn changes_are_told_from_plain_statements() {
        for text in [
            "Big news: we moved! Our new address is Karl-Heine-Strasse 40.",
            "Большая новость: мы переехали! Наш новый адрес — проспект Мира, 58.",
            "¡Gran noticia: me he mudado! Mi nueva dirección es Calle Mayor 3.",
            "Grande notizia: ci siamo trasferiti!",
            "Ich arbeite nicht mehr bei Chemitek.",
        ] {
            assert!(announces_change(text), "{text}");
        }
        for text in [
            "I live at 12 Old Road for now, right by the tram stop.",
            "Я пока живу на улице Садовая, 14.",
            "Renewal of the passport is due in May.",
        ] {
            assert!(!announces_change(text), "{text}");
        }
    }

    #[test]
    fn summaries_split_into_sentences_but_not_inside_numbers() {
        assert_eq!(
            sentences("Order 4.5 kg shipped.  It arrives Wednesday!\nOpen: refund? yes"),
            [
                "Order 4.5 kg shipped.",
                "It arrives Wednesday!",
                "Open: refund?",
                "yes"
            ]
        );
        assert_eq!(sentences("  "), Vec::<String>::new());
        assert_eq!(sentences("Одна фраза без точки"), ["Одна фраза без точки"]);
    }
}
