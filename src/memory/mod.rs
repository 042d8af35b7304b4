//! Memory policy: when a session ends, what of the stored history goes into each turn's prompt,
//! and how closed sessions become summaries and notes. Pure functions where possible; reads and
//! writes go through [`crate::storage`]. Nothing here knows about Telegram.

pub mod context;
pub mod embedder;
pub mod escape;
pub mod meaning;
pub mod recall;
pub mod redact;
pub mod session;
pub mod summarizer;
pub mod summary;
pub mod tokens;
