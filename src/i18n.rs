//! The languages the bot writes in: [`Lang`], chosen from a person's language code, and the
//! catalog of translated sentences behind [`crate::replies`]. Each language has one Project Fluent
//! file in `src/locales/` (`en.ftl`, `de.ftl`, ...), compiled into the binary, so a translator
//! edits one plain file and Fluent's plural rules give every language its own forms ("1 день",
//! "2 дня", "5 дней"). A message a language file lacks falls back to English, so a sentence added in
//! English works everywhere before it is translated; the unit tests below catch the gaps.
//!
//! Only [`crate::replies`] looks messages up by id: the rest of the code calls its typed
//! functions. The prompts sent to the model stay English (the model answers in the person's
//! language anyway); only what the bot itself writes is translated.

use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};

/// A language the bot writes in. English is the default and the fallback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    De,
    Es,
    Fr,
    Ru,
}

/// A language code that is not one of [`Lang::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language \"{0}\": the bot speaks {supported}", supported = Lang::supported_codes())]
pub struct UnknownLanguage(String);

impl Lang {
    /// Every language, English first.
    pub const ALL: [Lang; 5] = [Lang::En, Lang::De, Lang::Es, Lang::Fr, Lang::Ru];

    /// The ISO 639-1 code, as Telegram's `language_code` starts.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::Ru => "ru",
        }
    }

    /// The language for an IETF language tag such as Telegram's `language_code` (`de`, `de-AT`,
    /// `pt-br`), by its primary subtag, in any case; English for a language the bot does not
    /// speak, and for none.
    pub fn from_code(code: Option<&str>) -> Self {
        let Some(code) = code else {
            return Lang::En;
        };
        let primary = code.trim().split(['-', '_']).next().unwrap_or_default();
        Self::ALL
            .into_iter()
            .find(|lang| primary.eq_ignore_ascii_case(lang.code()))
            .unwrap_or(Lang::En)
    }

    /// A language asked for by name (a command-line flag): exactly one of the codes of
    /// [`Lang::ALL`], in any case, or an error naming them.
    pub fn parse(code: &str) -> Result<Self, UnknownLanguage> {
        Self::ALL
            .into_iter()
            .find(|lang| code.trim().eq_ignore_ascii_case(lang.code()))
            .ok_or_else(|| UnknownLanguage(code.to_owned()))
    }

    /// "en, de, es, fr, ru".
    pub fn supported_codes() -> String {
        Self::ALL.map(Lang::code).join(", ")
    }

    /// The language's Fluent file, compiled in.
    fn source(self) -> &'static str {
        match self {
            Lang::En => include_str!("locales/en.ftl"),
            Lang::De => include_str!("locales/de.ftl"),
            Lang::Es => include_str!("locales/es.ftl"),
            Lang::Fr => include_str!("locales/fr.ftl"),
            Lang::Ru => include_str!("locales/ru.ftl"),
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What a sentence shows when its message is missing even in English: visible enough to be
/// reported, never a panic.
pub(crate) const MISSING_MARK: &str = "⟦missing text⟧";

/// One Fluent bundle per language, in the order of [`Lang::ALL`].
struct Catalog {
    bundles: Vec<FluentBundle<FluentResource>>,
}

static CATALOG: LazyLock<Catalog> = LazyLock::new(|| Catalog::build(|lang| lang.source()));

impl Catalog {
    /// The bundles of every language, each from the Fluent text `source` gives for it.
    fn build<'s>(source: impl Fn(Lang) -> &'s str) -> Self {
        Self {
            bundles: Lang::ALL
                .into_iter()
                .map(|lang| bundle(lang, source(lang)))
                .collect(),
        }
    }

    /// The sentence `id` in `lang`, or in English when `lang`'s file lacks it.
    fn text(&self, lang: Lang, id: &str, args: Option<&FluentArgs<'_>>) -> String {
        self.format(lang, id, args)
            .or_else(|| self.format(Lang::En, id, args))
            .unwrap_or_else(|| {
                tracing::error!(id, "a sentence is missing from the English language file");
                MISSING_MARK.to_owned()
            })
    }

    /// The message `id` in `lang` with `args`, if `lang`'s file has it.
    fn format(&self, lang: Lang, id: &str, args: Option<&FluentArgs<'_>>) -> Option<String> {
        let bundle = self.bundles.get(lang.index())?;
        let pattern = bundle.get_message(id)?.value()?;
        let mut errors = Vec::new();
        let text = bundle.format_pattern(pattern, args, &mut errors);
        if !errors.is_empty() {
            // Only ids and error kinds: the arguments can be a person's own words.
            tracing::warn!(
                id,
                lang = lang.code(),
                ?errors,
                "a translated sentence has errors"
            );
        }
        Some(text.into_owned())
    }
}

