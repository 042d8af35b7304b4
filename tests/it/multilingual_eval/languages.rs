//! The texts of the multilingual memory evaluation, per language (English, German, Spanish,
//! French, Russian, Italian): greetings, small talk, the assistant's scripted replies, the
//! facts two people of the language mention in passing with the questions that ask them back,
//! two facts that change, and what each of the two people says that is theirs alone: a standing
//! preference and the small-talk line they keep telling again, typed a little differently each
//! time.
//!
//! A keyword question shares a content word with its fact; a paraphrase shares none, in the
//! recall's sense (no search term of the question matches a word of the fact, also not by
//! prefix), and the next language's paraphrase asks the fact across languages. A changed fact's
//! question shares a word with the old statement and none with the new one ("Where do I live
//! now?" finds "I live at …" by its words, not "Big news: we moved! …"). `{}` in a text is where
//! the value goes. Values are unique, so that a value in a prompt names the turn it came from;
//! `histories::check` verifies all of this.

/// The people of each language.
pub const PEOPLE_PER_LANGUAGE: usize = 2;
pub const FACTS: usize = 5;
pub const CHANGES: usize = 2;
/// How often a person tells their repeated small-talk line.
pub const REPEATS: usize = 6;

/// A fact mentioned once and asked back.
pub struct Fact {
    pub statement: &'static str,
    pub keyword: &'static str,
    pub paraphrase: &'static str,
    /// One per person of the language.
    pub values: [&'static str; PEOPLE_PER_LANGUAGE],
}

/// A fact whose value changes: the answer is the newer statement.
pub struct Changed {
    pub old: &'static str,
    pub new: &'static str,
    pub question: &'static str,
    /// Per person: the old value, then the new one.
    pub values: [[&'static str; 2]; PEOPLE_PER_LANGUAGE],
}

/// What one person says that nobody else does.
pub struct Own {
    /// A standing preference, stated once and never taken back.
    pub preference: &'static str,
    /// The small-talk line told again and again, as typed each time (some exactly the same).
    pub repeated: [&'static str; REPEATS],
    /// What every variant of the repeated line holds, ignoring case, and no other line does.
    pub repeated_core: &'static str,
    /// Asks about the repeated line with one of its words.
    pub repeated_question: &'static str,
}

pub struct Language {
    pub code: &'static str,
    pub greetings: &'static [&'static str],
    pub greeting_replies: &'static [&'static str],
    /// Everyday lines, a few near the facts' topics (the neighbours' cat, a haircut, airports)
    /// without holding an answer.
    pub small_talk: &'static [&'static str],
    pub replies: &'static [&'static str],
    pub closings: &'static [&'static str],
    pub closing_replies: &'static [&'static str],
    pub facts: [Fact; FACTS],
    pub changes: [Changed; CHANGES],
    pub people: [Own; PEOPLE_PER_LANGUAGE],
}

pub const LANGUAGES: [&Language; 6] = [&ENGLISH, &GERMAN, &SPANISH, &FRENCH, &RUSSIAN, &ITALIAN];

/// The language whose paraphrases ask `code`'s facts across languages: the next one.
pub fn other_language(code: &str) -> &'static Language {
    let index = LANGUAGES
        .iter()
        .position(|language| language.code == code)
        .unwrap_or(0);
    LANGUAGES[(index + 1) % LANGUAGES.len()]
}

