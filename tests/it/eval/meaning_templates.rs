//! The templates of the probes that need recall by meaning, one set per language: facts asked
//! back in other words, facts that change, and (German only) compounds asked as phrases and
//! phrases asked as compounds. Same placeholders and rules as `languages.rs`: `{ref}` is the
//! generated value a later probe needs, and no template contains a digit.
//!
//! No template uses a phrase the fake model takes for a lasting note ("always", "I prefer"...,
//! `model.rs`): a note would carry the fact into every prompt, and the probes must show what
//! recall brings back.

use super::languages::TopicKind;

/// A fact asked back days later, once with its own words and twice without them.
pub struct Paraphrased {
    /// How the referent is generated.
    pub kind: TopicKind,
    /// States the fact; contains `{ref}`.
    pub plant: &'static str,
    /// Asks with a word of the fact.
    pub keyword: &'static str,
    /// Ask with no content word of the fact (checked when the scenario is generated).
    pub paraphrases: [&'static str; 2],
}

/// A fact about the person that they change later.
pub struct Change {
    /// How both values are generated.
    pub kind: TopicKind,
    /// States the first value; contains `{ref}`.
    pub plant_old: &'static str,
    /// States the new value; contains `{ref}`.
    pub plant_new: &'static str,
    /// Ask for the current value.
    pub probes: [&'static str; 2],
}

/// A German fact named by a compound and asked by a phrase, or the other way round; the
/// referent is a doctor's name.
pub struct Compound {
    pub plant: &'static str,
    pub probes: [&'static str; 2],
}

pub struct MeaningTemplates {
    pub paraphrased: [Paraphrased; 3],
    pub changes: [Change; 2],
    pub compounds: &'static [Compound],
}

pub const ENGLISH: MeaningTemplates = MeaningTemplates {
    paraphrased: [
        Paraphrased {
            kind: TopicKind::Doctor,
            plant: "My dermatologist is Dr. {ref}, at the practice on the market square.",
            keyword: "What was the name of my dermatologist?",
            paraphrases: [
                "Who is the skin doctor I see?",
                "I want someone to look at a mole, which skin specialist do I go to?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Phone,
            plant: "The plumber's number is {ref}.",
            keyword: "What was the plumber's number again?",
            paraphrases: [
                "Who can I call when the sink leaks again?",
                "The bathroom tap is dripping, whom should I ring?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Wifi,
            plant: "The cabin's wifi password is {ref}.",
            keyword: "What's the wifi password of the cabin?",
            paraphrases: [
                "How do I get my laptop online at our holiday hut?",
                "Which network key do I type in at our weekend hideaway?",
            ],
        },
    ],
    changes: [
        Change {
            kind: TopicKind::Address,
            plant_old: "I live at {ref}, second floor.",
            plant_new: "I moved, my new address is {ref}.",
            probes: ["Where do I live now?", "What's my current address?"],
        },
        Change {
            kind: TopicKind::Phone,
            plant_old: "My mobile number is {ref}.",
            plant_new: "I got a new phone, my number is now {ref}.",
            probes: [
                "How can people reach me by phone these days?",
                "What's my current mobile number?",
            ],
        },
    ],
    compounds: &[],
};

pub const GERMAN: MeaningTemplates = MeaningTemplates {
    paraphrased: [
        Paraphrased {
            kind: TopicKind::Doctor,
            plant: "Meine Dermatologin ist Dr. {ref}, in der Praxis am Marktplatz.",
            keyword: "Wie hieß nochmal meine Dermatologin?",
            paraphrases: [
                "Zu welcher Ärztin gehe ich wegen meiner Haut?",
                "Ich will einen Leberfleck ansehen lassen, welche Hautspezialistin habe ich?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Phone,
            plant: "Die Nummer vom Klempner ist {ref}.",
            keyword: "Wie war nochmal die Nummer vom Klempner?",
            paraphrases: [
                "Wen kann ich anrufen, wenn das Waschbecken wieder tropft?",
                "Der Wasserhahn im Bad leckt, wen soll ich holen?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Wifi,
            plant: "Das WLAN-Passwort der Hütte ist {ref}.",
            keyword: "Wie ist das WLAN-Passwort der Hütte?",
            paraphrases: [
                "Wie bringe ich meinen Laptop in unserem Ferienhäuschen ins Internet?",
                "Welchen Netzwerkschlüssel tippe ich in unserem Wochenendhaus ein?",
            ],
        },
    ],
    changes: [
        Change {
            kind: TopicKind::Address,
            plant_old: "Ich wohne in der {ref}, zweiter Stock.",
            plant_new: "Ich bin umgezogen, meine neue Adresse ist {ref}.",
            probes: ["Wo wohne ich jetzt?", "Wie ist meine aktuelle Adresse?"],
        },
        Change {
            kind: TopicKind::Phone,
            plant_old: "Meine Handynummer ist {ref}.",
            plant_new: "Ich habe ein neues Telefon, meine Nummer ist jetzt {ref}.",
            probes: [
                "Wie erreicht man mich zurzeit telefonisch?",
                "Wie ist meine aktuelle Handynummer?",
            ],
        },
    ],
    compounds: &[
        Compound {
            plant: "Mein Termin beim Hautarzt ist nächsten Dienstag, bei Dr. {ref}.",
            probes: [
                "Bei wem war nochmal der Hautarzttermin?",
                "Ich muss den Hautarzttermin absagen, wer war das?",
            ],
        },
        Compound {
            plant: "Mein Zahnarzttermin ist am Freitag, bei Dr. {ref}.",
            probes: [
                "Bei wem habe ich den Termin beim Zahnarzt?",
                "Wer macht nochmal den Termin beim Zahnarzt?",
            ],
        },
    ],
};

pub const SPANISH: MeaningTemplates = MeaningTemplates {
    paraphrased: [
        Paraphrased {
            kind: TopicKind::Doctor,
            plant: "Mi dermatóloga es la doctora {ref}, en la consulta de la plaza.",
            keyword: "¿Cómo se llamaba mi dermatóloga?",
            paraphrases: [
                "¿Quién es la médica que me revisa la piel?",
                "Quiero que me miren un lunar, ¿a qué especialista de piel voy?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Phone,
            plant: "El número del fontanero es {ref}.",
            keyword: "¿Cuál era el número del fontanero?",
            paraphrases: [
                "¿A quién llamo si el lavabo vuelve a gotear?",
                "El grifo del baño pierde agua, ¿a quién aviso?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Wifi,
            plant: "La contraseña del wifi de la cabaña es {ref}.",
            keyword: "¿Cuál es la contraseña del wifi de la cabaña?",
            paraphrases: [
                "¿Cómo conecto el portátil a internet en nuestra casita de vacaciones?",
                "¿Qué clave de red pongo en nuestro refugio de fin de semana?",
            ],
        },
    ],
    changes: [
        Change {
            kind: TopicKind::Address,
            plant_old: "Vivo en la {ref}, segundo piso.",
            plant_new: "Me he mudado, mi nueva dirección es {ref}.",
            probes: ["¿Dónde vivo ahora?", "¿Cuál es mi dirección actual?"],
        },
        Change {
            kind: TopicKind::Phone,
            plant_old: "Mi número de móvil es {ref}.",
            plant_new: "Tengo teléfono nuevo, ahora mi número es {ref}.",
            probes: [
                "¿Cómo me pueden localizar por teléfono hoy en día?",
                "¿Cuál es mi número de móvil actual?",
            ],
        },
    ],
    compounds: &[],
};

pub const FRENCH: MeaningTemplates = MeaningTemplates {
    paraphrased: [
        Paraphrased {
            kind: TopicKind::Doctor,
            plant: "Ma dermatologue est la docteure {ref}, au cabinet de la place du marché.",
            keyword: "Comment s'appelle ma dermatologue déjà ?",
            paraphrases: [
                "Quelle médecin je vois pour ma peau ?",
                "Je veux faire contrôler un grain de beauté, chez quelle spécialiste de la peau je vais ?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Phone,
            plant: "Le numéro du plombier est {ref}.",
            keyword: "C'était quoi le numéro du plombier ?",
            paraphrases: [
                "Qui j'appelle si l'évier fuit encore ?",
                "Le robinet de la salle de bains goutte, qui je contacte ?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Wifi,
            plant: "Le mot de passe du wifi du chalet est {ref}.",
            keyword: "C'est quoi le mot de passe du wifi du chalet ?",
            paraphrases: [
                "Comment je connecte mon ordinateur à internet dans notre maison de vacances ?",
                "Quelle clé réseau je tape dans notre refuge du week-end ?",
            ],
        },
    ],
    changes: [
        Change {
            kind: TopicKind::Address,
            plant_old: "J'habite au {ref}, au deuxième étage.",
            plant_new: "J'ai déménagé, ma nouvelle adresse est {ref}.",
            probes: [
                "J'habite où maintenant ?",
                "C'est quoi mon adresse actuelle ?",
            ],
        },
        Change {
            kind: TopicKind::Phone,
            plant_old: "Mon numéro de portable est {ref}.",
            plant_new: "J'ai un nouveau téléphone, mon numéro est maintenant {ref}.",
            probes: [
                "Comment on peut me joindre par téléphone ces jours-ci ?",
                "C'est quoi mon numéro de portable actuel ?",
            ],
        },
    ],
    compounds: &[],
};

pub const RUSSIAN: MeaningTemplates = MeaningTemplates {
    paraphrased: [
        Paraphrased {
            kind: TopicKind::Doctor,
            plant: "Мой дерматолог — доктор {ref}, в клинике на площади.",
            keyword: "Как зовут моего дерматолога?",
            paraphrases: [
                "К какому врачу я хожу с кожей?",
                "Хочу показать родинку, к какому специалисту по коже мне идти?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Phone,
            plant: "Номер сантехника — {ref}.",
            keyword: "Какой номер у сантехника?",
            paraphrases: [
                "Кому звонить, если раковина опять протечёт?",
                "В ванной капает кран, кого вызвать?",
            ],
        },
        Paraphrased {
            kind: TopicKind::Wifi,
            plant: "Пароль от вайфая на даче — {ref}.",
            keyword: "Какой пароль от вайфая на даче?",
            paraphrases: [
                "Как подключить ноутбук к интернету в нашем загородном домике?",
                "Какой ключ сети ввести в нашем домике за городом?",
            ],
        },
    ],
    changes: [
        Change {
            kind: TopicKind::Address,
            plant_old: "Я живу тут: {ref}, третий этаж.",
            plant_new: "Я переехала, мой новый адрес: {ref}.",
            probes: ["Где я сейчас живу?", "Какой у меня сейчас адрес?"],
        },
        Change {
            kind: TopicKind::Phone,
            plant_old: "Мой мобильный номер — {ref}.",
            plant_new: "У меня новый телефон, теперь мой номер {ref}.",
            probes: [
                "Как со мной сейчас связаться по телефону?",
                "Какой у меня сейчас мобильный номер?",
            ],
        },
    ],
    compounds: &[],
};
