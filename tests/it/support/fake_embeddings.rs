//! A fake embedding server on 127.0.0.1: OpenAI-compatible `POST /v1/embeddings`, deterministic
//! and fast, so that tests and the memory evaluation in CI can exercise recall by meaning without
//! a model. Point `EMBEDDING_BASE_URL` at [`FakeEmbeddings::base_url`].
//!
//! A text's vector is a bag of concepts: each word (lowercased, split on anything not
//! alphanumeric; short and filler words left out) counts for its concept in [`CONCEPTS`] when it
//! starts with one of that concept's stems (or is one, for stems of up to three characters),
//! otherwise for a bucket chosen by hashing the word, so texts sharing words are similar too.
//! Paraphrases are similar exactly when the table says their words mean the same thing. The
//! table stands in for a real model's judgement: it knows the paraphrases of the tests and of
//! the memory evaluation because it was written with them, so it shows that recall by meaning
//! works once the model sees the likeness, not that a model sees it. How often a real model
//! does is measured separately (the evaluation with `EVAL_EMBEDDING_BASE_URL`,
//! docs/PERFORMANCE.md).
//!
//! Faults can be switched on: a delay before every answer, or an HTTP status instead of one.
//! Every request is counted, and the texts and the model each request named are recorded.

use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// Dimensions of every vector: one per concept, then the hash buckets.
pub const DIMENSIONS: usize = CONCEPTS.len() + HASH_BUCKETS;

/// Buckets for words of no concept. Their number stays the same when concepts are added, so
/// that two such words share a bucket exactly when they did before.
const HASH_BUCKETS: usize = 246;