const ENGLISH: Language = Language {
    code: "en",
    greetings: &[
        "Hi there!",
        "Good morning!",
        "Hey, it's me again.",
        "Hello! Got a minute?",
        "Evening! What a day.",
    ],
    greeting_replies: &[
        "Hi! Good to hear from you. How are you?",
        "Hello! I'm here, what's on your mind?",
        "Hey! Nice to see you again.",
    ],
    small_talk: &[
        "It rained the whole morning, my shoes are still wet.",
        "I baked banana bread, the kitchen smells amazing.",
        "The bus was so full I had to stand all the way.",
        "I'm trying to read more and scroll less in the evenings.",
        "We had a long meeting today that could have been an email.",
        "I finally fixed the wobbly shelf in the hallway.",
        "The cherry trees in our neighbourhood are starting to bloom.",
        "I can't stop listening to the same three songs this week.",
        "My tomatoes on the windowsill are finally turning red.",
        "I went for a run and my legs are complaining now.",
        "The coffee machine at the office broke down again.",
        "I'm thinking of learning to knit, it looks relaxing.",
        "There was a musician playing the accordion at the station.",
        "I cleaned the windows and of course it rained an hour later.",
        "I'm so tired today, I could sleep standing up.",
        "We ordered pizza and watched a silly comedy.",
        "My phone battery dies faster every week.",
        "I found an old photo album in a box in the cellar.",
        "The cat from next door sat on our balcony this morning.",
        "I need a haircut soon, it's getting out of hand.",
        "Prices at the supermarket are getting ridiculous.",
        "If the weekend stays sunny we'll have a picnic.",
        "The kids next door are learning the trumpet, it's loud.",
        "Airports stress me out, even when I'm just picking someone up.",
    ],
    replies: &[
        "That sounds nice.",
        "Oh no, I hope tomorrow is better.",
        "Ha, that happens to everyone.",
        "Good to hear! Anything planned for later?",
        "I understand, that can be tiring.",
        "Sounds cozy, enjoy it!",
        "Interesting, tell me more if you like.",
        "Fair enough, small steps count too.",
        "Nice, I'm glad it worked out.",
        "Okay, noted.",
    ],
    closings: &[
        "Okay, I have to go. Talk later!",
        "Thanks for the chat, bye!",
        "Time for bed. Good night!",
        "I'll be back tomorrow. Bye for now.",
    ],
    closing_replies: &[
        "Bye! Talk soon.",
        "Good night, sleep well!",
        "Take care, see you!",
    ],
    facts: [
        Fact {
            statement: "My hairdresser is {}, the only one who gets my fringe right.",
            keyword: "What's my hairdresser's name?",
            paraphrase: "Who cuts my hair?",
            values: ["Marisol Quennell", "Tamsin Ardley"],
        },
        Fact {
            statement: "Our wedding will be at {}, right by the lake.",
            keyword: "Where is our wedding?",
            paraphrase: "Where are we getting married?",
            values: ["Fernbrook Mill", "Haddonfield Manor"],
        },
        Fact {
            statement: "We named our tomcat {}, he sleeps on the radiator all day.",
            keyword: "What's the name of our tomcat?",
            paraphrase: "What's the kitty's name?",
            values: ["Pumpernickel", "Marzipan"],
        },
        Fact {
            statement: "The combination of my bike lock is {}.",
            keyword: "What's the combination of my bike lock?",
            paraphrase: "Which digits open the padlock on my bicycle?",
            values: ["4817", "7290"],
        },
        Fact {
            statement: "Our landlord is Mr {}, he never answers emails.",
            keyword: "What's our landlord's name?",
            paraphrase: "Who do we pay the rent to?",
            values: ["Fairbrother", "Ogilvie"],
        },
    ],
    changes: [
        Changed {
            old: "I live at {} for now, right by the tram stop.",
            new: "Big news: we moved! Our new address is {}.",
            question: "Where do I live now?",
            values: [
                ["14 Larkspur Lane", "Flat 3, 27 Quayside Row in Bristol"],
                ["9 Pellow Close", "52 Harrow Mews in York"],
            ],
        },
        Changed {
            old: "I swim at {} twice a week.",
            new: "New routine: I do my laps at {} these days.",
            question: "Where do I swim now?",
            values: [
                ["Kingfisher Leisure Centre", "Riverside Lido"],
                ["Westgate Pool", "Marlowe Aquatics"],
            ],
        },
    ],
    people: [
        Own {
            preference: "From now on please answer me in Spanish, I want to practise it.",
            repeated: [
                "Yesterday I watched a documentary about whales, they sing to each other for hours.",
                "Yesterday I watched a documentary about whales, they sing to each other for hours!",
                "yesterday i watched a documentary about whales... they sing to each other for hours",
                "Yesterday I watched a documentary about whales, they sing to each other for hours.",
                "Yesterday I watched a documentary about whales - they sing to each other for hours.",
                "Yesterday I watched a documentary about whales, they sing to each other for hours :)",
            ],
            repeated_core: "documentary about whales",
            repeated_question: "What was that documentary I told you about?",
        },
        Own {
            preference: "Please keep your answers short from now on, three sentences at most.",
            repeated: [
                "The neighbours' dog barked all night, I barely slept.",
                "The neighbours' dog barked all night, I barely slept!",
                "the neighbours' dog barked all night, i barely slept",
                "The neighbours' dog barked all night, I barely slept.",
                "The neighbours' dog barked all night... I barely slept.",
                "The neighbours' dog barked all night, I barely slept :(",
            ],
            repeated_core: "neighbours' dog barked all night",
            repeated_question: "What did I tell you about the neighbours' dog?",
        },
    ],
};

