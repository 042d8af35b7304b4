//! The background embedder: gives every stored message, session summary and note its vector,
//! in batches, never on a reply's path. Stored texts are embedded as passages (the new message a
//! turn searches with is the query: `memory::meaning`).
//!
//! Each look embeds what is waiting: messages after the stored mark (oldest first), summaries
//! and notes without a vector (a note given another text lost its vector and waits again). It
//! runs until nothing is left, then waits for an [`EmbedderWake`]: whatever stores a message, a
//! summary or a note in this process signals it, so a text waits for its vector about as long
//! as the server takes. Other replicas and processes (PostgreSQL) write too, and nothing here
//! hears of their writes: without a signal the embedder looks anyway after
//! `EMBEDDING_LOOK_INTERVAL_SECS`. A run that stopped leaves the mark where the last stored
//! batch put it, so the next start carries on from there; a changed `EMBEDDING_MODEL` (or role
//! setting) deletes every vector and starts over, since vectors of two models cannot be compared.
//!
//! Texts are masked like prompts before they leave the process: the embedding server may be a
//! third party. When the server fails, the embedder waits longer and longer (up to
//! [`LONGEST_WAIT`]) and logs once until it works again; a batch the server refuses (HTTP 4xx)
//! is sent again one text at a time, and a text refused alone is left without a vector (it can
//! still be found by its words).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::backoff::{Backoff, LastingFailure};
use crate::llm::embeddings::{EmbeddingClient, EmbeddingError};
use crate::memory::meaning::quantize;
use crate::memory::redact::Redactor;
use crate::metrics;
use crate::storage::{MemoryVector, Store, TextToEmbed, VectorSource};

/// Texts per request to the embedding server.
const BATCH: i64 = 32;

/// How long one batch may take: the server may be a CPU working through 32 texts.
const BATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a signalled embedder waits before it looks: texts stored together (a message and
/// its reply, a summary and its notes) go in one request, and a busy bot costs a few looks a
/// second at most, each of which also reads which summaries and notes lack a vector.
const GATHER: Duration = Duration::from_millis(200);

/// The first wait after a failure.
const FIRST_RETRY: Duration = Duration::from_secs(2);

/// The longest wait between two attempts while the server keeps failing.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// Tells the background embedder that texts are waiting for vectors. Cheap to clone; clones
/// wake the same embedder. A signal while the embedder is busy is kept, so it looks once more
/// when done; many signals in a row make one look. Without an embedder nothing listens, and a
/// signal costs nothing.
#[derive(Clone, Debug, Default)]
pub struct EmbedderWake(Arc<Notify>);

impl EmbedderWake {
    /// Texts were stored: the embedder should look now.
    pub fn signal(&self) {
        self.0.notify_one();
    }

    /// Waits for a signal (one given while nobody waited counts).
    async fn signalled(&self) {
        self.0.notified().await;
    }
}

/// The background embedder of one store and one embedding model.
#[derive(Clone, Debug)]
pub struct Embedder {
    store: Store,
    client: EmbeddingClient,
    redactor: Redactor,
    wake: EmbedderWake,
    look_interval: Duration,
}

/// Texts found waiting by having no vector (messages go by the mark instead).
#[derive(Clone, Copy)]
enum Unmarked {
    Summaries,
    Notes,
}

/// What one look did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbedderReport {
    pub messages: usize,
    pub summaries: usize,
    pub notes: usize,
    /// Texts the server refused even alone.
    pub refused: usize,
}

impl Embedder {
    /// The embedder woken by `wake`, looking at least every `look_interval`.
    pub fn new(
        store: Store,
        client: EmbeddingClient,
        redactor: Redactor,
        wake: EmbedderWake,
        look_interval: Duration,
    ) -> Self {
        Self {
            store,
            client,
            redactor,
            wake,
            look_interval,
        }
    }

