//! Memory policy: when a session ends, what of the stored history goes into each turn's prompt,
//! how closed sessions become summaries and notes, the notes people write themselves, and the
//! few turns an incognito conversation keeps in the process instead. Pure functions where
//! possible; reads and writes go through [`crate::storage`]. Nothing here knows about Telegram.

pub mod context;
pub mod embedder;
pub mod escape;
pub mod incognito;
pub mod meaning;
pub mod notes;
pub mod period;
pub mod preferences;
pub mod recall;
pub mod redact;
pub mod relevance;
#[cfg(test)]
mod strategies;
pub mod summarizer;
pub mod summary;
pub mod terms;