/// Groups of word stems that mean the same thing, in the languages the tests and the memory
/// evaluations use (`eval/meaning_templates.rs`, `long_eval/languages.rs`,
/// `multilingual_eval/languages.rs`): written together
/// with their paraphrases, to
/// say which words a real model would take as close in meaning. A word belongs to the first
/// concept with a stem it starts with.
pub const CONCEPTS: &[&[&str]] = &[
    &[
        "dermatolog",
        "skin",
        "mole",
        "haut",
        "leberfleck",
        "dermatólog",
        "piel",
        "lunar",
        "peau",
        "grain",
        "кожа",
        "коже",
        "кожу",
        "дерматолог",
        "родинк",
    ],
    &[
        "doctor",
        "dr",
        "specialist",
        "arzt",
        "ärzt",
        "spezialist",
        "médic",
        "especialista",
        "médecin",
        "docteur",
        "spécialist",
        "врач",
        "доктор",
        "специалист",
    ],
    &[
        "plumb",
        "sink",
        "leak",
        "pipe",
        "tap",
        "drip",
        "bathroom",
        "klempner",
        "waschbecken",
        "tropf",
        "wasserhahn",
        "leck",
        "fontaner",
        "lavabo",
        "gote",
        "grifo",
        "baño",
        "plombier",
        "évier",
        "fuit",
        "robinet",
        "bain",
        "goutt",
        "сантехник",
        "раковин",
        "течё",
        "протеч",
        "ванн",
        "капа",
        "кран",
    ],
    &[
        "wifi",
        "wi",
        "fi",
        "internet",
        "online",
        "router",
        "network",
        "key",
        "connect",
        "wlan",
        "password",
        "passwort",
        "netz",
        "contraseña",
        "clave",
        "red",
        "conect",
        "passe",
        "réseau",
        "clé",
        "пароль",
        "вайфа",
        "интернет",
        "подключ",
        "ключ",
        "сети",
        "сеть",
    ],
    &[
        "cabin",
        "hut",
        "cottage",
        "holiday",
        "weekend",
        "hideaway",
        "hütte",
        "ferienhaus",
        "ferienhäus",
        "wochenendh",
        "cabaña",
        "casita",
        "vacacion",
        "refug",
        "chalet",
        "vacance",
        "дача",
        "даче",
        "загород",
        "домик",
    ],
    &[
        "address",
        "live",
        "lives",
        "living",
        "moved",
        "move",
        "street",
        "road",
        "adresse",
        "wohne",
        "umgezogen",
        "dirección",
        "vivo",
        "calle",
        "mudad",
        "habite",
        "rue",
        "déménag",
        "адрес",
        "живу",
        "улиц",
        "переех",
    ],
    &[
        "appointment",
        "cancel",
        "termin",
        "absag",
        "cita",
        "rendez",
        "запис",
    ],
    &[
        "laptop",
        "computer",
        "notebook",
        "ordenador",
        "portátil",
        "ordinateur",
        "ноутбук",
    ],
    &[
        "call",
        "phone",
        "number",
        "mobile",
        "ring",
        "reach",
        "anrufen",
        "telefon",
        "nummer",
        "handy",
        "erreich",
        "llam",
        "número",
        "móvil",
        "teléfon",
        "localiz",
        "appel",
        "numéro",
        "portable",
        "téléphon",
        "joindre",
        "contact",
        "позвонить",
        "звон",
        "вызв",
        "номер",
        "мобильн",
        "телефон",
        "связ",
    ],
    &["dentist", "zahnarzt", "dentista", "dentiste", "стоматолог"],
    // The long-conversation evaluation (`long_eval/languages.rs`). A word takes the first
    // concept it matches: "Kindheit" is childhood here, before "kind" (child) below.
    &[
        "sister",
        "sibling",
        "schwester",
        "geschwister",
        "herman",
        "сестр",
        "сестрё",
    ],
    &[
        "puppy",
        "dog",
        "hound",
        "beagle",
        "welpe",
        "hund",
        "hünd",
        "cachorr",
        "perr",
        "щено",
        "щенк",
        "собак",
        "собач",
        "пёс",
        "бигл",
    ],
    &[
        "gym",
        "fitness",
        "training",
        "trainier",
        "gimnas",
        "entren",
        "спортзал",
        "фитнес",
        "тренаж",
        "тренир",
    ],
    &[
        "locker",
        "cupboard",
        "spind",
        "schrank",
        "taquill",
        "casiller",
        "шкафч",
        "ячейк",
    ],
    &[
        "code",
        "digit",
        "combination",
        "kombination",
        "ziffer",
        "código",
        "cifra",
        "dígito",
        "код",
        "цифр",
        "шифр",
    ],
    &[
        "grew",
        "grow",
        "raised",
        "aufgewachsen",
        "kindheit",
        "crió",
        "crec",
        "infancia",
        "выросл",
        "детств",
    ],
    &[
        "daughter",
        "child",
        "kid",
        "tochter",
        "kind",
        "hija",
        "niña",
        "niño",
        "дочк",
        "дочь",
        "дочер",
        "ребён",
        "ребен",
    ],
    &[
        "piano",
        "music",
        "klavier",
        "musik",
        "músic",
        "фортепиано",
        "пианино",
        "музык",
    ],
    &[
        "teacher",
        "teach",
        "lesson",
        "lehrer",
        "unterricht",
        "profesor",
        "clase",
        "учител",
        "урок",
        "преподав",
    ],
    &[
        "allerg",
        "reaction",
        "itch",
        "reakti",
        "juck",
        "verträg",
        "reacci",
        "alérg",
        "alerg",
        "аллерг",
        "реакци",
        "чешет",
    ],
    &[
        "pilot",
        "aviator",
        "airman",
        "flieger",
        "aviador",
        "лётчик",
        "летчик",
        "пилот",
    ],
    &[
        "downstairs",
        "below",
        "beneath",
        "unten",
        "tiefer",
        "abajo",
        "debajo",
        "снизу",
        "ниже",
    ],
    &["neighbo", "nachbar", "vecin", "сосед"],
    &[
        "author",
        "writer",
        "autor",
        "schriftsteller",
        "escritora",
        "escritores",
        "писател",
        "автор",
    ],
    &[
        "grandm",
        "granny",
        "großmutter",
        "grossmutter",
        "oma",
        "abuel",
        "бабушк",
        "mother",
        "mutter",
        "madre",
        "мамин",
    ],
    &[
        "village",
        "town",
        "hamlet",
        "dorf",
        "ort",
        "puebl",
        "aldea",
        "деревн",
        "село",
        "селе",
    ],
    &[
        "saving",
        "save",
        "money",
        "aside",
        "spare",
        "sparen",
        "gespart",
        "geld",
        "ahorr",
        "dinero",
        "guard",
        "копл",
        "откладыва",
        "деньг",
    ],
    &[
        "trip",
        "travel",
        "destination",
        "journey",
        "reise",
        "ziel",
        "viaje",
        "destino",
        "поездк",
        "путешеств",
    ],
    // The multilingual evaluation (`multilingual_eval/languages.rs`). Its words that an earlier
    // concept takes ("code", "digits", "live", "address") stay there; these stems take none of the other
    // tests' words. The padlock comes before the bicycle: "Fahrradschloss" is the lock.
    &[
        "hairdress",
        "hair",
        "barber",
        "friseur",
        "haar",
        "peluquer",
        "pelo",
        "coiffeu",
        "cheveu",
        "парикмахер",
        "волос",
        "стриж",
        "parrucch",
        "capell",
    ],
    &[
        "wedding",
        "married",
        "marry",
        "hochzeit",
        "heirat",
        "boda",
        "casam",
        "mariage",
        "marie",
        "свадьб",
        "пожен",
        "matrimoni",
        "sposiam",
    ],
    &[
        "tomcat",
        "kitty",
        "katze",
        "kater",
        "stubentiger",
        "gata",
        "gato",
        "minin",
        "matou",
        "félin",
        "felin",
        "кошк",
        "кот",
        "питом",
        "gatt",
        "micia",
        "micio",
    ],
    &[
        "padlock",
        "fahrradschl",
        "radschl",
        "candado",
        "cierre",
        "cadenas",
        "antivol",
        "замк",
        "замок",
        "велозам",
        "lucchett",
        "blocco",
        "combinaci",
        "combinazion",
        "комбинац",
    ],
    &["bicycl", "fahrrad", "bici", "vélo", "велосипед", "велик"],
    &[
        "landlord",
        "rent",
        "vermiet",
        "miete",
        "caser",
        "alquil",
        "propriétaire",
        "loyer",
        "арендодател",
        "хозяин",
        "аренд",
        "padron",
        "affitt",
    ],
    &[
        "swim",
        "laps",
        "schwimm",
        "bahnen",
        "nado",
        "nadar",
        "largos",
        "nage",
        "longueur",
        "плава",
        "бассейн",
        "nuot",
        "vasche",
    ],
    // Where an Italian lives: the address concept above has no Italian.
    &["abito", "indirizz", "trasferit"],
];

