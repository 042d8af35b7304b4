//! Recall: what of this conversation's memory answers the new message, never another user's.
//! It gathers the candidates — the notes, the sentences of the conversation's session
//! summaries, its older messages found by their words (BM25 over the conversation's own
//! messages) and, when an embedding model is configured, by meaning
//! ([`crate::memory::meaning`]), and the raw history — and ranks them on one scale
//! ([`crate::memory::relevance`]): notes, summary sentences and messages compete by how well
//! they answer, not by kind. Older summaries and notes come back by their words as well as by
//! their meaning, so without an embedding model they are still found.
//!
//! The search terms come from the new message's words ([`crate::memory::terms`]); the store
//! quotes them for its own search engine and keeps the search inside this (chat, user), at a
//! cost that grows with this conversation alone.
//!
//! Messages with the same text as a more relevant one, or nearly the same words
//! ([`near_duplicates`]), are left out: people repeat small talk ("ok, thanks", the same
//! anecdote twice), and copies would fill the budget without adding anything.
//!
//! Recall by meaning never fails or holds up a turn: without a vector in time, or when the
//! search by meaning fails, the turn recalls by words alone.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ids::ConversationKey;
use crate::memory::context::{MemoryPool, MemoryRef, NoteLine, SummaryParts};
use crate::memory::meaning::MeaningRecall;
use crate::memory::period::asked_period;
use crate::memory::relevance::{
    FUSION_K, WordSet, announces_change, fuse_rankings, lexical_scores, near_duplicates, places,
    ranking, word_set,
};
use crate::memory::summary::information_score;
pub use crate::memory::terms::{recall_terms, search_terms};
use crate::storage::{NoteRecord, SearchTerm, Store, StoredMessage, SummaryRecord};

/// Summaries read for each turn, the newest: older ones are reached through their messages
/// and their vectors.
pub const OLDER_SUMMARIES_READ: i64 = 60;

/// Older session summaries the search by meaning brings.
const SUMMARIES_BY_MEANING: i64 = 6;

/// Notes the search by meaning brings.
const NOTES_BY_MEANING: i64 = 8;

/// For a question about a period: at most this many of its summaries (the latest), and of the
/// person's messages in its sessions not summarized yet.
const PERIOD_SUMMARIES: i64 = 12;
const PERIOD_MESSAGES: i64 = 40;

/// Candidates read per message returned, so that after dropping repeated texts `limit`
/// distinct messages usually remain.
const CANDIDATES_PER_RESULT: i64 = 3;

/// What recall is asked for one turn.
#[derive(Clone, Copy, Debug)]
pub struct RecallQuery<'a> {
    pub key: ConversationKey,
    /// The new message as written, for the local full-text search.
    pub text: &'a str,
    /// The new message with secrets masked, for the embedding server.
    pub masked_text: &'a str,
    /// When it was written: what "last week" means.
    pub now_ms: i64,
    /// The raw history before the new message, oldest first: its turns compete too.
    pub history: &'a [StoredMessage],
    /// Only messages older than this one (the new message) are searched.
    pub before_id: i64,
    /// At most this many older messages are recalled; 0 searches none.
    pub limit: i64,
    /// Who asks, for the metrics: `turn` or `search`.
    pub path: &'static str,
}

/// What the conversation remembers beyond its messages, as the turn read it.
#[derive(Clone, Debug, Default)]
pub struct Remembered {
    /// Oldest first.
    pub notes: Vec<NoteLine>,
    /// The summaries of the latest sessions; the newest gives every prompt its gist.
    pub recent_summaries: Vec<SummaryRecord>,
    /// The latest [`OLDER_SUMMARIES_READ`] summaries of all time, oldest first, when the turn's
    /// start read them already; `None`: recall reads them.
    pub older_summaries: Option<Vec<SummaryRecord>>,
}

/// The new message's vector and the least similarity that counts for its model.
#[derive(Clone, Debug)]
pub struct QueryVector {
    pub vector: Vec<u8>,
    pub floor: f64,
}

