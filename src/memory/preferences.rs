//! Standing preferences: a sentence in which the person tells the bot how to behave from now on
//! ("Antworte mir ab jetzt bitte immer auf Englisch", "From now on, call me Sam"). Such a
//! sentence holds until the person takes it back, whatever the next messages are about, so it
//! cannot wait for the summarizer's model to note it (a small local model will not always) nor
//! compete for relevance with every later question: the turn that receives it keeps it as the
//! person's own note (`conversation/turn.rs`), which every prompt carries and `/memory` shows,
//! and `/forget` takes back.
//!
//! Recognised in the languages of the stop-word lists and Italian and Portuguese: a sentence
//! holding a word of lasting time ("from now on", "always", "ab jetzt", "siempre", "désormais",
//! "отныне", …) and a request addressed to the bot ("answer", "antworte", "responde",
//! "réponds", "отвечай", …). English verbs are also the forms of statements ("I always answer
//! emails at night", "she's always with me while I write"), so an English request must open the
//! sentence ("Always answer in English") or be asked for ("please", "can you", "you should"). Pure text rules: no model call, nothing stored here.

use crate::memory::relevance::sentences;

/// Words and phrases of lasting time, lowercased, matched within the sentence.
const LASTING: &[&str] = &[
    // English
    "from now on",
    "always",
    "never",
    "going forward",
    "in future",
    "in the future",
    "from today",
    "stop ",
    // German
    "ab jetzt",
    "von nun an",
    "ab sofort",
    "ab heute",
    "künftig",
    "in zukunft",
    "immer",
    "nie ",
    "niemals",
    // Spanish
    "a partir de ahora",
    "de ahora en adelante",
    "desde ahora",
    "siempre",
    "nunca",
    // French
    "à partir de maintenant",
    "désormais",
    "dorénavant",
    "toujours",
    "jamais",
    "à l'avenir",
    // Russian
    "отныне",
    "с этого момента",
    "с этого дня",
    "с сегодняшнего дня",
    "впредь",
    "всегда",
    "никогда",
    // Italian
    "d'ora in poi",
    "da ora in poi",
    "d'ora in avanti",
    "da adesso",
    "sempre",
    "mai ",
    // Portuguese
    "a partir de agora",
    "de agora em diante",
    "daqui em diante",
];

/// Requests addressed to the bot, lowercased: a word starting with one, or with a trailing
/// space exactly that word, or a phrase of several words.
const REQUESTS: &[&str] = &[
    // English (see ENGLISH_REQUESTS)
    "answer",
    "reply",
    "respond",
    "write",
    "call me",
    "address me",
    "talk to me",
    "speak to me",
    "speak",
    "use",
    "keep your",
    "keep it",
    "give me",
    "format",
    "refer to me",
    // German
    "antworte ",
    "antworte mir",
    "antworten sie",
    "schreib ",
    "schreib mir",
    "sprich ",
    "nenn mich",
    "nenne mich",
    "nennen sie mich",
    "duz",
    "sieze",
    "verwende ",
    "benutze ",
    "gib mir",
    "fass dich",
    "halte ",
    "halt dich",
    "mach deine",
    "formuliere",
    // Spanish
    "respóndeme",
    "responde en",
    "contéstame",
    "contesta en",
    "escríbeme",
    "escribe en",
    "háblame",
    "habla en",
    "llámame",
    "tutéame",
    "usa ",
    "dame ",
    "hazme",
    "haz tus",
    // French
    "réponds-moi",
    "répondez-moi",
    "réponds en",
    "répondez en",
    "écris-moi",
    "écrivez-moi",
    "parle-moi",
    "parlez-moi",
    "appelle-moi",
    "appelez-moi",
    "utilise ",
    "tutoie",
    "vouvoie",
    "donne-moi",
    "fais-moi",
    "faites-moi",
    "fais-moi",
    "faites-moi",
    // Russian
    "отвечай",
    "ответь",
    "пиши ",
    "пишите ",
    "говори ",
    "говорите ",
    "называй",
    "обращайся",
    "обращайтесь",
    "используй",
    "делай",
    "держи",
    // Italian
    "rispondi",
    "scrivimi",
    "scrivi in",
    "parlami",
    "chiamami",
    "dammi",
    "fammi",
    // Portuguese
    "responda",
    "responde-me",
    "escreva",
    "fale ",
    "me chame",
    "chame-me",
    "faça",
];

/// The first English requests: their verbs are also statements' verbs.
const ENGLISH_REQUESTS: usize = 15;

