//! The models people may choose from ([`ModelList`]): `LLM_MODELS`, always with `LLM_MODEL`, the
//! default, among them. It finds a model by the name a person typed and says which model a stored
//! choice means today: a choice the operator has since removed from the list falls back to the
//! default. Which model a person chose is stored elsewhere (`storage`); this only knows the list.

use super::LlmConfig;

/// The models on offer, in the order they are shown; the default is always one of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelList {
    default: String,
    /// Without repeats; holds `default`.
    names: Vec<String>,
}

/// The model a person's turns use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInUse {
    pub name: String,
    /// The model the person chose, when it is no longer on offer and the default answers instead.
    pub unavailable_choice: Option<String>,
}

impl ModelList {
    /// `listed` in its order, repeats dropped, with `default` first if it is not listed.
    pub fn new(default: &str, listed: &[String]) -> Self {
        let mut names: Vec<String> = Vec::with_capacity(listed.len() + 1);
        if !listed.iter().any(|name| name == default) {
            names.push(default.to_owned());
        }
        for name in listed {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Self {
            default: default.to_owned(),
            names,
        }
    }

    /// `LLM_MODELS` around `LLM_MODEL`.
    pub fn from_config(config: &LlmConfig) -> Self {
        Self::new(&config.model, &config.models)
    }

    pub fn default_model(&self) -> &str {
        &self.default
    }

    /// Every model on offer, in the order they are shown.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The model on offer called `name`: spelled exactly so, or else the only one spelled so
    /// when case is ignored (a phone's keyboard capitalizes the first letter).
    pub fn find(&self, name: &str) -> Option<&str> {
        let name = name.trim();
        if let Some(exact) = self.names.iter().find(|offered| *offered == name) {
            return Some(exact);
        }
        let mut ignoring_case = self
            .names
            .iter()
            .filter(|offered| offered.eq_ignore_ascii_case(name));
        match (ignoring_case.next(), ignoring_case.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// Which model answers a person whose stored choice is `chosen` (`None`: never chose one).
    pub fn in_use(&self, chosen: Option<&str>) -> ModelInUse {
        match chosen {
            Some(chosen) if self.names.iter().any(|name| name == chosen) => ModelInUse {
                name: chosen.to_owned(),
                unavailable_choice: None,
            },
            Some(chosen) => ModelInUse {
                name: self.default.clone(),
                unavailable_choice: Some(chosen.to_owned()),
            },
            None => ModelInUse {
                name: self.default.clone(),
                unavailable_choice: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(default: &str, listed: &[&str]) -> ModelList {
        let listed: Vec<String> = listed.iter().map(|name| (*name).to_owned()).collect();
        ModelList::new(default, &listed)
    }

    #[test]
    fn the_default_is_always_on_offer_first_when_not_listed() {
        assert_eq!(list("llama3.2", &[]).names(), ["llama3.2"]);
        assert_eq!(
            list("llama3.2", &["qwen3", "mistral"]).names(),
            ["llama3.2", "qwen3", "mistral"]
        );
        assert_eq!(
            list("qwen3", &["mistral", "qwen3", "mistral"]).names(),
            ["mistral", "qwen3"]
        );
    }

    #[test]
    fn a_name_is_found_exactly_or_ignoring_case_when_that_is_unambiguous() {
        let models = list("gpt-4o", &["gpt-4o-mini", "Mistral", "mistral"]);
        assert_eq!(models.find(" gpt-4o-mini "), Some("gpt-4o-mini"));
        assert_eq!(models.find("GPT-4O"), Some("gpt-4o"));
        assert_eq!(models.find("mistral"), Some("mistral"));
        assert_eq!(models.find("MISTRAL"), None);
        assert_eq!(models.find("gpt-5"), None);
    }

    #[test]
    fn a_choice_no_longer_on_offer_falls_back_to_the_default() {
        let models = list("gpt-4o", &["gpt-4o-mini"]);
        assert_eq!(
            models.in_use(Some("gpt-4o-mini")),
            ModelInUse {
                name: "gpt-4o-mini".to_owned(),
                unavailable_choice: None
            }
        );
        assert_eq!(
            models.in_use(Some("o1")),
            ModelInUse {
                name: "gpt-4o".to_owned(),
                unavailable_choice: Some("o1".to_owned())
            }
        );
        assert_eq!(models.in_use(None).name, "gpt-4o");
    }
}