const GERMAN: Language = Language {
    code: "de",
    greetings: &[
        "Hallo!",
        "Guten Morgen!",
        "Hi, ich bin's wieder.",
        "Servus! Hast du kurz Zeit?",
        "Guten Abend! Was für ein Tag.",
    ],
    greeting_replies: &[
        "Hallo! Schön, von dir zu hören. Wie geht's dir?",
        "Hi! Ich bin da, was gibt's?",
        "Guten Tag! Wie läuft's bei dir?",
    ],
    small_talk: &[
        "Es hat den ganzen Vormittag geregnet, meine Schuhe sind noch nass.",
        "Ich habe Bananenbrot gebacken, die Küche duftet herrlich.",
        "Der Bus war so voll, dass ich die ganze Fahrt stehen musste.",
        "Ich versuche, abends mehr zu lesen und weniger zu scrollen.",
        "Wir hatten heute eine lange Besprechung, die auch eine Mail hätte sein können.",
        "Ich habe endlich das wackelige Regal im Flur repariert.",
        "Die Kirschbäume in unserem Viertel fangen an zu blühen.",
        "Ich höre diese Woche ständig dieselben drei Lieder.",
        "Meine Tomaten auf der Fensterbank werden endlich rot.",
        "Ich war joggen und meine Beine beschweren sich jetzt.",
        "Die Kaffeemaschine im Büro ist schon wieder kaputt.",
        "Ich überlege, stricken zu lernen, das wirkt so entspannend.",
        "Am Bahnhof hat ein Musiker Akkordeon gespielt.",
        "Ich habe die Fenster geputzt und natürlich hat es eine Stunde später geregnet.",
        "Ich bin heute so müde, ich könnte im Stehen schlafen.",
        "Wir haben Pizza bestellt und eine alberne Komödie geschaut.",
        "Mein Handyakku hält jede Woche kürzer.",
        "Ich habe im Keller ein altes Fotoalbum gefunden.",
        "Die Katze von nebenan saß heute Morgen auf unserem Balkon.",
        "Ich brauche bald einen Haarschnitt, es wird langsam wild.",
        "Die Preise im Supermarkt werden langsam lächerlich.",
        "Wenn das Wochenende sonnig bleibt, machen wir ein Picknick.",
        "Die Kinder von nebenan lernen Trompete, es ist laut.",
        "Flughäfen stressen mich, selbst wenn ich nur jemanden abhole.",
    ],
    replies: &[
        "Das klingt gut.",
        "Oh nein, hoffentlich wird es morgen besser.",
        "Haha, das kennt jeder.",
        "Schön! Hast du später noch was vor?",
        "Verstehe, das kann anstrengend sein.",
        "Klingt gemütlich, genieß es!",
        "Spannend, erzähl gern mehr.",
        "Fair, kleine Schritte zählen auch.",
        "Schön, dass es geklappt hat.",
        "Alles klar, notiert.",
    ],
    closings: &[
        "Okay, ich muss los. Bis später!",
        "Danke fürs Quatschen, tschüss!",
        "Zeit fürs Bett. Gute Nacht!",
        "Ich melde mich morgen wieder. Ciao!",
    ],
    closing_replies: &[
        "Tschüss! Bis bald.",
        "Gute Nacht, schlaf gut!",
        "Mach's gut, bis dann!",
    ],
    facts: [
        Fact {
            statement: "Meine Friseurin heißt {}, nur sie schneidet meinen Pony richtig.",
            keyword: "Wie heißt meine Friseurin?",
            paraphrase: "Wer kümmert sich um meine Haare?",
            values: ["Jolanda Pfeiffer", "Wiebke Sturm"],
        },
        Fact {
            statement: "Unsere Hochzeit findet im {} statt, direkt am See.",
            keyword: "Wo findet unsere Hochzeit statt?",
            paraphrase: "Wo heiraten wir?",
            values: ["Gut Lindenhof", "Landgut Rabenau"],
        },
        Fact {
            statement: "Unsere Katze heißt {}, sie schläft den ganzen Tag auf der Heizung.",
            keyword: "Wie heißt unsere Katze?",
            paraphrase: "Welchen Namen trägt unser Stubentiger?",
            values: ["Pflaumenmus", "Zimtschnecke"],
        },
        Fact {
            statement: "Die Kombination meines Fahrradschlosses ist {}.",
            keyword: "Wie lautet die Kombination meines Fahrradschlosses?",
            paraphrase: "Mit welchen Ziffern geht mein Radschloss auf?",
            values: ["3561", "8042"],
        },
        Fact {
            statement: "Unser Vermieter heißt Herr {}, er antwortet nie auf Mails.",
            keyword: "Wie heißt unser Vermieter?",
            paraphrase: "An wen überweisen wir die Miete?",
            values: ["Brinkmöller", "Quandt"],
        },
    ],
    changes: [
        Changed {
            old: "Ich wohne gerade in der {}, direkt an der Straßenbahn.",
            new: "Große Neuigkeit: Wir sind umgezogen! Die neue Adresse ist {}.",
            question: "Wo wohne ich jetzt?",
            values: [
                ["Lindenstraße 12", "Kochstraße 40 in Leipzig"],
                ["Ulmenweg 7", "Am Kanal 23 in Potsdam"],
            ],
        },
        Changed {
            old: "Ich schwimme zweimal die Woche im {}.",
            new: "Neue Routine: Meine Bahnen ziehe ich inzwischen im {}.",
            question: "Wo schwimme ich jetzt?",
            values: [
                ["Stadtbad Mitte", "Freibad Rosengarten"],
                ["Hallenbad Nord", "Seebad Wendelin"],
            ],
        },
    ],
    people: [
        Own {
            preference: "Antworte mir ab jetzt bitte auf Englisch, ich will es üben.",
            repeated: [
                "Gestern habe ich eine Doku über Wale gesehen, die singen stundenlang miteinander.",
                "Gestern habe ich eine Doku über Wale gesehen, die singen stundenlang miteinander!",
                "gestern habe ich eine doku über wale gesehen... die singen stundenlang miteinander",
                "Gestern habe ich eine Doku über Wale gesehen, die singen stundenlang miteinander.",
                "Gestern habe ich eine Doku über Wale gesehen - die singen stundenlang miteinander.",
                "Gestern habe ich eine Doku über Wale gesehen, die singen stundenlang miteinander :)",
            ],
            repeated_core: "doku über wale",
            repeated_question: "Was war das für eine Doku, von der ich erzählt habe?",
        },
        Own {
            preference: "Halte deine Antworten ab jetzt bitte kurz, höchstens drei Sätze.",
            repeated: [
                "Der Hund der Nachbarn hat die ganze Nacht gebellt, ich habe kaum geschlafen.",
                "Der Hund der Nachbarn hat die ganze Nacht gebellt, ich habe kaum geschlafen!",
                "der hund der nachbarn hat die ganze nacht gebellt, ich habe kaum geschlafen",
                "Der Hund der Nachbarn hat die ganze Nacht gebellt, ich habe kaum geschlafen.",
                "Der Hund der Nachbarn hat die ganze Nacht gebellt... ich habe kaum geschlafen.",
                "Der Hund der Nachbarn hat die ganze Nacht gebellt, ich habe kaum geschlafen :(",
            ],
            repeated_core: "hund der nachbarn hat die ganze nacht gebellt",
            repeated_question: "Was habe ich über den Hund der Nachbarn erzählt?",
        },
    ],
};