/// The conversation's memory for the new message: every note and recent summary, the older
/// messages recall found, and all of it ranked on one scale.
pub async fn recall(
    store: &Store,
    meaning: Option<&MeaningRecall>,
    query: &RecallQuery<'_>,
    remembered: Remembered,
) -> Result<MemoryPool, sqlx::Error> {
    // A conversation without older messages or summaries has nothing to find by meaning: its
    // turns do not wait for a vector.
    let wants_meaning = query.limit > 0 || !remembered.recent_summaries.is_empty();
    let vector = async {
        let meaning = meaning.filter(|_| wants_meaning)?;
        let vector = meaning.query_vector(query.masked_text, query.path).await?;
        Some(QueryVector {
            vector,
            floor: meaning.similarity_floor(),
        })
    };
    recall_with(store, vector, query, remembered).await
}

/// [`recall`] with the new message's vector from `vector` (which runs beside the search by
/// words), or by words alone when it gives none.
pub async fn recall_with(
    store: &Store,
    vector: impl Future<Output = Option<QueryVector>>,
    query: &RecallQuery<'_>,
    mut remembered: Remembered,
) -> Result<MemoryPool, sqlx::Error> {
    let terms = recall_terms(query.text);
    let candidates = query.limit.saturating_mul(CANDIDATES_PER_RESULT);
    // Each list's neighbours are read as soon as that list is there: those of the hits by
    // meaning while the search by words still runs.
    let by_words = async {
        let found = recall_by_words(store, query, &terms, candidates).await?;
        let around = neighbours(store, query.key, found.iter().take(NEIGHBOURED_HITS)).await?;
        Ok::<_, sqlx::Error>((found, around))
    };
    let read_summaries = remembered.older_summaries.take();
    let older_summaries = async {
        match read_summaries {
            Some(summaries) => Ok(summaries),
            None => {
                store
                    .recent_summaries(query.key, 0, OLDER_SUMMARIES_READ)
                    .await
            }
        }
    };
    let by_meaning = async {
        let found = match vector.await {
            Some(vector) => recall_by_meaning(store, &vector, query, candidates).await,
            None => ByMeaning::default(),
        };
        let hits = found.messages.iter().map(|(message, _)| message);
        let around = neighbours(store, query.key, hits.take(NEIGHBOURED_HITS)).await?;
        Ok::<_, sqlx::Error>((found, around))
    };
    let in_period = recall_period(store, query);
    let (by_words, older_summaries, by_meaning, in_period) =
        tokio::join!(by_words, older_summaries, by_meaning, in_period);
    let (by_words, mut neighbours) = by_words?;
    let (by_meaning, around_by_meaning) = by_meaning?;
    // A hit of both lists keeps its neighbours once.
    let words_hits: HashSet<i64> = neighbours.iter().map(|neighbour| neighbour.of).collect();
    neighbours.extend(
        around_by_meaning
            .into_iter()
            .filter(|neighbour| !words_hits.contains(&neighbour.of)),
    );
    let found = Found {
        by_words,
        older_summaries: older_summaries?,
        by_meaning,
        in_period: in_period?,
        neighbours,
    };
    let history_ids = places_by_id(query.history);
    let mut pool = gather(&found, remembered, &history_ids);
    rank(&mut pool, query, &terms, &found, &history_ids);
    Ok(pool)
}

/// The turns next to the best messages found by words and by meaning: in a dialogue the answer
/// is often the reply to the message that shares the question's words, or the question before
/// it. For each hit, the nearest message before and after it in its session that says something
/// ([`SAYS_SOMETHING_WORDS`]: an "Okay." between them is stepped over), among the messages
/// stored within [`NEIGHBOUR_REACH`] ids of it (a busy bot interleaves other people's messages
/// between a person's, so a neighbour farther away is not looked for).
async fn neighbours<'a>(
    store: &Store,
    key: ConversationKey,
    hits: impl Iterator<Item = &'a StoredMessage>,
) -> Result<Vec<Neighbour>, sqlx::Error> {
    let hits: Vec<&StoredMessage> = hits.collect();
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    let ids: BTreeSet<i64> = hits
        .iter()
        .flat_map(|hit| (1..=NEIGHBOUR_REACH).flat_map(move |d| [hit.id - d, hit.id + d]))
        .collect();
    let ids: Vec<i64> = ids.into_iter().collect();
    let around = store.messages_with_ids(key, &ids).await?;
    let by_id: HashMap<i64, &StoredMessage> = around.iter().map(|m| (m.id, m)).collect();
    let mut neighbours = Vec::new();
    let mut seen = HashSet::new();
    for hit in hits {
        if !seen.insert(hit.id) {
            continue;
        }
        for direction in [-1, 1] {
            let next = (1..=NEIGHBOUR_REACH)
                .filter_map(|distance| by_id.get(&(hit.id + direction * distance)))
                .filter(|message| message.session_id == hit.session_id)
                .find(|message| says_something(&message.content));
            if let Some(message) = next {
                neighbours.push(Neighbour {
                    message: (*message).clone(),
                    of: hit.id,
                });
            }
        }
    }
    Ok(neighbours)
}

