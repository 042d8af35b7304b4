# Alle Sätze, die telemem selbst schreibt, auf Deutsch. Die Vorlage ist en.ftl: dort steht, was
# jede Nachricht bedeutet. Jede id und jeder Platzhalter `{ $name }` von en.ftl bleibt erhalten;
# Befehlsnamen (/persona, /forget, …) werden nicht übersetzt. Fehlt hier eine Nachricht, schreibt
# der Bot sie auf Englisch.

## Hilfe und Befehlsmenü

help-intro = Ich bin ein KI-Assistent, der sich an unsere Gespräche erinnert. Befehle:
command-start = Begrüßung und was ich mir merke.
command-help = Diese Liste der Befehle zeigen.
command-persona = Zeigen oder festlegen, wie ich mich dir gegenüber verhalte: /persona <Text> oder /persona reset.
command-stats = Zeigen, was ich in diesem Chat über dich speichere.
command-memory = Die Notizen und Sitzungszusammenfassungen zeigen, die ich in diesem Chat über dich habe.
command-forget = Eine Notiz vergessen: /forget <Nummer aus /memory>.
command-reset = Eine neue Sitzung beginnen (der bisherige Verlauf bleibt erhalten).
command-clear = Deinen gesamten Verlauf in diesem Chat löschen (mit Rückfrage).
command-export = Deinen Verlauf in diesem Chat als Datei schicken: /export oder /export json.

unknown-command =
    Diesen Befehl kenne ich nicht. Diese verstehe ich:

    { $commands }

## /start

start =
    Hallo! Ich bin ein KI-Assistent mit Gedächtnis.

    Ich behalte unser Gespräch in diesem Chat: die letzten Nachrichten wörtlich (solange sie nicht älter als { $history_window } sind) und Zusammenfassungen früherer Sitzungen (eine Sitzung endet, wenn länger als { $idle } nichts geschrieben wird). Alles wird automatisch gelöscht, sobald es älter als { $purge_after } ist.

    /persona legt fest, wie ich mich dir gegenüber verhalte, /memory zeigt, was ich mir über dich merke, /stats, was ich speichere, /reset beginnt eine neue Sitzung, /export schickt dir deinen Verlauf, /clear löscht ihn. /help zeigt alle Befehle.

## Wer den Bot nutzen darf

not-allowed = Entschuldige, dieser Bot ist privat, und du stehst nicht auf seiner Liste. Nichts, was du hier schickst, wird gespeichert.
not-allowed-as-chat = Entschuldige, dieser Bot ist privat: Er antwortet nur den Personen auf seiner Liste, und eine Nachricht, die als Kanal oder als anonymer Admin gesendet wurde, zeigt nicht, wer sie geschrieben hat. Schreib als du selbst, um ihn zu nutzen. Nichts, was du hier schickst, wird gespeichert.

## Private Inhalte, in einer Gruppe erfragt

answered-in-private = Ich habe dir die Antwort in unserem privaten Chat geschickt, damit sie nicht in der Gruppe steht.
ask-in-private = Das zeige ich nur in einem privaten Chat, und dort kann ich dir noch nicht schreiben. Öffne einen Chat mit mir (tippe auf meinen Namen), tippe auf „Starten“ und frag dort.
private-needs-a-person = Das zeige ich nur in einem privaten Chat, und zu einer Nachricht, die als Kanal oder als anonymer Admin gesendet wurde, gibt es keinen privaten Chat, in den ich schreiben kann. Frag als du selbst in einem privaten Chat mit mir.
persona-saved-not-shown = Persona gespeichert. Ich zeige sie nicht in der Gruppe; /persona in einem privaten Chat mit mir zeigt sie dir.
from-group =
    Du hast in der Gruppe „{ $group }“ gefragt:

    { $answer }
export-caption-from-group = Dein Verlauf in der Gruppe „{ $group }“.

## Antworten anstelle einer Antwort des Modells

text-only = Ich kann vorerst nur Textnachrichten lesen – Sticker, Fotos, Sprachnachrichten und Dateien gehen an mir vorbei. Bitte schreib es als Text.
model-unavailable = Das Modell antwortet gerade nicht. Deine Nachricht ist gespeichert; bitte versuch es in einer Minute noch einmal.
model-rate-limited = Das Modell ist gerade ausgelastet (Ratenlimit). Deine Nachricht ist gespeichert; bitte versuch es in einer Minute noch einmal.
internal-error = Bei mir ist etwas schiefgelaufen, und ich konnte diese Nachricht nicht bearbeiten. Bitte versuch es gleich noch einmal.
storage-full = Ich kann gerade nichts speichern, weil mein Speicher voll ist. Der Betreiber weiß Bescheid; bitte versuch es später noch einmal.
empty-message = Deine Nachricht ist leer – schreib etwas, und ich antworte.
empty-reply = Das Modell hat eine leere Antwort geliefert. Bitte formuliere es anders oder versuch es noch einmal.
message-too-long = Deine Nachricht ist { $length } Zeichen lang; ich nehme höchstens { $max } an. Bitte kürze sie oder teile sie auf.
too-many-waiting = Du schickst Nachrichten schneller, als ich antworten kann: { $max ->
        [one] { $max } Nachricht von dir wartet
       *[other] { $max } Nachrichten von dir warten
    } schon. Ich beantworte zuerst, was schon wartet; was du bis dahin schickst, lese ich nicht, also schick es bitte noch einmal, sobald ich geantwortet habe.