const SPANISH: Language = Language {
    code: "es",
    greetings: &[
        "¡Hola!",
        "¡Buenos días!",
        "Hola, soy yo otra vez.",
        "¡Hola! ¿Tienes un momento?",
        "¡Buenas tardes! Vaya día.",
    ],
    greeting_replies: &[
        "¡Hola! Qué bien saber de ti. ¿Cómo estás?",
        "¡Hola! Aquí estoy, ¿qué te cuentas?",
        "¡Buenas! ¿Qué tal todo?",
    ],
    small_talk: &[
        "Ha llovido toda la mañana, todavía tengo los zapatos mojados.",
        "He hecho pan de plátano, la cocina huele de maravilla.",
        "El autobús iba tan lleno que tuve que ir de pie todo el camino.",
        "Intento leer más y mirar menos pantallas por las noches.",
        "Hoy tuvimos una reunión larguísima que podría haber sido un correo.",
        "Por fin arreglé la estantería que cojeaba en el pasillo.",
        "Los cerezos del barrio empiezan a florecer.",
        "Esta semana no paro de escuchar las mismas tres canciones.",
        "Mis tomates del alféizar por fin se están poniendo rojos.",
        "Salí a correr y ahora me duelen las piernas.",
        "La cafetera de la oficina se ha vuelto a estropear.",
        "Estoy pensando en aprender a tejer, parece relajante.",
        "En la estación había un acordeonista tocando para la gente.",
        "Limpié las ventanas y, claro, una hora después llovió.",
        "Hoy estoy tan cansada que podría dormirme de pie.",
        "Pedimos pizza y vimos una comedia tonta.",
        "La batería del móvil me dura cada semana menos.",
        "Encontré un álbum de fotos antiguo en una caja del trastero.",
        "El gato de al lado se sentó esta mañana en nuestro balcón.",
        "Necesito cortarme el pelo pronto, ya no hay quien lo peine.",
        "Los precios del súper están por las nubes.",
        "Si el fin de semana sigue soleado, haremos un pícnic.",
        "Los niños de al lado están aprendiendo a tocar la trompeta.",
        "Los aeropuertos me estresan, aunque solo vaya a recoger a alguien.",
    ],
    replies: &[
        "Suena bien.",
        "Vaya, espero que mañana sea mejor.",
        "Ja, eso le pasa a todo el mundo.",
        "¡Qué bien! ¿Tienes planes para luego?",
        "Te entiendo, puede ser agotador.",
        "Qué acogedor, ¡disfrútalo!",
        "Interesante, cuéntame más si quieres.",
        "Vale, los pasos pequeños también cuentan.",
        "Me alegro de que saliera bien.",
        "Vale, anotado.",
    ],
    closings: &[
        "Bueno, me tengo que ir. ¡Hablamos!",
        "Gracias por la charla, ¡chao!",
        "Hora de dormir. ¡Buenas noches!",
        "Mañana vuelvo. ¡Hasta luego!",
    ],
    closing_replies: &[
        "¡Chao! Hablamos pronto.",
        "¡Buenas noches, que descanses!",
        "¡Cuídate, hasta pronto!",
    ],
    facts: [
        Fact {
            statement: "Mi peluquera es {}, la única que me deja bien el flequillo.",
            keyword: "¿Cómo se llama mi peluquera?",
            paraphrase: "¿Quién me corta el pelo?",
            values: ["Remedios Olaizola", "Fuencisla Arrieta"],
        },
        Fact {
            statement: "Nuestra boda será en {}, junto al lago.",
            keyword: "¿Dónde será nuestra boda?",
            paraphrase: "¿Dónde nos casamos?",
            values: ["Finca Valdelosa", "Cortijo Almazara"],
        },
        Fact {
            statement: "Nuestra gata se llama {}, se pasa el día durmiendo junto al radiador.",
            keyword: "¿Cómo se llama nuestra gata?",
            paraphrase: "¿Qué nombre le pusimos a la minina?",
            values: ["Canela", "Almendrita"],
        },
        Fact {
            statement: "La combinación del candado de mi bici es {}.",
            keyword: "¿Cuál es la combinación del candado de mi bici?",
            paraphrase: "¿Qué dígitos abren el cierre de la bicicleta?",
            values: ["6153", "9374"],
        },
        Fact {
            statement: "Nuestro casero es el señor {}, nunca contesta los correos.",
            keyword: "¿Cómo se llama nuestro casero?",
            paraphrase: "¿A quién le pagamos el alquiler?",
            values: ["Villaescusa", "Torrecilla"],
        },
    ],
    changes: [
        Changed {
            old: "Vivo en la calle {}, justo al lado del mercado.",
            new: "¡Gran noticia: me he mudado! Mi nueva dirección es {}.",
            question: "¿Dónde vivo ahora?",
            values: [
                ["Olivares 8", "Karl-Heine-Strasse 40 en Leipzig"],
                ["Zurbarán 15", "Paseo de la Alameda 31 en Valencia"],
            ],
        },
        Changed {
            old: "Nado en {} dos veces por semana.",
            new: "Nueva rutina: ahora hago mis largos en {}.",
            question: "¿Dónde nado ahora?",
            values: [
                ["Polideportivo Moratalaz", "Piscina Vallehermoso"],
                ["Centro Acuático Levante", "Club Tritón"],
            ],
        },
    ],
    people: [
        Own {
            preference: "A partir de ahora contéstame en inglés, por favor, quiero practicarlo.",
            repeated: [
                "Ayer vi un documental sobre ballenas, se pasan horas cantándose entre ellas.",
                "Ayer vi un documental sobre ballenas, se pasan horas cantándose entre ellas!",
                "ayer vi un documental sobre ballenas... se pasan horas cantándose entre ellas",
                "Ayer vi un documental sobre ballenas, se pasan horas cantándose entre ellas.",
                "Ayer vi un documental sobre ballenas - se pasan horas cantándose entre ellas.",
                "Ayer vi un documental sobre ballenas, se pasan horas cantándose entre ellas :)",
            ],
            repeated_core: "documental sobre ballenas",
            repeated_question: "¿Qué era ese documental del que te hablé?",
        },
        Own {
            preference: "A partir de ahora dame respuestas cortas, como mucho tres frases.",
            repeated: [
                "El perro de los vecinos ladró toda la noche, casi no dormí.",
                "El perro de los vecinos ladró toda la noche, casi no dormí!",
                "el perro de los vecinos ladró toda la noche, casi no dormí",
                "El perro de los vecinos ladró toda la noche, casi no dormí.",
                "El perro de los vecinos ladró toda la noche... casi no dormí.",
                "El perro de los vecinos ladró toda la noche, casi no dormí :(",
            ],
            repeated_core: "perro de los vecinos",
            repeated_question: "¿Qué te conté del perro de los vecinos?",
        },
    ],
};

