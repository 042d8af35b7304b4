//! A stand-in for a modest real model, answering the fake LLM's requests in the memory
//! evaluation and the memory privacy specifications. It is deliberately imperfect where real
//! models are: its session summary keeps only the person's few most informative lines, and its
//! notes are the sentences where the person states something lasting about themselves,
//! recognised by a few phrases per language. A statement about the same subject as a note it
//! has (where they work, where they live, what to call them) replaces that note and says what it
//! replaced, `- I moved to Leipzig. (was: I live in Hamburg.)`, as the summarizer prompt asks.

use serde_json::Value;
use telemem::memory::summary::information_score;

/// How the summarizer's system prompt starts (`src/prompts/summarize.md`).
const SUMMARIZER_PROMPT_START: &str = "You write the memory of a chat assistant";

/// A summary keeps at most this many of the person's lines: a real model loses details.
const SUMMARY_MAX_LINES: usize = 4;

/// The summary is cut here, as the summarizer prompt asks for at most ~600 characters.
const SUMMARY_MAX_CHARS: usize = 600;

/// Phrases (lowercase) with which people state lasting preferences or facts about themselves.
const NOTE_MARKERS: &[&str] = &[
    // English
    "always",
    "i prefer",
    "my company is",
    "i work at",
    "call me",
    // German
    "immer",
    "ich arbeite",
    "meine firma",
    "nenn mich",
    "ich bevorzuge",
    // Spanish
    "siempre",
    "trabajo en",
    "mi empresa",
    "prefiero",
    "llámame",
    // French
    "toujours",
    "je travaille",
    "mon entreprise",
    "je préfère",
    "appelle-moi",
    // Russian
    "всегда",
    "я работаю",
    "моя компания",
    "предпочитаю",
    "зови меня",
];

/// Subjects a person's lasting statements are about, by the phrases that state them: two
/// statements of one group say the same thing, and the later one changes the earlier. Each phrase
/// marks a note too.
const SUBJECTS: &[&[&str]] = &[
    &[
        "i work at",
        "my company is",
        "ich arbeite",
        "meine firma",
        "trabajo en",
        "mi empresa",
        "je travaille",
        "mon entreprise",
        "я работаю",
        "моя компания",
    ],
    &[
        "i live at",
        "i live in",
        "i moved",
        "my new address",
        "ich wohne",
        "ich bin umgezogen",
        "meine neue adresse",
        "vivo en",
        "me he mudado",
        "me mudé",
        "mi nueva dirección",
        "j'habite",
        "j'ai déménagé",
        "ma nouvelle adresse",
        "я живу",
        "я переехал",
        "мой новый адрес",
    ],
    &[
        "my mobile number",
        "i got a new phone",
        "meine handynummer",
        "ein neues telefon",
        "mi número de móvil",
        "tengo teléfono nuevo",
        "mon numéro de portable",
        "un nouveau téléphone",
        "мой мобильный номер",
        "у меня новый телефон",
    ],
    &[
        "call me",
        "nenn mich",
        "llámame",
        "appelle-moi",
        "зови меня",
    ],
];

/// The subject group of a statement, if it names one.
fn subject_of(sentence: &str) -> Option<usize> {
    let lowered = sentence.to_lowercase();
    SUBJECTS
        .iter()
        .position(|phrases| phrases.iter().any(|phrase| lowered.contains(phrase)))
}

/// The answer to one request body (OpenAI dialect: the system prompt is the first message).
pub fn respond(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let content_of = |role: &str| -> Vec<String> {
        messages
            .iter()
            .filter(|message| message["role"] == role)
            .filter_map(|message| message["content"].as_str().map(str::to_owned))
            .collect()
    };
    let system = content_of("system").concat();
    let last_user = content_of("user").pop().unwrap_or_default();
    if system.starts_with(SUMMARIZER_PROMPT_START) {
        summarize(&last_user)
    } else {
        chat_reply(&last_user)
    }
}