/// A message next to one recall found, and that one's id.
#[derive(Debug)]
struct Neighbour {
    message: StoredMessage,
    of: i64,
}

/// A message of fewer words ("Okay.", "Thanks!") adds nothing as a neighbour.
const SAYS_SOMETHING_WORDS: usize = 3;

fn says_something(text: &str) -> bool {
    text.split_whitespace().count() >= SAYS_SOMETHING_WORDS
}

/// The best hits by words and by meaning whose neighbours are read, and how far (in message
/// ids) a neighbour is looked for.
const NEIGHBOURED_HITS: usize = 20;
const NEIGHBOUR_REACH: i64 = 2;

/// A message that announces a change ([`announces_change`]) weighs this much more: the old
/// statement it replaces often shares more words with the question.
const CHANGE_WEIGHT: f64 = 1.5;

/// What of its hit's score a neighbour gets on top of its own: enough to bring the reply to a
/// hit in when it says something itself, not so much that a hit's small-talk neighbours push
/// out other hits.
const NEIGHBOUR_SHARE: f64 = 0.2;

/// What of the summed scores of its session's strong candidates a message gets on top of its
/// own: a session where several messages answer is about the question.
const SESSION_SHARE: f64 = 0.15;

/// A message counts towards its session's sum when its own score is at least what the 12th
/// place of one ranking gives. A session's many weak candidates (small talk that a model finds
/// faintly near everything) say nothing about it, and summed they would lift the whole session
/// above the one message that answers elsewhere.
const SESSION_STRONG_SCORE: f64 = 1.0 / (FUSION_K + 13.0);

/// A summary sentence's score is weighed by this before it competes with messages: a summary
/// is dense with the people's names and the session's topics, so it matches many questions a
/// little and would crowd out the one message that answers. Not for the summaries of a period
/// the question asks about ("what did we talk about last week?"): they are what answers.
const SENTENCE_WEIGHT: f64 = 0.3;

/// Where each message of `messages` is in it, by message id.
fn places_by_id(messages: &[StoredMessage]) -> HashMap<i64, usize> {
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| (message.id, index))
        .collect()
}

/// What the searches found for one turn.
struct Found {
    by_words: Vec<StoredMessage>,
    older_summaries: Vec<SummaryRecord>,
    by_meaning: ByMeaning,
    in_period: InPeriod,
    neighbours: Vec<Neighbour>,
}

/// The summaries and the person's messages of the period the new message asks about ("what did
/// we talk about last week?"), if it names one.
#[derive(Debug, Default)]
struct InPeriod {
    summaries: Vec<SummaryRecord>,
    messages: Vec<StoredMessage>,
}

/// The pool of candidates: every note, the summaries (recent, older, found by meaning or in the
/// asked period) with the latest session's as the gist, and the older messages found, each once.
fn gather(found: &Found, remembered: Remembered, history_ids: &HashMap<i64, usize>) -> MemoryPool {
    let gist = remembered
        .recent_summaries
        .iter()
        .max_by_key(|summary| (summary.session_last_activity_at_ms, summary.session_id))
        .map(|summary| summary.session_id);
    let meaning_summaries = found.by_meaning.summaries.iter().map(|(s, _)| s);
    let mut summaries: Vec<SummaryRecord> = found
        .older_summaries
        .iter()
        .chain(&remembered.recent_summaries)
        .chain(meaning_summaries)
        .chain(&found.in_period.summaries)
        .cloned()
        .collect();
    summaries.sort_by_key(|summary| (summary.session_started_at_ms, summary.session_id));
    summaries.dedup_by_key(|summary| summary.session_id);
    let meaning_messages = found.by_meaning.messages.iter().map(|(m, _)| m);
    let neighbours = found.neighbours.iter().map(|n| &n.message);
    let messages: Vec<StoredMessage> = found
        .by_words
        .iter()
        .chain(meaning_messages)
        .chain(&found.in_period.messages)
        .chain(neighbours)
        .filter(|message| !history_ids.contains_key(&message.id))
        .cloned()
        .collect();
    MemoryPool {
        notes: remembered.notes,
        gist: gist.and_then(|id| summaries.iter().position(|s| s.session_id == id)),
        summaries: summaries.into_iter().map(SummaryParts::new).collect(),
        messages: distinct_texts(messages),
        ..MemoryPool::default()
    }
}