const FRENCH: Language = Language {
    code: "fr",
    greetings: &[
        "Salut !",
        "Bonjour !",
        "Coucou, c'est encore moi.",
        "Salut ! Tu as une minute ?",
        "Bonsoir ! Quelle journée.",
    ],
    greeting_replies: &[
        "Salut ! Contente d'avoir de tes nouvelles. Ça va ?",
        "Bonjour ! Je suis là, qu'est-ce qui se passe ?",
        "Coucou ! Comment ça va de ton côté ?",
    ],
    small_talk: &[
        "Il a plu toute la matinée, mes chaussures sont encore trempées.",
        "J'ai fait un cake à la banane, la cuisine sent trop bon.",
        "Le bus était tellement plein que je suis restée debout tout le trajet.",
        "J'essaie de lire plus et de moins scroller le soir.",
        "On a eu une réunion interminable qui aurait pu être un mail.",
        "J'ai enfin réparé l'étagère bancale du couloir.",
        "Les cerisiers du quartier commencent à fleurir.",
        "Cette semaine, j'écoute en boucle les trois mêmes chansons.",
        "Mes tomates sur le rebord de la fenêtre rougissent enfin.",
        "Je suis allée courir et maintenant mes jambes protestent.",
        "La machine à café du bureau est encore en panne.",
        "Je pense apprendre à tricoter, ça a l'air reposant.",
        "À la gare, un musicien jouait de l'accordéon.",
        "J'ai lavé les vitres et évidemment il a plu une heure après.",
        "Je suis tellement fatiguée aujourd'hui que je dormirais debout.",
        "On a commandé une pizza et regardé une comédie idiote.",
        "La batterie de mon téléphone tient de moins en moins longtemps.",
        "J'ai retrouvé un vieil album photo dans un carton à la cave.",
        "Le chat d'à côté s'est installé sur notre balcon ce matin.",
        "Il faut que j'aille chez le coiffeur bientôt, c'est n'importe quoi.",
        "Les prix au supermarché deviennent délirants.",
        "Si le week-end reste ensoleillé, on fera un pique-nique.",
        "Les enfants d'à côté apprennent la trompette, c'est bruyant.",
        "Les aéroports me stressent, même quand je vais juste chercher quelqu'un.",
    ],
    replies: &[
        "Ça a l'air sympa.",
        "Oh non, j'espère que demain sera mieux.",
        "Haha, ça arrive à tout le monde.",
        "Super ! Tu as prévu quelque chose pour plus tard ?",
        "Je comprends, ça peut être fatigant.",
        "C'est douillet, profites-en !",
        "Intéressant, raconte-moi si tu veux.",
        "D'accord, les petits pas comptent aussi.",
        "Content que ça ait marché.",
        "D'accord, c'est noté.",
    ],
    closings: &[
        "Bon, je dois y aller. À plus !",
        "Merci pour la discussion, salut !",
        "C'est l'heure de dormir. Bonne nuit !",
        "Je reviens demain. À bientôt !",
    ],
    closing_replies: &[
        "Salut ! À bientôt.",
        "Bonne nuit, dors bien !",
        "Prends soin de toi, à plus !",
    ],
    facts: [
        Fact {
            statement: "Ma coiffeuse s'appelle {}, c'est la seule qui réussit ma frange.",
            keyword: "Comment s'appelle ma coiffeuse ?",
            paraphrase: "Qui me coupe les cheveux ?",
            values: ["Solène Marchadier", "Gwenaëlle Tissot"],
        },
        Fact {
            statement: "Notre mariage aura lieu au {}, au bord du lac.",
            keyword: "Où aura lieu notre mariage ?",
            paraphrase: "Où est-ce qu'on se marie ?",
            values: ["Domaine des Ormeaux", "Moulin de Vauclair"],
        },
        Fact {
            statement: "Notre matou s'appelle {}, il dort toute la journée sur le radiateur.",
            keyword: "Comment s'appelle notre matou ?",
            paraphrase: "Quel nom porte notre félin ?",
            values: ["Croquignol", "Pistou"],
        },
        Fact {
            statement: "Le code de mon cadenas de vélo est {}.",
            keyword: "Quel est le code de mon cadenas de vélo ?",
            paraphrase: "Quels chiffres ouvrent l'antivol de la bicyclette ?",
            values: ["2958", "5406"],
        },
        Fact {
            statement: "Notre propriétaire, c'est monsieur {}, il ne répond jamais aux mails.",
            keyword: "Comment s'appelle notre propriétaire ?",
            paraphrase: "À qui verse-t-on le loyer ?",
            values: ["Delacroix-Vautrin", "Pelletier-Mauduit"],
        },
    ],
    changes: [
        Changed {
            old: "J'habite au {} pour l'instant, près de la gare.",
            new: "Grande nouvelle : on a déménagé ! Notre nouvelle adresse, c'est le {}.",
            question: "J'habite où maintenant ?",
            values: [
                ["12 rue des Tanneurs", "5 quai de la Fosse à Nantes"],
                ["27 avenue Jean-Jaurès", "8 place du Marché à Annecy"],
            ],
        },
        Changed {
            old: "Je nage à la {} deux fois par semaine.",
            new: "Nouvelle routine : je fais mes longueurs au {}.",
            question: "Je nage où maintenant ?",
            values: [
                ["piscine des Dauphins", "centre aquatique Aqualud"],
                ["piscine Saint-Georges", "bassin des Hirondelles"],
            ],
        },
    ],
    people: [
        Own {
            preference: "Désormais, réponds-moi en allemand s'il te plaît, je veux pratiquer.",
            repeated: [
                "Hier j'ai regardé un documentaire sur les baleines, elles chantent pendant des heures.",
                "Hier j'ai regardé un documentaire sur les baleines, elles chantent pendant des heures !",
                "hier j'ai regardé un documentaire sur les baleines... elles chantent pendant des heures",
                "Hier j'ai regardé un documentaire sur les baleines, elles chantent pendant des heures.",
                "Hier j'ai regardé un documentaire sur les baleines - elles chantent pendant des heures.",
                "Hier j'ai regardé un documentaire sur les baleines, elles chantent pendant des heures :)",
            ],
            repeated_core: "documentaire sur les baleines",
            repeated_question: "C'était quoi, ce documentaire dont je t'ai parlé ?",
        },
        Own {
            preference: "Désormais, fais-moi des réponses courtes, trois phrases au maximum.",
            repeated: [
                "Le chien des voisins a aboyé toute la nuit, j'ai à peine dormi.",
                "Le chien des voisins a aboyé toute la nuit, j'ai à peine dormi !",
                "le chien des voisins a aboyé toute la nuit, j'ai à peine dormi",
                "Le chien des voisins a aboyé toute la nuit, j'ai à peine dormi.",
                "Le chien des voisins a aboyé toute la nuit... j'ai à peine dormi.",
                "Le chien des voisins a aboyé toute la nuit, j'ai à peine dormi :(",
            ],
            repeated_core: "chien des voisins a aboyé",
            repeated_question: "Qu'est-ce que je t'ai dit sur le chien des voisins ?",
        },
    ],
};