/// What makes an English sentence speak to the bot when the request is not its first word.
const ENGLISH_ADDRESS: &[&str] = &[
    " please",
    "you should",
    "you must",
    "can you",
    "could you",
    "would you",
    "you'll",
    "you will",
    "i want you",
    "i'd like you",
    "i would like you",
];

/// Words that may stand before a request that still opens the sentence ("From now on, answer
/// in English").
const OPENING_WORDS: &[&str] = &[
    "from", "now", "on", "always", "never", "going", "forward", "just",
];

/// Notes are one line of at most this many characters.
const NOTE_MAX_CHARS: usize = crate::memory::summary::NOTE_MAX_CHARS;

/// The sentences of `text` that state a standing preference, as notes: each trimmed, one line,
/// at most a note's length. Empty for anything else.
pub fn standing_preferences(text: &str) -> Vec<String> {
    sentences(text)
        .into_iter()
        .filter(|sentence| is_standing_preference(sentence))
        .map(|sentence| {
            let line = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
            line.chars().take(NOTE_MAX_CHARS).collect()
        })
        .collect()
}

fn is_standing_preference(sentence: &str) -> bool {
    let lower = format!(" {} ", sentence.to_lowercase());
    if !LASTING.iter().any(|lasting| lower.contains(lasting)) {
        return false;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|word| !word.is_empty())
        .collect();
    REQUESTS.iter().enumerate().any(|(index, request)| {
        match requested_at(&lower, &words, request) {
            None => false,
            Some(_) if index >= ENGLISH_REQUESTS => true,
            Some(position) => {
                position == 0
                    || ENGLISH_ADDRESS
                        .iter()
                        .any(|address| lower.contains(address))
            }
        }
    })
}

/// Where `request` is in the sentence, by its first word's number (0 when only
/// [`OPENING_WORDS`] come before it); `None` if nowhere.
fn requested_at(lower: &str, words: &[&str], request: &str) -> Option<usize> {
    let word = request.trim_end();
    let position = if word.contains(' ') {
        let at = lower.find(&format!(" {word}"))?;
        lower[..at].split_whitespace().count()
    } else if word.len() < request.len() {
        words.iter().position(|candidate| *candidate == word)?
    } else {
        words
            .iter()
            .position(|candidate| candidate.starts_with(word))?
    };
    let opens = words
        .iter()
        .take(position)
        .all(|before| OPENING_WORDS.contains(before));
    Some(if opens { 0 } else { position })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lasting_requests_are_recognised_in_every_language() {
        for text in [
            "Antworte mir ab jetzt bitte immer auf Englisch",
            "From now on, answer me in English please.",
            "Please always reply in short sentences.",
            "Could you always answer in English from now on?",
            "Always call me Sam.",
            "A partir de ahora respóndeme siempre en español.",
            "Désormais, réponds-moi toujours en français.",
            "Отныне отвечай мне всегда по-русски.",
            "D'ora in poi rispondimi sempre in italiano.",
            "A partir de agora responda sempre em português.",
            "Halte deine Antworten ab jetzt bitte kurz, höchstens drei Sätze.",
            "Désormais, fais-moi des réponses courtes, trois phrases au maximum.",
            "С этого дня отвечай мне коротко, максимум три предложения.",
            "A partir de ahora dame respuestas cortas, como mucho tres frases.",
            "D'ora in poi dammi risposte brevi, al massimo tre frasi.",
            "Please keep your answers short from now on, three sentences at most.",
        ] {
            assert_eq!(standing_preferences(text).len(), 1, "{text}");
        }
    }

    #[test]
    fn statements_and_one_off_requests_are_not_preferences() {
        for text in [
            "I always answer my emails at night.",
            "My sister never writes back.",
            "Answer me in English, what is a parcel locker?",
            "Wir antworten immer schnell auf Anfragen.",
            "Siempre voy al gimnasio los lunes.",
            "I named her Tilly, and she's always with me while I write.",
            "The flavors always remind me of the conversations we used to have at the table.",
            "Chilling with friends and traveling always give me motivation to work further.",
            "Ayer vi un documental sobre ballenas…",
            "",
        ] {
            assert!(standing_preferences(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn only_the_sentence_that_states_it_becomes_the_note() {
        assert_eq!(
            standing_preferences(
                "Danke für die Hilfe! Antworte mir ab jetzt bitte immer auf Englisch. Bis morgen."
            ),
            ["Antworte mir ab jetzt bitte immer auf Englisch."]
        );
        let long = format!("Please always answer in English {}", "and more ".repeat(40));
        assert!(standing_preferences(&long)[0].chars().count() <= NOTE_MAX_CHARS);
    }
}