/// The summarizer's answer in the documented `SUMMARY:` / `NOTES:` format.
fn summarize(request: &str) -> String {
    let transcript = between(request, "<session>", "</session>");
    let person_lines: Vec<(&str, &str)> = transcript
        .lines()
        .filter_map(|line| {
            let (stamp, rest) = line.strip_prefix('[')?.split_once("] ")?;
            Some((stamp, rest.strip_prefix("Person: ")?))
        })
        .collect();

    let mut scored: Vec<(usize, usize)> = person_lines
        .iter()
        .enumerate()
        .map(|(position, (_, text))| (information_score(text), position))
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut kept: Vec<usize> = scored
        .into_iter()
        .take(SUMMARY_MAX_LINES)
        .map(|(_, position)| position)
        .collect();
    kept.sort_unstable();
    let date = person_lines
        .first()
        .map_or("", |(stamp, _)| stamp.split(' ').next().unwrap_or(""));
    let said: Vec<&str> = kept.iter().map(|&i| person_lines[i].1).collect();
    let summary = if said.is_empty() {
        format!("On {date}: small talk.")
    } else {
        format!("On {date} the person said: {}", said.join(" "))
    };

    let mut notes: Vec<String> = between(request, "<existing_notes>", "</existing_notes>")
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .filter(|note| *note != "none")
        .map(str::to_owned)
        .collect();
    for (_, text) in &person_lines {
        for sentence in sentences(text) {
            let lowered = sentence.to_lowercase();
            let states = NOTE_MARKERS.iter().any(|marker| lowered.contains(marker))
                || subject_of(sentence).is_some();
            // A question ("J'habite où maintenant ?") states nothing.
            if states && !sentence.ends_with('?') && !notes.iter().any(|note| note == sentence) {
                add_note(&mut notes, sentence);
            }
        }
    }
    let notes = if notes.is_empty() {
        "- none".to_owned()
    } else {
        notes
            .iter()
            .map(|note| format!("- {note}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "SUMMARY:\n{}\n\nNOTES:\n{notes}",
        cut(&summary, SUMMARY_MAX_CHARS)
    )
}

/// Adds `sentence` to the notes, in place of a note about the same subject, marked with what it
/// replaced.
fn add_note(notes: &mut Vec<String>, sentence: &str) {
    let subject = subject_of(sentence);
    let replaced = notes.iter().position(|note| {
        subject.is_some() && subject_of(note) == subject && note.as_str() != sentence
    });
    match replaced {
        Some(index) => {
            let old = notes[index]
                .split(" (was: ")
                .next()
                .unwrap_or_default()
                .to_owned();
            notes[index] = format!("{sentence} (was: {old})");
        }
        None => notes.push(sentence.to_owned()),
    }
}

/// The sentences of a message, split after `.`, `!` or `?` followed by a space.
fn sentences(text: &str) -> Vec<&str> {
    let mut result = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (index, byte) in bytes.iter().enumerate() {
        let ends = matches!(byte, b'.' | b'!' | b'?')
            && bytes.get(index + 1).is_none_or(|next| *next == b' ');
        if ends {
            result.push(text[start..=index].trim());
            start = index + 1;
        }
    }
    if start < text.len() {
        result.push(text[start..].trim());
    }
    result.retain(|sentence| !sentence.is_empty());
    result
}

/// A short, plausible reply in the person's language; it repeats none of their facts, so a
/// referent can only reach a later prompt through memory.
fn chat_reply(last_user: &str) -> String {
    let replies: [&str; 3] = match language_of(last_user) {
        "ru" => [
            "Понял, спасибо. Если нужно, помогу разобраться с этим подробнее.",
            "Конечно, с этим я помогу. Скажи, если нужны подробности.",
            "Хорошо, записал. Что-нибудь ещё?",
        ],
        "es" => [
            "Entendido, gracias por avisar. Si quieres, te ayudo con los siguientes pasos.",
            "Claro, te ayudo con eso. Dime si necesitas más detalles.",
            "Vale, anotado. ¿Algo más?",
        ],
        "de" => [
            "Alles klar, danke für den Hinweis. Wenn du willst, helfe ich dir bei den nächsten Schritten.",
            "Gern, da helfe ich dir. Sag Bescheid, wenn du mehr Details brauchst.",
            "Okay, verstanden. Sonst noch etwas?",
        ],
        "fr" => [
            "C'est noté, merci. Si tu veux, je t'aide pour la suite.",
            "Bien sûr, je t'aide volontiers. Dis-moi s'il te faut plus de détails.",
            "D'accord, compris. Autre chose ?",
        ],
        _ => [
            "Got it, thanks for letting me know. If you like, I can help with the next steps.",
            "Sure, happy to help with that. Tell me if you need more details.",
            "Okay, noted. Anything else?",
        ],
    };
    replies[last_user.len() % replies.len()].to_owned()
}

/// A rough guess of the language of `text`, enough to answer in it.
fn language_of(text: &str) -> &'static str {
    let lowered = format!(" {} ", text.to_lowercase());
    let has_any = |needles: &[&str]| needles.iter().any(|needle| lowered.contains(needle));
    if text.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c)) {
        "ru"
    } else if has_any(&["¿", "¡", "ñ", " el ", " los ", " mi ", " que ", " es "]) {
        "es"
    } else if has_any(&[
        "ä", "ö", "ü", "ß", " ich ", " ist ", " und ", " der ", " die ", " das ",
    ]) {
        "de"
    } else if has_any(&[
        " je ", " le ", " la ", " les ", " est ", " mon ", " ma ", "ç", "é", "è",
    ]) {
        "fr"
    } else {
        "en"
    }
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let Some(start) = text.find(open).map(|at| at + open.len()) else {
        return "";
    };
    let end = text[start..]
        .find(close)
        .map_or(text.len(), |at| start + at);
    &text[start..end]
}

fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max_chars - 1).collect();
    cut.push('…');
    cut
}