    /// Makes the configured model (with its role setting) the one of the stored vectors,
    /// deleting those of another.
    pub async fn start(&self) -> Result<(), sqlx::Error> {
        let space = self.client.vector_space();
        if self.store.use_embedding_model(&space).await? {
            tracing::info!(
                model = %space,
                "the embedding model changed: every message, summary and note is embedded again"
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
        let (summaries, refused) = self.embed_all(Unmarked::Summaries).await?;
        report.summaries = summaries;
        report.refused += refused;
        let (notes, refused) = self.embed_all(Unmarked::Notes).await?;
        report.notes = notes;
        report.refused += refused;
        if let Ok(waiting) = self.store.messages_waiting_for_vectors().await {
            metrics::set_messages_waiting_for_vectors(waiting.max(0) as u64);
        }
        Ok(report)
    }

    /// Embeds the summaries or notes without a vector, batch after batch; how many got one and
    /// how many the server refused.
    async fn embed_all(&self, texts: Unmarked) -> anyhow::Result<(usize, usize)> {
        let (mut embedded, mut refused_in_all) = (0, 0);
        loop {
            let batch = match texts {
                Unmarked::Summaries => {
                    self.store
                        .texts_without_vectors(VectorSource::Summary, BATCH)
                        .await?
                }
                Unmarked::Notes => {
                    self.store
                        .texts_without_vectors(VectorSource::Note, BATCH)
                        .await?
                }
            };
            if batch.is_empty() {
                break;
            }
            let (vectors, refused) = self.embed(&batch).await?;
            self.store.store_vectors(&vectors, None).await?;
            embedded += vectors.len();
            refused_in_all += refused;
            // Refused texts stay without a vector; asking again now would loop.
            if refused > 0 || (batch.len() as i64) < BATCH {
                break;
            }
        }
        Ok((embedded, refused_in_all))
    }

    /// The vectors of `texts` (as passages), and how many of them the server refused.
    async fn embed(&self, texts: &[TextToEmbed]) -> anyhow::Result<(Vec<MemoryVector>, usize)> {
        let masked: Vec<String> = texts
            .iter()
            .map(|text| self.redactor.redact(&text.text).into_owned())
            .collect();
        let inputs: Vec<&str> = masked.iter().map(String::as_str).collect();
        match self.client.embed_passages(&inputs, BATCH_TIMEOUT).await {
            Ok(vectors) => Ok((stored_vectors(texts, vectors.iter().map(Some)), 0)),
            Err(error) if error.is_rejection() && texts.len() > 1 => {
                let mut one_by_one = Vec::with_capacity(texts.len());
                for input in &inputs {
                    match self.client.embed_passages(&[input], BATCH_TIMEOUT).await {
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
                    VectorSource::Summary | VectorSource::Note => text.text.clone(),
                    VectorSource::Message => String::new(),
                },
                vector: quantize(vector?),
            })
        })
        .collect()
}

/// Runs the embedder until `shutdown` is cancelled: a look at the start, [`GATHER`] after an
/// [`EmbedderWake`] signal and at least every look interval; after a failure, a wait that
/// doubles from [`FIRST_RETRY`] up to [`LONGEST_WAIT`], which signals do not cut short (a
/// failing server would otherwise be asked once per stored message).
pub async fn run_embedder_job(embedder: Embedder, shutdown: CancellationToken) {
    let mut backoff = Backoff::new(FIRST_RETRY, LONGEST_WAIT);
    let mut failure = LastingFailure::new("embedding");
    let mut started = false;
    loop {
        match look(&embedder, &mut started).await {
            Ok(()) => {
                failure.worked();
                backoff.reset();
            }
            Err(error) => failure.failed(&error),
        }
        if failure.is_failing() {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep(backoff.next_delay()) => {}
            }
        } else {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = embedder.wake.signalled() => {
                    tokio::select! {
                        () = shutdown.cancelled() => break,
                        () = tokio::time::sleep(GATHER) => {}
                    }
                }
                () = tokio::time::sleep(embedder.look_interval) => {}
            }
        }
    }
    tracing::debug!("embedder stopped");
}

/// One look of the job: sets the embedder up unless `started`, then embeds what is waiting.
async fn look(embedder: &Embedder, started: &mut bool) -> anyhow::Result<()> {
    if !*started {
        embedder
            .start()
            .await
            .map_err(|error| anyhow::Error::new(error).context("cannot set up the embedder"))?;
        *started = true;
    }
    match embedder.embed_waiting().await {
        Ok(report) => {
            if report != EmbedderReport::default() {
                tracing::debug!(?report, "embedded messages, summaries and notes");
            }
            Ok(())
        }
        Err(error) => {
            let kind = error
                .downcast_ref::<EmbeddingError>()
                .map_or("storage", EmbeddingError::kind);
            metrics::embedding_failed("background", kind);
            Err(error)
        }
    }
}
