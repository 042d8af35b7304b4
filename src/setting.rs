//! How a setting is declared: [`Setting`] names a flag and its environment variable once. A leaf
//! below every module that declares settings (`config.rs` and the `*Config` types it gathers from
//! `llm/`, `tools/` and `webapp/`), so that they can use it without importing the whole
//! configuration.

/// A setting read from a flag or an environment variable, named once by its variable: with
/// `setting = "LLM_MAX_TOKENS"` in its `#[arg]`, a field is the flag `--llm-max-tokens`, the
/// variable `LLM_MAX_TOKENS`, and shows the value name `LLM_MAX_TOKENS`, so that clap's messages
/// about the flag name the variable too.
pub trait Setting {
    fn setting(self, variable: &'static str) -> Self;
}

impl Setting for clap::Arg {
    fn setting(self, variable: &'static str) -> Self {
        self.long(variable.to_lowercase().replace('_', "-"))
            .env(variable)
            .value_name(variable)
            // One value after the flag, lists included (they are split by their delimiter): the
            // derive, seeing no `long`, took a list for a positional argument that takes several.
            .num_args(1)
    }
}
