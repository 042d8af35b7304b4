//! The background embedder: gives every stored message and session summary its vector, in
//! batches, never on a reply's path.
//!
//! Each look embeds what is waiting: messages after the stored mark (oldest first) and summaries
//! without a vector. It runs until nothing is left, then sleeps [`LOOK_INTERVAL`]. A run that
//! stopped leaves the mark where the last stored batch put it, so the next start carries on from
//! there; a changed `EMBEDDING_MODEL` deletes every vector and starts over, since vectors of two
//! models cannot be compared.
//!
//! Texts are masked like prompts before they leave the process: the embedding server may be a
//! third party. When the server fails, the embedder waits longer and longer (up to
//! [`LONGEST_WAIT`]) and logs once until it works again; a batch the server refuses (HTTP 4xx)
//! is sent again one text at a time, and a text refused alone is left without a vector (it can
//! still be found by its words).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::backoff::Backoff;
use crate::llm::embeddings::{EmbeddingClient, EmbeddingError};
use crate::memory::meaning::quantize;
use crate::memory::redact::Redactor;
use crate::metrics;
use crate::storage::{MemoryVector, Store, TextToEmbed, VectorSource};

/// Texts per request to the embedding server.
const BATCH: i64 = 32;

/// How often the embedder looks for new messages and summaries.
pub const LOOK_INTERVAL: Duration = Duration::from_secs(1);

/// How long one batch may take: the server may be a CPU working through 32 texts.
const BATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest wait between two attempts while the server keeps failing.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// The background embedder of one store and one embedding model.
#[derive(Clone, Debug)]
pub struct Embedder {
    store: Store,
    client: EmbeddingClient,
    redactor: Redactor,
}

/// What one look did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbedderReport {
    pub messages: usize,
    pub summaries: usize,
    /// Texts the server refused even alone.
    pub refused: usize,
}

impl Embedder {
    pub fn new(store: Store, client: EmbeddingClient, redactor: Redactor) -> Self {
        Self {
            store,
            client,
            redactor,
        }
    }

    /// Makes the configured model the one of the stored vectors (deleting those of another).
    pub async fn start(&self) -> Result<(), sqlx::Error> {
        if self.store.use_embedding_model(self.client.model()).await? {
            tracing::info!(
                model = self.client.model(),
                "the embedding model changed: every message and summary is embedded again"
            );
        }
        Ok(())
    }

    /// Embeds everything waiting, batch after batch.
    pub async fn embed_waiting(&self) -> anyhow::Result<EmbedderReport> {
        let mut report = EmbedderReport::default();
        loop {
            let batch = self.store.messages_to_embed(BATCH).await?;
            let Some(last) = batch.last().map(|text| text.source_id) else {
                break;
            };
            let (vectors, refused) = self.embed(&batch).await?;
            self.store.store_vectors(&vectors, Some(last)).await?;
            report.messages += vectors.len();
            report.refused += refused;
            if (batch.len() as i64) < BATCH {
                break;
            }
        }
        loop {
            let batch = self.store.summaries_to_embed(BATCH).await?;
            if batch.is_empty() {
                break;
            }
            let (vectors, refused) = self.embed(&batch).await?;
            self.store.store_vectors(&vectors, None).await?;
            report.summaries += vectors.len();
            report.refused += refused;
            // Refused summaries stay without a vector; asking again now would loop.
            if refused > 0 || (batch.len() as i64) < BATCH {
                break;
            }
        }
        if let Ok(waiting) = self.store.messages_waiting_for_vectors().await {
            metrics::set_messages_waiting_for_vectors(waiting.max(0) as u64);
        }
        Ok(report)
    }

    /// The vectors of `texts`, and how many of them the server refused.
    async fn embed(&self, texts: &[TextToEmbed]) -> anyhow::Result<(Vec<MemoryVector>, usize)> {
        let masked: Vec<String> = texts
            .iter()
            .map(|text| self.redactor.redact(&text.text).into_owned())
            .collect();
        let inputs: Vec<&str> = masked.iter().map(String::as_str).collect();
        match self.client.embed(&inputs, BATCH_TIMEOUT).await {
            Ok(vectors) => Ok((stored_vectors(texts, vectors.iter().map(Some)), 0)),
            Err(error) if error.is_rejection() && texts.len() > 1 => {
                let mut one_by_one = Vec::with_capacity(texts.len());
                for input in &inputs {
                    match self.client.embed(&[input], BATCH_TIMEOUT).await {
                        Ok(mut vector) => one_by_one.push(vector.pop()),
                        Err(error) if error.is_rejection() => one_by_one.push(None),
                        Err(error) => return Err(error.into()),
                    }
                }
                let refused = one_by_one.iter().filter(|vector| vector.is_none()).count();
                Ok((
                    stored_vectors(texts, one_by_one.iter().map(Option::as_ref)),
                    refused,
                ))
            }
            Err(error) if error.is_rejection() => Ok((Vec::new(), 1)),
            Err(error) => Err(error.into()),
        }
    }
}

/// The vectors to store for `texts`, skipping those without one.
fn stored_vectors<'a>(
    texts: &[TextToEmbed],
    vectors: impl Iterator<Item = Option<&'a Vec<f32>>>,
) -> Vec<MemoryVector> {
    texts
        .iter()
        .zip(vectors)
        .filter_map(|(text, vector)| {
            Some(MemoryVector {
                source: text.source,
                source_id: text.source_id,
                text: match text.source {
                    VectorSource::Summary => text.text.clone(),
                    VectorSource::Message => String::new(),
                },
                vector: quantize(vector?),
            })
        })
        .collect()
}

/// Runs the embedder until `shutdown` is cancelled: a look every [`LOOK_INTERVAL`], and after
/// a failure a wait that doubles up to [`LONGEST_WAIT`].
pub async fn run_embedder_job(embedder: Embedder, shutdown: CancellationToken) {
    let mut backoff = Backoff::new(LOOK_INTERVAL * 2, LONGEST_WAIT);
    let mut wait = LOOK_INTERVAL;
    let mut failing = false;
    let mut started = false;
    loop {
        if !started {
            match embedder.start().await {
                Ok(()) => started = true,
                Err(error) => tracing::warn!(error = %error, "cannot set up the embedder"),
            }
        }
        if started {
            match embedder.embed_waiting().await {
                Ok(report) => {
                    if failing {
                        tracing::info!("embedding works again");
                    }
                    if report.messages + report.summaries > 0 {
                        tracing::debug!(?report, "embedded messages and summaries");
                    }
                    failing = false;
                    backoff.reset();
                    wait = LOOK_INTERVAL;
                }
                Err(error) => {
                    let kind = error
                        .downcast_ref::<EmbeddingError>()
                        .map_or("storage", EmbeddingError::kind);
                    metrics::embedding_failed("background", kind);
                    if failing {
                        tracing::debug!(error = %error, "embedding failed again");
                    } else {
                        tracing::warn!(error = %error, "embedding failed; trying again later");
                    }
                    failing = true;
                    wait = backoff.next_delay();
                }
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = tokio::time::sleep(wait) => {}
        }
    }
    tracing::debug!("embedder stopped");
}