too-many-per-minute = Das sind mehr als { $max ->
        [one] { $max } Nachricht
       *[other] { $max } Nachrichten
    } in einer Minute, deshalb habe ich die letzte nicht gelesen. Bitte warte einen Moment und schick sie noch einmal.

## /clear

clear-confirm = Deinen gesamten Verlauf in diesem Chat löschen – Nachrichten, Sitzungen, Zusammenfassungen und Notizen? Deine Persona bleibt. Das lässt sich nicht rückgängig machen.
clear-button-yes = Ja, löschen
clear-button-no = Abbrechen
clear-cancelled = Es wurde nichts gelöscht.
clear-not-yours = Nur wer /clear angefordert hat, kann es bestätigen.
cleared = { $messages ->
        [one] { $messages } Nachricht
       *[other] { $messages } Nachrichten
    } aus { $sessions ->
        [one] { $sessions } Sitzung
       *[other] { $sessions } Sitzungen
    } gelöscht. Ich erinnere mich an nichts mehr aus diesem Chat.

## /reset

reset-done = Neue Sitzung begonnen. Unsere früheren Gespräche behalte ich und kann mich an sie erinnern, wenn sie wichtig sind.
reset-nothing-open = Mit deiner nächsten Nachricht beginnt eine neue Sitzung. An frühere Gespräche erinnere ich mich weiterhin.

## /persona

persona-reset = Persona zurückgesetzt: Ich verhalte mich wieder wie üblich.
persona-none =
    Du hast keine Persona festgelegt, also verhalte ich mich wie üblich.
    Leg eine fest mit /persona <wie ich mich verhalten soll>, z. B. /persona Antworte kurz, wie ein Pirat.
persona-current =
    Deine Persona:

    { $persona }

    Ändere sie mit /persona <Text> oder kehre mit /persona reset zum Standard zurück.
persona-saved =
    Persona gespeichert. Ab jetzt:

    { $persona }
persona-too-long = Diese Persona ist { $length } Zeichen lang; erlaubt sind höchstens { $max }. Bitte kürze sie.

## /export

export-empty = Es gibt nichts zu exportieren: In diesem Chat sind keine Nachrichten von dir gespeichert.
export-caption = Dein Verlauf in diesem Chat.
export-title = telemem-Verlauf
export-author-user = Du
export-author-bot = Bot
export-author-system = System

## /forget und /memory

forget-usage = Sag mir die Nummer der Notiz, die ich vergessen soll, z. B. /forget 2. /memory listet sie auf.
forgot = Vergessen: { $note }
no-such-note = Eine Notiz Nummer { $number } habe ich nicht. /memory listet die Notizen auf, die ich habe.
memory-no-notes = Ich habe in diesem Chat noch keine Notizen über dich. Dauerhafte Fakten und Vorlieben, die du mir nennst, notiere ich, wenn eine Sitzung endet.
memory-notes-heading = Notizen, die ich über dich habe (eine entfernst du mit /forget <Nummer>):
memory-note = { $number }. { $note } (seit { $since })
memory-no-summaries = Noch keine Sitzungszusammenfassungen: Eine Sitzung wird zusammengefasst, wenn sie endet.
memory-summaries-heading = Zusammenfassungen unserer früheren Sitzungen:

## /stats

stats =
    Deine Statistik in diesem Chat
    Gespeicherte Nachrichten: { $stored }
    Nachrichten im aktuellen Kontext: { $in_context }
    Tokens heute: { $tokens_today }
    Tokens insgesamt: { $tokens_total }
    Aktuelle Sitzung: { $session }
    Letzte Aktivität: { $last_activity }
stats-session = { $age } (seit { $since })
stats-no-session = keine offen
stats-never = nie

## Zeitspannen

duration-days = { $count ->
        [one] { $count } Tag
       *[other] { $count } Tage
    }
duration-hours = { $count ->
        [one] { $count } Stunde
       *[other] { $count } Stunden
    }
duration-minutes = { $count ->
        [one] { $count } Minute
       *[other] { $count } Minuten
    }
duration-seconds = { $count ->
        [one] { $count } Sekunde
       *[other] { $count } Sekunden
    }
duration-two-units = { $larger } { $smaller }

## telemem chat im Terminal

terminal-welcome = telemem chat als Nutzer { $user } im Chat { $chat }. Schreib eine Nachricht und drücke Enter; /help zeigt die Befehle, /quit beendet.
terminal-cannot-clear = /clear fragt mit Schaltflächen nach einer Bestätigung, die ein Terminal nicht anzeigen kann; es wurde also nichts gelöscht.
terminal-cannot-export = /export schickt deinen Verlauf als Datei, die ein Terminal nicht empfangen kann.