/// [`InPeriod`] for the new message; nothing when it names no period.
async fn recall_period(store: &Store, query: &RecallQuery<'_>) -> Result<InPeriod, sqlx::Error> {
    let Some(period) = asked_period(query.text, query.now_ms) else {
        return Ok(InPeriod::default());
    };
    let (summaries, messages) = tokio::join!(
        store.summaries_between(query.key, period.from_ms, period.to_ms, PERIOD_SUMMARIES),
        store.messages_between(query.key, period.from_ms, period.to_ms, PERIOD_MESSAGES),
    );
    Ok(InPeriod {
        summaries: summaries?,
        messages: messages?,
    })
}

/// Ranks every candidate of `pool` (and the raw history's turns) on one scale, by words, by
/// meaning and, for a question about a period, by belonging to it; and orders the notes by it.
/// Messages found by words or meaning are kept to the query's limit; a period's are not.
fn rank(
    pool: &mut MemoryPool,
    query: &RecallQuery<'_>,
    terms: &[SearchTerm],
    found: &Found,
    history_ids: &HashMap<i64, usize>,
) {
    let candidates = Candidates::of(pool, query.history);
    // Messages rank by words as the full-text search ranked them, with the statistics of the
    // whole conversation; the rest (notes, summary sentences, raw turns) by BM25 among
    // themselves.
    let texts: Vec<Cow<'_, str>> = candidates
        .items
        .iter()
        .map(|item| match item {
            MemoryRef::Message(_) => Cow::Borrowed(""),
            _ => candidate_text(pool, query.history, *item),
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
    let by_words = places(&ranking(&lexical_scores(terms, &texts)));
    let messages_by_words = candidates.ranking_of(&found.by_words, history_ids);
    let by_meaning = candidates.ranking_by_meaning(pool, &found.by_meaning, history_ids);
    let by_time = candidates.ranking_in_period(pool, &found.in_period);
    let mut scores = fuse_rankings(
        candidates.items.len(),
        &[&by_words, &messages_by_words, &by_meaning, &by_time],
    );
    // The summaries of a period asked about are its answer: they keep their whole weight.
    let period_sessions: HashSet<i64> = found
        .in_period
        .summaries
        .iter()
        .map(|summary| summary.session_id)
        .collect();
    for (score, item) in scores.iter_mut().zip(&candidates.items) {
        if let MemoryRef::Sentence { summary, .. } = item
            && !period_sessions.contains(&pool.summaries[*summary].record.session_id)
        {
            *score *= SENTENCE_WEIGHT;
        }
    }
    for (score, item) in scores.iter_mut().zip(&candidates.items) {
        if let MemoryRef::Message(index) = item
            && announces_change(&pool.messages[*index].content)
        {
            *score *= CHANGE_WEIGHT;
        }
    }
    candidates.share_with_neighbours_and_sessions(pool, &found.neighbours, &mut scores);
    let in_period: HashSet<i64> = found.in_period.messages.iter().map(|m| m.id).collect();
    let message_limit = usize::try_from(query.limit).unwrap_or(0);
    let mut messages_ranked = 0;
    let mut ranked_words: Vec<WordSet> = Vec::new();
    pool.ranked = ranking(&scores)
        .into_iter()
        .map(|index| candidates.items[index])
        .filter(|item| {
            let text = match item {
                MemoryRef::Message(index) => {
                    let message = &pool.messages[*index];
                    let counts = !in_period.contains(&message.id);
                    if counts && messages_ranked >= message_limit {
                        return false;
                    }
                    &message.content
                }
                MemoryRef::Sentence { summary, sentence } => {
                    &pool.summaries[*summary].sentences[*sentence]
                }
                _ => return true,
            };
            // A near-copy of a message or summary sentence ranked higher adds nothing but its
            // cost.
            let words = word_set(text);
            if ranked_words
                .iter()
                .any(|kept| near_duplicates(kept, &words))
            {
                return false;
            }
            ranked_words.push(words);
            if let MemoryRef::Message(index) = item
                && !in_period.contains(&pool.messages[*index].id)
            {
                messages_ranked += 1;
            }
            true
        })
        .collect();
    let note_score = |note: usize| {
        candidates
            .index
            .get(&MemoryRef::Note(note))
            .map_or(0.0, |index| scores[*index])
    };
    // Newest first, then (the sort being stable) the most relevant first.
    let mut note_order: Vec<usize> = (0..pool.notes.len()).rev().collect();
    note_order.sort_by(|&a, &b| note_score(b).total_cmp(&note_score(a)));
    pool.note_order = note_order;
}

/// Every item of a pool that can be ranked, in one list, and where each one is in it.
struct Candidates {
    items: Vec<MemoryRef>,
    index: HashMap<MemoryRef, usize>,
    /// Where each older message of the pool is in `pool.messages`, by message id.
    message_places: HashMap<i64, usize>,
}

impl Candidates {
    fn of(pool: &MemoryPool, history: &[StoredMessage]) -> Self {
        let notes = (0..pool.notes.len()).map(MemoryRef::Note);
        let sentences = pool.sentence_refs();
        let messages = (0..pool.messages.len()).map(MemoryRef::Message);
        let history = (0..history.len()).map(MemoryRef::History);
        let items: Vec<MemoryRef> = notes
            .chain(sentences)
            .chain(messages)
            .chain(history)
            .collect();
        let index = items
            .iter()
            .enumerate()
            .map(|(i, item)| (*item, i))
            .collect();
        Self {
            items,
            index,
            message_places: places_by_id(&pool.messages),
        }
    }

    /// The candidate index of the message with id `id`: an older message of the pool, or a raw
    /// turn.
    fn message_place(&self, history_ids: &HashMap<i64, usize>, id: i64) -> Option<usize> {
        let item = match history_ids.get(&id) {
            Some(index) => MemoryRef::History(*index),
            None => MemoryRef::Message(*self.message_places.get(&id)?),
        };
        self.index.get(&item).copied()
    }

    /// `messages`, in their order, as candidate places.
    fn ranking_of(
        &self,
        messages: &[StoredMessage],
        history_ids: &HashMap<i64, usize>,
    ) -> Vec<Vec<usize>> {
        messages
            .iter()
            .filter_map(|message| self.message_place(history_ids, message.id))
            .map(|place| vec![place])
            .collect()
    }

    /// Adds to each neighbour [`NEIGHBOUR_SHARE`] of its hit's score, and to each older
    /// message [`SESSION_SHARE`] of the scores of its session's strong older messages
    /// ([`SESSION_STRONG_SCORE`]).
    fn share_with_neighbours_and_sessions(
        &self,
        pool: &MemoryPool,
        neighbours: &[Neighbour],
        scores: &mut [f64],
    ) {
        let own = scores.to_vec();
        // Neighbours are older messages, never raw turns (gathering leaves those out).
        let no_history = HashMap::new();
        for neighbour in neighbours {
            let place = |id| self.message_place(&no_history, id);
            if let (Some(at), Some(hit)) = (place(neighbour.message.id), place(neighbour.of)) {
                scores[at] += NEIGHBOUR_SHARE * own[hit];
            }
        }
        let mut sessions: HashMap<i64, f64> = HashMap::new();
        let messages: Vec<(usize, i64)> = pool
            .messages
            .iter()
            .enumerate()
            .filter_map(|(index, message)| {
                let place = *self.index.get(&MemoryRef::Message(index))?;
                Some((place, message.session_id))
            })
            .collect();
        for (place, session) in &messages {
            if own[*place] >= SESSION_STRONG_SCORE {
                *sessions.entry(*session).or_default() += own[*place];
            }
        }
        for (place, session) in messages {
            scores[place] += SESSION_SHARE * sessions.get(&session).copied().unwrap_or(0.0);
        }
    }

    /// The candidate indexes of the sentences of the pool's summary `summary`, in order.
    fn sentence_places(&self, pool: &MemoryPool, summary: usize) -> Vec<usize> {
        (0..pool.summaries[summary].sentences.len())
            .filter_map(|sentence| {
                self.index
                    .get(&MemoryRef::Sentence { summary, sentence })
                    .copied()
            })
            .collect()
    }

    /// For a question about a period: its summaries, newest first, each one place for all its
    /// sentences, in turn with its messages without a summary, the most informative first.
    fn ranking_in_period(&self, pool: &MemoryPool, in_period: &InPeriod) -> Vec<Vec<usize>> {
        let mut summaries: Vec<Vec<usize>> = pool
            .summaries
            .iter()
            .enumerate()
            .filter(|(_, parts)| {
                in_period
                    .summaries
                    .iter()
                    .any(|summary| summary.session_id == parts.record.session_id)
            })
            .map(|(summary, _)| self.sentence_places(pool, summary))
            .collect();
        summaries.reverse();
        let mut messages: Vec<(usize, usize)> = pool
            .messages
            .iter()
            .enumerate()
            .filter(|(_, message)| in_period.messages.iter().any(|m| m.id == message.id))
            .filter_map(|(index, message)| {
                let candidate = *self.index.get(&MemoryRef::Message(index))?;
                Some((information_score(&message.content), candidate))
            })
            .collect();
        messages.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        let mut messages = messages.into_iter().map(|(_, candidate)| vec![candidate]);
        let mut places = Vec::new();
        for summary in summaries {
            places.push(summary);
            places.extend(messages.next());
        }
        places.extend(messages);
        places
    }

    /// Candidate indexes found by meaning, nearest first; the sentences of a summary found by
    /// meaning share its place (their words decide among them).
    fn ranking_by_meaning(
        &self,
        pool: &MemoryPool,
        by_meaning: &ByMeaning,
        history_ids: &HashMap<i64, usize>,
    ) -> Vec<Vec<usize>> {
        let summary_places: HashMap<i64, usize> = pool
            .summaries
            .iter()
            .enumerate()
            .map(|(index, parts)| (parts.record.session_id, index))
            .collect();
        let messages = by_meaning
            .messages
            .iter()
            .filter_map(|(message, similarity)| {
                let place = self.message_place(history_ids, message.id)?;
                Some((*similarity, vec![place]))
            });
        let summaries = by_meaning
            .summaries
            .iter()
            .filter_map(|(summary, similarity)| {
                let summary = *summary_places.get(&summary.session_id)?;
                Some((*similarity, self.sentence_places(pool, summary)))
            });
        let notes = by_meaning.notes.iter().filter_map(|(note, similarity)| {
            let text = note.note.trim();
            let note = pool
                .notes
                .iter()
                .position(|line| line.text.trim() == text)?;
            Some((*similarity, vec![*self.index.get(&MemoryRef::Note(note))?]))
        });
        let mut near: Vec<(f64, Vec<usize>)> = messages.chain(summaries).chain(notes).collect();
        near.sort_by(|(a, _), (b, _)| b.total_cmp(a));
        near.into_iter().map(|(_, place)| place).collect()
    }
}

/// The text of a candidate as its words are searched: a note with what it said before, so
/// that "where did I live before?" finds it by the old value too.
fn candidate_text<'a>(
    pool: &'a MemoryPool,
    history: &'a [StoredMessage],
    item: MemoryRef,
) -> Cow<'a, str> {
    match item {
        MemoryRef::Note(index) => {
            let note = &pool.notes[index];
            if note.earlier.is_empty() {
                Cow::Borrowed(&note.text)
            } else {
                let earlier = note.earlier.iter().map(|value| value.note.as_str());
                Cow::Owned(
                    std::iter::once(note.text.as_str())
                        .chain(earlier)
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
        }
        MemoryRef::Sentence { summary, sentence } => {
            Cow::Borrowed(&pool.summaries[summary].sentences[sentence])
        }
        MemoryRef::Message(index) => Cow::Borrowed(&pool.messages[index].content),
        MemoryRef::History(index) => Cow::Borrowed(&history[index].content),
    }
}

/// What the search by meaning found above the model's floor, nearest first, with similarities.
#[derive(Debug, Default)]
struct ByMeaning {
    messages: Vec<(StoredMessage, f64)>,
    summaries: Vec<(SummaryRecord, f64)>,
    notes: Vec<(NoteRecord, f64)>,
}

/// Up to `candidates` messages before the new one matching its words, most relevant first.
async fn recall_by_words(
    store: &Store,
    query: &RecallQuery<'_>,
    terms: &[SearchTerm],
    candidates: i64,
) -> Result<Vec<StoredMessage>, sqlx::Error> {
    if terms.is_empty() || candidates <= 0 {
        return Ok(Vec::new());
    }
    store
        .search_messages(query.key, terms, query.before_id, candidates)
        .await
}

/// Up to `candidates` messages, [`SUMMARIES_BY_MEANING`] summaries and [`NOTES_BY_MEANING`]
/// notes at least as similar as the model's floor, nearest first; nothing when the search
/// failed.
async fn recall_by_meaning(
    store: &Store,
    query_vector: &QueryVector,
    query: &RecallQuery<'_>,
    candidates: i64,
) -> ByMeaning {
    let (vector, floor) = (&query_vector.vector, query_vector.floor);
    let messages = async {
        if candidates <= 0 {
            return Ok(Vec::new());
        }
        store
            .nearest_messages(query.key, vector, query.before_id, candidates)
            .await
    };
    let summaries = store.nearest_summaries(query.key, vector, SUMMARIES_BY_MEANING);
    let notes = store.nearest_notes(query.key, vector, NOTES_BY_MEANING);
    let (messages, summaries, notes) = tokio::join!(messages, summaries, notes);
    let (mut messages, mut summaries, mut notes) = match (messages, summaries, notes) {
        (Ok(messages), Ok(summaries), Ok(notes)) => (messages, summaries, notes),
        (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => {
            tracing::warn!(error = %error, "the search by meaning failed; recalling by words alone");
            crate::metrics::error("recall_by_meaning");
            return ByMeaning::default();
        }
    };
    messages.retain(|(_, similarity)| *similarity >= floor);
    summaries.retain(|(_, similarity)| *similarity >= floor);
    notes.retain(|(_, similarity)| *similarity >= floor);
    ByMeaning {
        messages,
        summaries,
        notes,
    }
}

/// The messages whose text (trimmed, ignoring case) no earlier one had.
fn distinct_texts(messages: Vec<StoredMessage>) -> Vec<StoredMessage> {
    let mut seen = HashSet::new();
    messages
        .into_iter()
        .filter(|message| seen.insert(message.content.trim().to_lowercase()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    #[test]
    fn repeated_texts_keep_only_their_most_relevant_copy() {
        let key = ConversationKey::new(ChatId(1), UserId(1));
        let message = |id: i64, content: &str| {
            StoredMessage::new(id, key, 1, crate::storage::Role::User, content, id)
        };
        let candidates = vec![
            message(7, "Name for a kitten?"),
            message(3, "name for a kitten? "),
            message(5, "My dermatologist is Dr. Katihan."),
            message(9, "Name for a kitten?"),
            message(2, "Who was my dermatologist?"),
        ];

        let kept: Vec<i64> = distinct_texts(candidates)
            .iter()
            .map(|message| message.id)
            .collect();

        assert_eq!(kept, [7, 5, 2]);
    }

    /// The score of a candidate at `place` (0 the first) of one ranking.
    fn at_place(place: usize) -> f64 {
        1.0 / (FUSION_K + place as f64 + 1.0)
    }

    #[test]
    fn a_sessions_weak_candidates_do_not_lift_it_above_a_message_that_answers_elsewhere() {
        let key = ConversationKey::new(ChatId(1), UserId(1));
        let message = |id: i64, session: i64| {
            StoredMessage::new(id, key, session, crate::storage::Role::User, "text", id)
        };
        // One session holds the best hit, a second strong one and twenty lines of small talk a
        // model found faintly near the question; the other, the one message that answers, fifth.
        let mut messages = vec![message(1, 1), message(2, 1)];
        messages.extend((3..23).map(|id| message(id, 1)));
        messages.push(message(23, 2));
        let pool = MemoryPool {
            messages,
            ..MemoryPool::default()
        };
        let candidates = Candidates::of(&pool, &[]);
        let mut own = vec![at_place(0), at_place(1)];
        own.extend((0..20).map(|weak| at_place(30 + weak)));
        own.push(at_place(4));
        let mut scores = own.clone();

        candidates.share_with_neighbours_and_sessions(&pool, &[], &mut scores);

        let answer = scores[22];
        let best_weak = scores[2..22].iter().copied().fold(f64::MIN, f64::max);
        assert!(answer > best_weak, "{answer} against {best_weak}");
        let strong_sum = own[0] + own[1];
        assert!((scores[1] - own[1] - SESSION_SHARE * strong_sum).abs() < 1e-12);
        assert!((scores[2] - own[2] - SESSION_SHARE * strong_sum).abs() < 1e-12);
    }
}