/// What the server does with requests.
#[derive(Clone, Copy, Debug, Default)]
struct Faults {
    delay_ms: u64,
    status: u16,
}

#[derive(Default)]
struct Shared {
    delay_ms: AtomicU64,
    status: AtomicU16,
    requests: AtomicUsize,
    texts: Mutex<Vec<String>>,
    models: Mutex<Vec<String>>,
}

impl Shared {
    fn faults(&self) -> Faults {
        Faults {
            delay_ms: self.delay_ms.load(Ordering::SeqCst),
            status: self.status.load(Ordering::SeqCst),
        }
    }
}

/// A running fake embedding server; stops when dropped.
pub struct FakeEmbeddings {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for FakeEmbeddings {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeEmbeddings {
    pub async fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/embeddings", post(embeddings))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake embedding server");
        let address = listener.local_addr().expect("its address");
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serve embeddings");
        });
        Self {
            base_url: format!("http://{address}/v1"),
            shared,
            server,
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Every answer waits this long first.
    pub fn set_delay(&self, delay: Duration) {
        let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
        self.shared.delay_ms.store(millis, Ordering::SeqCst);
    }

    /// Every request fails with this HTTP status (0: answer normally).
    pub fn set_failing_status(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }

    /// Requests received so far, answered or not.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// The model each answered request named, in order.
    pub fn models(&self) -> Vec<String> {
        self.shared
            .models
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Every text received so far, in order.
    pub fn texts(&self) -> Vec<String> {
        self.shared
            .texts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

async fn embeddings(State(shared): State<Arc<Shared>>, body: axum::Json<Value>) -> Response {
    shared.requests.fetch_add(1, Ordering::SeqCst);
    let faults = shared.faults();
    if faults.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(faults.delay_ms)).await;
    }
    if faults.status != 0 {
        let status = StatusCode::from_u16(faults.status).unwrap_or(StatusCode::BAD_GATEWAY);
        return (status, "failing on purpose").into_response();
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => return (StatusCode::BAD_REQUEST, "input must be text").into_response(),
    };
    shared
        .texts
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .extend(inputs.iter().cloned());
    shared
        .models
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(body["model"].as_str().unwrap_or_default().to_owned());
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({ "object": "embedding", "index": index, "embedding": embed(text) }))
        .collect();
    axum::Json(json!({ "object": "list", "data": data, "model": body["model"] })).into_response()
}