const RUSSIAN: Language = Language {
    code: "ru",
    greetings: &[
        "Привет!",
        "Доброе утро!",
        "Это снова я.",
        "Привет! Есть минутка?",
        "Добрый вечер! Ну и денёк.",
    ],
    greeting_replies: &[
        "Привет! Рада тебя слышать. Как дела?",
        "Привет! Я здесь, что нового?",
        "Здравствуй! Как у тебя всё?",
    ],
    small_talk: &[
        "Всё утро шёл дождь, ботинки до сих пор мокрые.",
        "Я испекла банановый хлеб, на кухне так вкусно пахнет.",
        "Автобус был такой полный, что всю дорогу пришлось стоять.",
        "Стараюсь по вечерам больше читать и меньше сидеть в интернете.",
        "Сегодня было бесконечное совещание, которое могло быть письмом.",
        "Я наконец починила шаткую полку в коридоре.",
        "Вишни в нашем районе начинают цвести.",
        "На этой неделе слушаю по кругу одни и те же три песни.",
        "Помидоры на подоконнике наконец краснеют.",
        "Сходила на пробежку, теперь ноги ноют.",
        "Кофемашина в офисе опять сломалась.",
        "Думаю научиться вязать, это выглядит так успокаивающе.",
        "На вокзале музыкант играл на аккордеоне.",
        "Помыла окна, и, конечно, через час пошёл дождь.",
        "Я сегодня так устала, что могу уснуть стоя.",
        "Мы заказали пиццу и посмотрели глупую комедию.",
        "Батарея телефона садится с каждой неделей всё быстрее.",
        "Нашла в подвале старый фотоальбом.",
        "Кот из соседней квартиры сегодня утром сидел на нашем балконе.",
        "Мне пора подстричься, волосы уже торчат во все стороны.",
        "Цены в супермаркете становятся просто смешными.",
        "Если выходные будут солнечными, устроим пикник.",
        "Дети из соседней квартиры учатся играть на трубе, очень громко.",
        "Аэропорты меня нервируют, даже если я просто кого-то встречаю.",
    ],
    replies: &[
        "Звучит здорово.",
        "Ой, надеюсь, завтра будет лучше.",
        "Ха, такое со всеми бывает.",
        "Здорово! Есть планы на вечер?",
        "Понимаю, это утомляет.",
        "Как уютно, наслаждайся!",
        "Интересно, расскажи ещё, если хочешь.",
        "Ладно, маленькие шаги тоже считаются.",
        "Рада, что всё получилось.",
        "Хорошо, записала.",
    ],
    closings: &[
        "Ладно, мне пора. Пока!",
        "Спасибо за разговор, пока!",
        "Пора спать. Спокойной ночи!",
        "Завтра напишу. До встречи!",
    ],
    closing_replies: &[
        "Пока! До скорого.",
        "Спокойной ночи, сладких снов!",
        "Береги себя, до встречи!",
    ],
    facts: [
        Fact {
            statement: "Мою парикмахершу зовут {}, только она умеет нормально подровнять мне чёлку.",
            keyword: "Как зовут мою парикмахершу?",
            paraphrase: "Кто стрижёт мне волосы?",
            values: ["Снежана Переверзева", "Агриппина Курочкина"],
        },
        Fact {
            statement: "Наша свадьба пройдёт в {}, на берегу озера.",
            keyword: "Где пройдёт наша свадьба?",
            paraphrase: "Где мы поженимся?",
            values: ["усадьбе Липки", "клубе Сосновый Бор"],
        },
        Fact {
            statement: "Нашу кошку зовут {}, она целый день спит на батарее.",
            keyword: "Как зовут нашу кошку?",
            paraphrase: "Какая кличка у нашей питомицы?",
            values: ["Ватрушка", "Пастила"],
        },
        Fact {
            statement: "Комбинация на замке моего велосипеда — {}.",
            keyword: "Какая комбинация на замке моего велосипеда?",
            paraphrase: "Какие цифры открывают велозамок?",
            values: ["1739", "6284"],
        },
        Fact {
            statement: "Нашего арендодателя зовут {}, он никогда не отвечает на письма.",
            keyword: "Как зовут нашего арендодателя?",
            paraphrase: "Кто хозяин нашей квартиры?",
            values: ["Феоктистов", "Прохоренко"],
        },
    ],
    changes: [
        Changed {
            old: "Я пока живу на улице {}, рядом с рынком.",
            new: "Большая новость: мы переехали! Наш новый адрес — {}.",
            question: "Где я сейчас живу?",
            values: [
                ["Садовая, 14", "проспект Мира, 58, Казань"],
                ["Лесная, 3", "Набережная, 21, Самара"],
            ],
        },
        Changed {
            old: "Я плаваю в спорткомплексе «{}» два раза в неделю.",
            new: "Новая привычка: теперь хожу в бассейн «{}».",
            question: "Где я сейчас плаваю?",
            values: [["Олимп-Арена", "Аквамарин"], ["Торпедо-Юг", "Лазурит"]],
        },
    ],
    people: [
        Own {
            preference: "С этого дня отвечай мне, пожалуйста, по-французски, хочу практиковаться.",
            repeated: [
                "Вчера посмотрела документальный фильм про китов, они часами поют друг другу.",
                "Вчера посмотрела документальный фильм про китов, они часами поют друг другу!",
                "вчера посмотрела документальный фильм про китов... они часами поют друг другу",
                "Вчера посмотрела документальный фильм про китов, они часами поют друг другу.",
                "Вчера посмотрела документальный фильм про китов - они часами поют друг другу.",
                "Вчера посмотрела документальный фильм про китов, они часами поют друг другу :)",
            ],
            repeated_core: "документальный фильм про китов",
            repeated_question: "Что это был за документальный фильм, о котором я рассказывала?",
        },
        Own {
            preference: "С этого дня отвечай мне коротко, максимум три предложения.",
            repeated: [
                "Соседская собака лаяла всю ночь, я почти не спала.",
                "Соседская собака лаяла всю ночь, я почти не спала!",
                "соседская собака лаяла всю ночь, я почти не спала",
                "Соседская собака лаяла всю ночь, я почти не спала.",
                "Соседская собака лаяла всю ночь... я почти не спала.",
                "Соседская собака лаяла всю ночь, я почти не спала :(",
            ],
            repeated_core: "соседская собака лаяла",
            repeated_question: "Что я рассказывала про соседскую собаку?",
        },
    ],
};

