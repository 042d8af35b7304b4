//! How to reach the LLM: the [`LlmConfig`] flags and environment variables, their defaults and
//! ranges, and the [`Provider`] that picks the API dialect. This is the only place that tells the
//! providers apart: it picks their dialect and their default base URL.
//!
//! Bad values fail when the command line is parsed, naming the variable; the API key is a
//! [`Secret`] so the configuration can be logged with `Debug`.

use std::time::Duration;

use super::anthropic::AnthropicDialect;
use super::dialect::Dialect;
use super::openai::OpenAiDialect;
use crate::secret::Secret;
use crate::setting::Setting;

/// Which API dialect the LLM server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// OpenAI-compatible `/chat/completions` (OpenAI, Ollama, vLLM, llama.cpp, ...).
    #[value(name = "openai")]
    OpenAi,
    /// Anthropic's `/messages`.
    Anthropic,
}

/// How to reach the LLM, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct LlmConfig {
    /// Which API dialect the LLM server speaks.
    #[arg(
        setting = "LLM_PROVIDER",
        value_enum,
        default_value_t = Provider::OpenAi
    )]
    pub provider: Provider,

    /// Base URL of the API, up to and including the version segment. Default: a local Ollama
    /// (`http://127.0.0.1:11434/v1`) for openai, `https://api.anthropic.com/v1` for anthropic.
    #[arg(setting = "LLM_BASE_URL")]
    pub base_url: Option<reqwest::Url>,

    /// API key; local servers usually need none.
    #[arg(setting = "LLM_API_KEY", hide_env_values = true)]
    pub api_key: Option<Secret>,

    /// Model name, as the server knows it.
    #[arg(setting = "LLM_MODEL", default_value = "llama3.2")]
    pub model: String,

    /// Models people may choose with /model, comma-separated. LLM_MODEL is always one of them
    /// (added first when missing). Unset: only LLM_MODEL.
    #[arg(
        setting = "LLM_MODELS",
        value_delimiter = ',',
        value_parser = parse_model_name
    )]
    pub models: Vec<String>,

    /// Upper bound on the reply length, in tokens.
    #[arg(
        setting = "LLM_MAX_TOKENS",
        default_value_t = 1024,
        value_parser = clap::value_parser!(u32).range(1..=200_000)
    )]
    pub max_tokens: u32,

    /// Time budget for one call in seconds, retries and waits included.
    #[arg(
        setting = "LLM_TIMEOUT_SECS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub timeout_secs: u64,

    /// How often to retry a call after a rate limit, server error or connection failure.
    #[arg(
        setting = "LLM_MAX_RETRIES",
        default_value_t = 3,
        value_parser = clap::value_parser!(u32).range(0..=10)
    )]
    pub max_retries: u32,
}

/// A model setting (`EMBEDDING_MODEL`, `VISION_MODEL`, ...) trimmed, unless it is unset or
/// blank: `VISION_MODEL=` in an environment file means "no model", like leaving it out.
pub fn model_name(setting: Option<&str>) -> Option<&str> {
    setting.map(str::trim).filter(|name| !name.is_empty())
}

/// One entry of `LLM_MODELS`: a model name, without the spaces around it.
fn parse_model_name(value: &str) -> Result<String, String> {
    let name = value.trim();
    if name.is_empty() {
        return Err(
            "an empty model name (two commas in a row, or a comma at the start or the end)"
                .to_owned(),
        );
    }
    Ok(name.to_owned())
}

impl LlmConfig {
    /// The configured base URL, or the provider's usual one.
    pub fn base_url(&self) -> reqwest::Url {
        if let Some(url) = &self.base_url {
            return url.clone();
        }
        let default = match self.provider {
            Provider::OpenAi => "http://127.0.0.1:11434/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
        };
        // Both literals above are valid URLs; the test below proves it.
        reqwest::Url::parse(default).expect("default base URLs are valid")
    }

    /// The dialect the provider speaks; the only choice made on the provider after start-up.
    pub(super) fn dialect(&self) -> Box<dyn Dialect> {
        match self.provider {
            Provider::OpenAi => Box::new(OpenAiDialect),
            Provider::Anthropic => Box::new(AnthropicDialect),
        }
    }

    /// The key, unless it is unset or empty (an empty `LLM_API_KEY=` means "no key").
    pub(super) fn api_key(&self) -> Option<&Secret> {
        self.api_key.as_ref().filter(|key| !key.is_empty())
    }

    pub(super) fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }
}

/// Test support: the LLM settings, and a side server's settings `T`, as `telemem` reads them
/// from the flags `args` (without the program name).
#[cfg(test)]
pub(super) fn parse_flags_with<T: clap::Args + clap::FromArgMatches>(
    args: &[&str],
) -> Result<(LlmConfig, T), clap::Error> {
    use clap::FromArgMatches;
    let command = T::augment_args(<LlmConfig as clap::Args>::augment_args(clap::Command::new(
        "telemem",
    )));
    let matches = command.try_get_matches_from(std::iter::once("telemem").chain(args.to_vec()))?;
    Ok((
        LlmConfig::from_arg_matches(&matches)?,
        T::from_arg_matches(&matches)?,
    ))
}

/// Test support: the client `from_config` makes of a side server's settings `T`, read from the
/// flags `args` with the LLM settings.
#[cfg(test)]
pub(super) fn client_from_flags<T: clap::Args + clap::FromArgMatches, Client>(
    args: &[&str],
    from_config: impl FnOnce(&T, &LlmConfig) -> anyhow::Result<Option<Client>>,
) -> anyhow::Result<Option<Client>> {
    let (llm, settings) = parse_flags_with::<T>(args).expect("valid flags");
    from_config(&settings, &llm)
}

/// Test support: the LLM settings alone, read from the flags `args`.
#[cfg(test)]
pub(super) fn parse_flags(args: &[&str]) -> Result<LlmConfig, clap::Error> {
    /// No settings beside the LLM's.
    #[derive(clap::Args)]
    struct Nothing {}
    parse_flags_with::<Nothing>(args).map(|(llm, _)| llm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_point_openai_at_a_local_ollama() {
        let llm = parse_flags(&[]).unwrap();
        assert_eq!(llm.provider, Provider::OpenAi);
        assert_eq!(llm.base_url().as_str(), "http://127.0.0.1:11434/v1");
        assert_eq!(llm.model, "llama3.2");
        assert_eq!(
            (llm.max_tokens, llm.timeout_secs, llm.max_retries),
            (1024, 60, 3)
        );
        assert!(llm.api_key.is_none());
    }

    #[test]
    fn an_out_of_range_value_names_the_variable_and_the_range() {
        let error = parse_flags(&["--llm-max-tokens", "0"]).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("LLM_MAX_TOKENS"), "{message}");
        assert!(message.contains("1..=200000"), "{message}");
    }

    #[test]
    fn an_unknown_provider_names_the_variable_and_the_choices() {
        let error = parse_flags(&["--llm-provider", "gemini"]).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("LLM_PROVIDER"), "{message}");
        assert!(
            message.contains("openai") && message.contains("anthropic"),
            "{message}"
        );
    }

    #[test]
    fn the_key_is_redacted_in_the_config_debug_output() {
        let llm = parse_flags(&["--llm-api-key", "sk-live-123"]).unwrap();
        assert!(!format!("{llm:?}").contains("sk-live-123"));
    }
}