/// The fake model's vector of `text` (not normalized: the client scales it).
pub fn embed(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0_f32; DIMENSIONS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 2)
    {
        let word = word.to_lowercase();
        if let Some(dimension) = dimension(&word) {
            vector[dimension] += 1.0;
        }
    }
    vector
}

/// Words a real model gives little weight: short ones and common longer ones.
const FILLER: &[&str] = &[
    // English
    "what",
    "when",
    "where",
    "which",
    "with",
    "that",
    "this",
    "have",
    "your",
    "there",
    "about",
    "from",
    "again",
    "would",
    "could",
    "should",
    "they",
    "them",
    "were",
    "will",
    "just",
    "does",
    "whom",
    "these",
    "someone",
    "want",
    // German
    "mein",
    "meine",
    "meinen",
    "meiner",
    "nochmal",
    "welche",
    "welcher",
    "welchen",
    "unserem",
    "wieder",
    "jetzt",
    "wegen",
    "einen",
    "lassen",
    "habe",
    "kann",
    "wenn",
    "soll",
    "gehe",
    "muss",
    "beim",
    "mich",
    "zurzeit",
    "neue",
    "neues",
    // Spanish
    "quién",
    "cómo",
    "cuál",
    "quiero",
    "nuestra",
    "nuestro",
    "ahora",
    "dónde",
    "tengo",
    "nuevo",
    "nueva",
    "pueden",
    "vuelve",
    // French
    "quelle",
    "pour",
    "chez",
    "veux",
    "faire",
    "vais",
    "encore",
    "dans",
    "notre",
    "maintenant",
    "nouvelle",
    "nouveau",
    "quoi",
    "peut",
    "comment",
    "déjà",
    // Russian
    "моего",
    "какому",
    "какой",
    "хочу",
    "кому",
    "если",
    "опять",
    "кого",
    "нашем",
    "сейчас",
    "новый",
    "меня",
    "теперь",
    "мной",
];

/// Stems of up to three characters ("dr", "wi") are whole words; longer ones are prefixes.
fn stem_matches(stem: &str, word: &str) -> bool {
    if stem.chars().count() <= 3 {
        word == stem
    } else {
        word.starts_with(stem)
    }
}

fn dimension(word: &str) -> Option<usize> {
    let concept = CONCEPTS
        .iter()
        .position(|stems| stems.iter().any(|stem| stem_matches(stem, word)));
    match concept {
        Some(concept) => Some(concept),
        None if word.chars().count() < 4 || FILLER.contains(&word) => None,
        None => {
            // FNV-1a, so the bucket is the same on every run and platform.
            let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            });
            Some(CONCEPTS.len() + (hash % HASH_BUCKETS as u64) as usize)
        }
    }
}