/// `lang`'s bundle from its Fluent text. A text with a syntax error still gives every message
/// that parsed (the unit tests make sure the shipped files have none).
fn bundle(lang: Lang, source: &str) -> FluentBundle<FluentResource> {
    let resource =
        FluentResource::try_new(source.to_owned()).unwrap_or_else(|(resource, errors)| {
            tracing::error!(
                lang = lang.code(),
                ?errors,
                "a language file has syntax errors"
            );
            resource
        });
    // The codes of `Lang` are valid language identifiers; the default (undetermined) would only
    // lose the plural rules.
    let locale = lang.code().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![locale]);
    // The texts go out as plain text; Unicode isolation marks around every value would only
    // be invisible noise in what people copy.
    bundle.set_use_isolating(false);
    if let Err(errors) = bundle.add_resource(resource) {
        tracing::error!(lang = lang.code(), ?errors, "a language file repeats an id");
    }
    bundle
}

/// The sentence `id` in `lang`, its placeholders filled from `args`; English when `lang`'s file
/// lacks it. For [`crate::replies`] only.
pub(crate) fn text<'a>(
    lang: Lang,
    id: &str,
    args: impl IntoIterator<Item = (&'static str, FluentValue<'a>)>,
) -> String {
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(name, value);
    }
    let args = fluent_args.iter().next().is_some().then_some(&fluent_args);
    CATALOG.text(lang, id, args)
}

/// Every sentence of the Mini App's page (the messages whose id starts with `app-`) in
/// `lang`, by id; English where `lang`'s file lacks one. The page shows these and nothing else.
pub fn app_strings(lang: Lang) -> std::collections::BTreeMap<&'static str, String> {
    Lang::En
        .source()
        .lines()
        .filter_map(|line| line.split_once('=').map(|(id, _)| id.trim_end()))
        .filter(|id| id.starts_with("app-") && !id.contains(char::is_whitespace))
        .map(|id| (id, CATALOG.text(lang, id, None)))
        .collect()
}