const ITALIAN: Language = Language {
    code: "it",
    greetings: &[
        "Ciao!",
        "Buongiorno!",
        "Ehi, sono di nuovo io.",
        "Ciao! Hai un minuto?",
        "Buonasera! Che giornata.",
    ],
    greeting_replies: &[
        "Ciao! Che bello sentirti. Come stai?",
        "Ciao! Sono qui, cosa mi racconti?",
        "Ehi! Come va da te?",
    ],
    small_talk: &[
        "Ha piovuto tutta la mattina, ho ancora le scarpe bagnate.",
        "Ho fatto il banana bread, la cucina ha un profumo incredibile.",
        "L'autobus era così pieno che sono rimasta in piedi tutto il tragitto.",
        "Cerco di leggere di più e stare meno al telefono la sera.",
        "Oggi abbiamo avuto una riunione infinita che poteva essere una mail.",
        "Finalmente ho aggiustato la mensola traballante del corridoio.",
        "I ciliegi del quartiere cominciano a fiorire.",
        "Questa settimana ascolto sempre le stesse tre canzoni.",
        "I pomodori sul davanzale finalmente diventano rossi.",
        "Sono andata a correre e ora le gambe protestano.",
        "La macchinetta del caffè in ufficio si è rotta di nuovo.",
        "Sto pensando di imparare a fare la maglia, sembra rilassante.",
        "In stazione un musicista suonava la fisarmonica.",
        "Ho pulito i vetri e ovviamente un'ora dopo ha piovuto.",
        "Oggi sono così stanca che potrei dormire in piedi.",
        "Abbiamo ordinato una pizza e visto una commedia stupida.",
        "La batteria del telefono dura ogni settimana di meno.",
        "Ho ritrovato un vecchio album di foto in cantina.",
        "Il gatto dei vicini stamattina si è seduto sul nostro balcone.",
        "Devo proprio tagliarmi i capelli, sono ingestibili.",
        "I prezzi al supermercato stanno diventando assurdi.",
        "Se il fine settimana resta soleggiato, facciamo un picnic.",
        "I bambini dei vicini stanno imparando la tromba, che fracasso.",
        "Gli aeroporti mi mettono ansia, anche solo per andare a prendere qualcuno.",
    ],
    replies: &[
        "Che bello.",
        "Oh no, spero che domani vada meglio.",
        "Ahah, succede a tutti.",
        "Bene! Hai programmi per dopo?",
        "Capisco, può essere stancante.",
        "Che atmosfera accogliente, goditela!",
        "Interessante, raccontami di più se ti va.",
        "Giusto, anche i piccoli passi contano.",
        "Sono contenta che sia andata bene.",
        "Va bene, annotato.",
    ],
    closings: &[
        "Ok, devo andare. A dopo!",
        "Grazie per la chiacchierata, ciao!",
        "È ora di dormire. Buonanotte!",
        "Torno domani. A presto!",
    ],
    closing_replies: &[
        "Ciao! A presto.",
        "Buonanotte, dormi bene!",
        "Stammi bene, ci sentiamo!",
    ],
    facts: [
        Fact {
            statement: "La mia parrucchiera si chiama {}, l'unica che mi sistema bene la frangia.",
            keyword: "Come si chiama la mia parrucchiera?",
            paraphrase: "Chi mi taglia i capelli?",
            values: ["Ornella Sgarbossa", "Loredana Pizzighella"],
        },
        Fact {
            statement: "Il nostro matrimonio sarà a {}, in riva al lago.",
            keyword: "Dove sarà il nostro matrimonio?",
            paraphrase: "Dove ci sposiamo?",
            values: ["Villa Cornaggia", "Cascina Roveda"],
        },
        Fact {
            statement: "La nostra gatta si chiama {}, dorme tutto il giorno sul termosifone.",
            keyword: "Come si chiama la nostra gatta?",
            paraphrase: "Che nome abbiamo dato alla micia?",
            values: ["Polpetta", "Tiramisù"],
        },
        Fact {
            statement: "La combinazione del lucchetto della mia bici è {}.",
            keyword: "Qual è la combinazione del lucchetto della mia bici?",
            paraphrase: "Quali cifre aprono il blocco sulla bicicletta?",
            values: ["8516", "3097"],
        },
        Fact {
            statement: "Il nostro padrone di casa è il signor {}, non risponde mai alle mail.",
            keyword: "Come si chiama il nostro padrone di casa?",
            paraphrase: "A chi paghiamo l'affitto?",
            values: ["Scapinelli", "Bonfiglioli"],
        },
    ],
    changes: [
        Changed {
            old: "Per ora abito in via {}, vicino alla stazione.",
            new: "Grande notizia: ci siamo trasferiti! Il nuovo indirizzo è {}.",
            question: "Dove abito adesso?",
            values: [
                ["Garibaldi 21", "corso Vittorio Emanuele 88 a Torino"],
                ["dei Mille 6", "piazza delle Erbe 4 a Verona"],
            ],
        },
        Changed {
            old: "Nuoto alla {} due volte a settimana.",
            new: "Nuova routine: ora faccio le vasche al {}.",
            question: "Dove nuoto adesso?",
            values: [
                ["piscina Sciorelli", "centro Acquaviva"],
                ["piscina Moroni", "centro Delfino Blu"],
            ],
        },
    ],
    people: [
        Own {
            preference: "D'ora in poi rispondimi in russo, per favore, voglio esercitarmi.",
            repeated: [
                "Ieri ho visto un documentario sulle balene, cantano tra loro per ore.",
                "Ieri ho visto un documentario sulle balene, cantano tra loro per ore!",
                "ieri ho visto un documentario sulle balene... cantano tra loro per ore",
                "Ieri ho visto un documentario sulle balene, cantano tra loro per ore.",
                "Ieri ho visto un documentario sulle balene - cantano tra loro per ore.",
                "Ieri ho visto un documentario sulle balene, cantano tra loro per ore :)",
            ],
            repeated_core: "documentario sulle balene",
            repeated_question: "Che documentario ti avevo raccontato?",
        },
        Own {
            preference: "D'ora in poi dammi risposte brevi, al massimo tre frasi.",
            repeated: [
                "Il cane dei vicini ha abbaiato tutta la notte, ho dormito pochissimo.",
                "Il cane dei vicini ha abbaiato tutta la notte, ho dormito pochissimo!",
                "il cane dei vicini ha abbaiato tutta la notte, ho dormito pochissimo",
                "Il cane dei vicini ha abbaiato tutta la notte, ho dormito pochissimo.",
                "Il cane dei vicini ha abbaiato tutta la notte... ho dormito pochissimo.",
                "Il cane dei vicini ha abbaiato tutta la notte, ho dormito pochissimo :(",
            ],
            repeated_core: "cane dei vicini ha abbaiato",
            repeated_question: "Cosa ti ho detto del cane dei vicini?",
        },
    ],
};