/// The sentence `id` (without placeholders) in `lang`, or in English, or `None` when neither
/// file has it: for texts with a fallback of their own.
pub(crate) fn text_if_any(lang: Lang, id: &str) -> Option<String> {
    CATALOG
        .format(lang, id, None)
        .or_else(|| CATALOG.format(Lang::En, id, None))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};

    use super::*;

    /// Every message of a Fluent text with the names of the values it uses.
    fn messages(source: &str) -> BTreeMap<String, BTreeSet<String>> {
        let resource = fluent_syntax::parser::parse(source)
            .unwrap_or_else(|(_, errors)| panic!("syntax errors: {errors:?}"));
        resource
            .body
            .iter()
            .filter_map(|entry| match entry {
                Entry::Message(message) => Some(message),
                _ => None,
            })
            .map(|message| {
                let mut variables = BTreeSet::new();
                if let Some(pattern) = &message.value {
                    collect_variables(pattern, &mut variables);
                }
                (message.id.name.to_owned(), variables)
            })
            .collect()
    }

    fn collect_variables(pattern: &Pattern<&str>, variables: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let PatternElement::Placeable { expression } = element {
                collect_in_expression(expression, variables);
            }
        }
    }

    fn collect_in_expression(expression: &Expression<&str>, variables: &mut BTreeSet<String>) {
        match expression {
            Expression::Inline(inline) => collect_in_inline(inline, variables),
            Expression::Select { selector, variants } => {
                collect_in_inline(selector, variables);
                for variant in variants {
                    collect_variables(&variant.value, variables);
                }
            }
        }
    }

    fn collect_in_inline(inline: &InlineExpression<&str>, variables: &mut BTreeSet<String>) {
        match inline {
            InlineExpression::VariableReference { id } => {
                variables.insert(id.name.to_owned());
            }
            InlineExpression::Placeable { expression } => {
                collect_in_expression(expression, variables);
            }
            _ => {}
        }
    }

    /// What a translator has to fix in `translated` (the file `name`): messages English has and
    /// it lacks, messages English does not have, and values a message uses or leaves out that
    /// English's does not.
    fn coverage_problems(name: &str, translated: &str) -> Vec<String> {
        let english = messages(Lang::En.source());
        let translated = messages(translated);
        let mut problems = Vec::new();
        for (id, english_values) in &english {
            let Some(values) = translated.get(id) else {
                problems.push(format!("{name} lacks `{id}`"));
                continue;
            };
            for extra in values.difference(english_values) {
                problems.push(format!(
                    "{name}: `{id}` uses {{ ${extra} }}, which the English message does not"
                ));
            }
            for lost in english_values.difference(values) {
                problems.push(format!("{name}: `{id}` leaves out {{ ${lost} }}"));
            }
        }
        for id in translated.keys().filter(|id| !english.contains_key(*id)) {
            problems.push(format!("{name} has `{id}`, which English does not"));
        }
        problems
    }

    #[test]
    fn a_language_is_chosen_by_the_primary_subtag_and_defaults_to_english() {
        assert_eq!(Lang::from_code(Some("de")), Lang::De);
        assert_eq!(Lang::from_code(Some("de-AT")), Lang::De);
        assert_eq!(Lang::from_code(Some("RU")), Lang::Ru);
        assert_eq!(Lang::from_code(Some("es_MX")), Lang::Es);
        assert_eq!(Lang::from_code(Some("fr-CA")), Lang::Fr);
        assert_eq!(Lang::from_code(Some("en-GB")), Lang::En);
        assert_eq!(Lang::from_code(Some("pt-br")), Lang::En);
        assert_eq!(Lang::from_code(Some("ja")), Lang::En);
        assert_eq!(Lang::from_code(Some("deu")), Lang::En);
        assert_eq!(Lang::from_code(Some("")), Lang::En);
        assert_eq!(Lang::from_code(None), Lang::En);
    }

    #[test]
    fn a_language_asked_for_by_name_must_be_one_the_bot_speaks() {
        assert_eq!(Lang::parse("de"), Ok(Lang::De));
        assert_eq!(Lang::parse(" FR "), Ok(Lang::Fr));
        assert_eq!(
            Lang::parse("ja").unwrap_err().to_string(),
            "unknown language \"ja\": the bot speaks en, de, es, fr, ru"
        );
    }

    #[test]
    fn every_language_file_parses_without_errors() {
        for lang in Lang::ALL {
            if let Err((_, errors)) = FluentResource::try_new(lang.source().to_owned()) {
                panic!("{}.ftl: {errors:?}", lang.code());
            }
        }
    }

    #[test]
    fn every_language_has_every_english_message_with_the_same_values() {
        let problems: Vec<String> = Lang::ALL
            .into_iter()
            .skip(1)
            .flat_map(|lang| coverage_problems(&format!("{}.ftl", lang.code()), lang.source()))
            .collect();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_coverage_check_names_a_missing_message_and_a_value_english_lacks() {
        let translated = "forgot = Vergessen: { $notiz }\nforget-usage = Welche Notiz?\n";
        let problems = coverage_problems("de.ftl", translated);
        assert!(problems.contains(&"de.ftl lacks `help-intro`".to_owned()));
        assert!(problems.contains(
            &"de.ftl: `forgot` uses { $notiz }, which the English message does not".to_owned()
        ));
        assert!(problems.contains(&"de.ftl: `forgot` leaves out { $note }".to_owned()));
        assert!(
            !problems
                .iter()
                .any(|problem| problem.contains("`forget-usage`"))
        );
    }

    #[test]
    fn a_message_missing_from_a_language_falls_back_to_english() {
        let catalog = Catalog::build(|lang| match lang {
            Lang::De => "reset-done = Neue Sitzung begonnen.\n",
            other => other.source(),
        });
        assert_eq!(
            catalog.text(Lang::De, "reset-done", None),
            "Neue Sitzung begonnen."
        );
        assert_eq!(
            catalog.text(Lang::De, "clear-cancelled", None),
            "Nothing was deleted."
        );
        assert_eq!(catalog.text(Lang::De, "no-such-id", None), MISSING_MARK);
    }

    #[test]
    fn values_fill_their_placeholders_without_isolation_marks() {
        let text = text(Lang::En, "forgot", [("note", "likes tea".into())]);
        assert_eq!(text, "Forgotten: likes tea");
    }

    #[test]
    fn plurals_take_the_form_of_the_number() {
        let days = |lang: Lang, count: u64| text(lang, "duration-days", [("count", count.into())]);
        assert_eq!(days(Lang::En, 1), "1 day");
        assert_eq!(days(Lang::En, 30), "30 days");
        assert_eq!(days(Lang::Ru, 1), "1 день");
        assert_eq!(days(Lang::Ru, 2), "2 дня");
        assert_eq!(days(Lang::Ru, 5), "5 дней");
        assert_eq!(days(Lang::Ru, 11), "11 дней");
        assert_eq!(days(Lang::Ru, 21), "21 день");
        assert_eq!(days(Lang::Ru, 24), "24 дня");
        assert_eq!(days(Lang::De, 1), "1 Tag");
        assert_eq!(days(Lang::De, 7), "7 Tage");
        assert_eq!(days(Lang::Fr, 0), "0 jour");
        assert_eq!(days(Lang::Es, 0), "0 días");
    }
}
