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
command-model = Das Modell zeigen oder wählen, das dir antwortet: /model oder /model <Name>.
command-remember = Eine Notiz für mich hinzufügen: /remember <Text>. Notiz n ändern: /remember <n> <neuer Text>.
command-incognito = Nichts aus diesem Chat behalten und keine Erinnerung nutzen: /incognito on, /incognito off.
command-cancel = Die Antwort anhalten, die ich gerade schreibe; was schon dasteht, bleibt (der Stopp-Knopf tut dasselbe).
command-retry = Deine letzte Nachricht noch einmal beantworten; die neue Antwort ersetzt die alte.

## Der Admin-Teil von /help und ihres Befehlsmenüs

admin-help-heading = Admin-Befehle (nur Admins sehen sie):
command-allow = Jemanden den Bot nutzen lassen, eine Sperre aufheben: /allow <ID>.
command-block = Jemanden aussperren, auch wenn ALLOWED_USERS oder ALLOW_ALL_USERS ihn zulassen: /block <ID>.
command-unblock = Eine Sperre aufheben (ALLOWED_USERS und ALLOW_ALL_USERS entscheiden wieder): /unblock <ID>.
command-limit = Ein tägliches Token-Limit zeigen oder setzen: /limit <ID> [<Tokens>|off|default].
command-users = Wer zugelassen ist, wer gesperrt ist, wer in den letzten 7 Tagen aktiv war.
command-usage = Tokens pro Person heute und in den letzten 30 Tagen: /usage [<ID>].

unknown-command =
    Diesen Befehl kenne ich nicht. Diese verstehe ich:

    { $commands }

## /start

start =
    Hallo! Ich bin ein KI-Assistent mit Gedächtnis.

    Ich behalte unser Gespräch in diesem Chat: die letzten Nachrichten wörtlich (solange sie nicht älter als { $history_window } sind) und Zusammenfassungen früherer Sitzungen (eine Sitzung endet, wenn länger als { $idle } nichts geschrieben wird). Alles wird automatisch gelöscht, sobald es älter als { $purge_after } ist.

    /persona legt fest, wie ich mich dir gegenüber verhalte, /memory zeigt, was ich mir über dich merke, /remember fügt eine Notiz hinzu, /incognito on hält mich davon ab, irgendetwas zu speichern, /stats zeigt, was ich speichere, /reset beginnt eine neue Sitzung, /export schickt dir deinen Verlauf, /clear löscht ihn. /help zeigt alle Befehle.

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

text-only = Diese Art von Nachricht kann ich nicht lesen – Sticker, Videos, Archive und ähnliche Dateien gehen an mir vorbei. Ich lese Text, Fotos, Sprachnachrichten und Textdokumente (auch PDFs); bitte schick es als eines davon.
tool-searching-memory = 🔧 durchsuche dein Gedächtnis…
tool-remembering = 🔧 mache mir eine Notiz…
tool-setting-reminder = 🔧 stelle eine Erinnerung…
tool-using = 🔧 nutze ein Werkzeug…
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
export-reminders = Erinnerungen

## /forget und /memory

forget-usage = Sag mir die Nummer der Notiz, die ich vergessen soll, z. B. /forget 2. /memory listet sie auf.
forgot = Vergessen: { $note }
no-such-note = Eine Notiz Nummer { $number } habe ich nicht. /memory listet die Notizen auf, die ich habe.
memory-no-notes = Ich habe in diesem Chat noch keine Notizen über dich. Dauerhafte Fakten und Vorlieben, die du mir nennst, notiere ich, wenn eine Sitzung endet; /remember <Text> fügt sofort eine hinzu.
memory-notes-heading = Notizen, die ich über dich habe:
memory-note = { $number }. { $note } (seit { $since })
memory-incognito = Inkognito ist in diesem Chat an: Ich speichere nichts von dem, was wir sagen, und nutze nichts hiervon für meine Antworten. /incognito off beendet es.
memory-note-by-hand = { $number }. { $note } (von dir hinzugefügt am { $since })
memory-note-earlier = vorher: { $note } (bis { $until })
memory-notes-how-to = Ändern: /remember <Nummer> <neuer Text>. Entfernen: /forget <Nummer>. Hinzufügen: /remember <Text>.
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
    Modell: { $model }
stats-tokens-today-limited = { $used } von { $limit } (in all deinen Chats)
stats-tokens-today = { $used } (in all deinen Chats)
stats-model-no-longer-offered = (das Modell, das du gewählt hast, wird nicht mehr angeboten)
stats-incognito = Inkognito: an (nichts aus diesem Chat wird gespeichert)
stats-incognito-tokens = Davon heute im Inkognito-Modus: { $tokens }
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

## Größen und Anzahlen

size-megabytes = { $size } MB
size-kilobytes = { $size } KB
size-bytes = { $count ->
        [one] { $count } Byte
       *[other] { $count } Bytes
    }
count-messages = { $count ->
        [one] { $shown } Nachricht
       *[other] { $shown } Nachrichten
    }
count-tokens = { $count ->
        [one] { $shown } Token
       *[other] { $shown } Tokens
    }

## Fotos, Sprachnachrichten und Dokumente

media-heard = 🎤 „{ $transcript }“
media-document-cut = 📄 Das Dokument ist lang: Ich habe die ersten { $shown } von { $total } Zeichen gelesen.
media-file-too-big = Diese Datei ist mir zu groß: Telegram lässt Bots nur Dateien bis 20 MB abrufen. Bitte schick eine kleinere.
media-document-too-big = Dieses Dokument ist größer als die { $max }, die ich lese. Bitte schick eine kürzere Datei oder füge den wichtigen Teil als Text ein.
media-image-too-big = Diese Bilddatei ist zu groß für das Modell (über 5 MB). Bitte schick sie stattdessen als Foto: Telegram verkleinert sie dann.
media-file-empty = Diese Datei ist leer, es gibt also nichts zu lesen.
media-image-unreadable = Ich konnte dieses Bild nicht öffnen: Es ist kein JPEG-, PNG-, GIF- oder WebP-Bild, oder es ist beschädigt.
media-document-not-text = Ich konnte diese Datei nicht als Text lesen: Sie scheint binär oder beschädigt zu sein, oder sie ist nicht in UTF-8.
media-pdf-unreadable = Ich konnte dieses PDF nicht lesen: Es scheint beschädigt oder geschützt zu sein.
media-pdf-no-text = Dieses PDF enthält keinen Text, den ich lesen kann; wahrscheinlich ist es ein Scan. Bitte schick seine Seiten als Fotos.
media-file-unavailable = Ich konnte deine Datei gerade nicht von Telegram abrufen. Bitte schick sie in einer Minute noch einmal.
media-timeout = Das Abrufen und Lesen deiner Datei hat zu lange gedauert, deshalb habe ich aufgehört. Bitte versuch es in einer Minute noch einmal.
media-voice-not-set-up = Sprachnachrichten sind bei diesem Bot nicht eingerichtet, ich kann sie also nicht anhören. Bitte tippe deine Nachricht stattdessen.
media-transcription-unavailable = Ich konnte deine Aufnahme nicht abschreiben: Der Transkriptionsdienst antwortet gerade nicht. Bitte versuch es in einer Minute noch einmal oder tippe es.
media-transcription-refused = Ich konnte diese Aufnahme nicht verstehen: Der Transkriptionsdienst konnte sie nicht lesen. Bitte nimm sie noch einmal auf oder tippe es.
media-nothing-heard = Ich konnte in dieser Aufnahme keine Worte hören. Bitte versuch es noch einmal oder tippe es.
media-vision-not-supported = Das Modell, das ich nutze, kann keine Bilder ansehen. Deine Bildunterschrift ist gespeichert; beschreib das Bild in Worten oder bitte den Betreiber, VISION_MODEL auf ein Modell zu setzen, das sehen kann.

## Stopp, /cancel und /retry

stop-button = ⏹ Stopp
nothing-to-stop = Es gibt nichts anzuhalten: Ich schreibe gerade keine Antwort für dich.
stop-not-yours = Nur die Person, für die diese Antwort ist, kann sie anhalten.
terminal-nothing-to-stop = Gerade gibt es nichts anzuhalten. Während eine Antwort geschrieben wird, hält Strg-C sie an.
nothing-to-retry = Es gibt nichts neu zu beantworten: Du hast mir in diesem Chat noch nicht geschrieben.
retry-while-running = Ich beantworte noch deine letzte Nachricht. Warte auf diese Antwort (oder halte sie mit /cancel an) und schick dann /retry.
replaced-by-newer = ↻ Durch eine neuere Antwort unten ersetzt.

## /remember

remember-usage = Sag mir, was ich notieren soll, z. B. /remember Ich bin Vegetarier. Um Notiz 2 (wie /memory sie auflistet) zu ändern, schreib /remember 2 <neuer Text>.
remembered =
    Notiert: { $note }
    /memory zeigt deine Notizen.
already-remembered = Diese Notiz habe ich schon: { $note }
note-replaced =
    Notiz { $number } geändert.
    Vorher: { $old }
    Jetzt: { $new }
note-too-long = Diese Notiz ist { $length } Zeichen lang; erlaubt sind höchstens { $max }. Bitte kürze sie.
too-many-notes = Du hast schon { $max } Notizen hinzugefügt, so viele, wie ich behalte. Entferne eine mit /forget <Nummer> (siehe /memory) oder ändere eine mit /remember <Nummer> <neuer Text>.

## /model

model-in-use = Dir antwortet { $model }.
model-choice-unavailable = Das Modell, das du gewählt hast, { $chosen }, wird nicht mehr angeboten, deshalb antwortet dir jetzt { $model }.
model-unknown = Ein Modell namens „{ $name }“ biete ich nicht an.
model-chosen = Ab jetzt antwortet dir { $model }, in all unseren Chats.
model-choose-with-buttons = Tippe auf ein Modell, um es zu wählen (oder schreib /model <Name>):
model-choose-by-name = Wähle eines mit /model <Name>:
model-menu-not-yours = Nur wer diese Liste angefordert hat, kann hier wählen. Schreib /model für deine eigene.
model-menu-out-of-date = Die Liste der Modelle hat sich geändert; hier ist sie noch einmal.

## /incognito

incognito-is-on = Inkognito ist in diesem Chat an: Ich speichere nichts von dem, was wir sagen, und nutze keine Erinnerung an frühere Gespräche, nur unsere letzten paar Nachrichten für ein paar Minuten. /incognito off beendet es.
incognito-is-off = Inkognito ist aus: Ich behalte unser Gespräch in diesem Chat und erinnere mich daran. /incognito on ändert das: Dann speichere ich nichts von dem, was wir sagen, und nutze keine Erinnerung.
incognito-switched-on = Inkognito ist an. Ab jetzt speichere ich nichts von dem, was wir in diesem Chat sagen, und nutze keine Erinnerung an frühere Gespräche (deine Persona gilt weiter); ich behalte nur unsere letzten paar Nachrichten für ein paar Minuten und vergesse sie, wenn du es ausschaltest. /incognito off beendet es.
incognito-switched-off = Inkognito ist aus. Ich behalte unser Gespräch in diesem Chat wieder und erinnere mich daran; vom Inkognito-Teil wurde nichts behalten.

## Limits

daily-limit-reached = Du hast deine { $limit } Tokens für heute verbraucht (bisher { $used }), deshalb habe ich diese Nachricht nicht an das Modell geschickt und nicht gespeichert. Das Limit wird um { $resets_at } zurückgesetzt (in { $wait }); bitte schick sie dann noch einmal.
stored-history-capped = Dein gespeicherter Verlauf bei mir hat seine Grenze von { $megabytes } MB erreicht, deshalb habe ich deine ältesten Gespräche gelöscht, um Platz zu schaffen, und werde weiter die ältesten löschen, wenn neue hinzukommen. /export schickt dir, was ich noch habe.

## Admin-Befehle

admin-only-in-private = Admin-Befehle funktionieren nur in einem privaten Chat mit mir, damit sie nicht in Gruppen stehen.
allow-usage = Sag mir per Telegram-ID, wen ich hereinlassen soll, z. B. /allow 123456789.
block-usage = Sag mir per Telegram-ID, wen ich sperren soll, z. B. /block 123456789.
unblock-usage = Sag mir per Telegram-ID, wessen Sperre ich aufheben soll, z. B. /unblock 123456789.
limit-usage = So geht's: /limit <ID> zeigt das tägliche Token-Limit einer Person; /limit <ID> <Tokens> setzt es (z. B. /limit 123456789 50000), /limit <ID> off hebt es auf, /limit <ID> default kehrt zu USER_DAILY_TOKEN_LIMIT zurück.
usage-usage = So geht's: /usage für die Tokens aller oder /usage <ID> für die einer Person.
cannot-block-yourself = Du kannst dich nicht selbst sperren.
cannot-block-admin = Personen in ADMIN_USERS können nicht gesperrt werden; nimm sie zuerst aus der Einstellung.
access-allowed = { $user } darf den Bot jetzt nutzen.
access-already-allowed = { $user } ist schon zugelassen; nichts geändert.
access-blocked = { $user } ist jetzt gesperrt: Ich antworte nicht mehr, egal was die Zulassungslisten sagen.
access-already-blocked = { $user } ist schon gesperrt.
access-unblocked = { $user } ist nicht mehr gesperrt; ALLOWED_USERS und ALLOW_ALL_USERS entscheiden wieder (/allow lässt die Person herein).
access-not-blocked = { $user } ist nicht gesperrt; nichts geändert.
limit-tokens-a-day = { $count ->
        [one] { $shown } Token am Tag
       *[other] { $shown } Tokens am Tag
    }
limit-none = kein Limit
limit-set-by-admin = von Admin { $admin } mit /limit gesetzt
limit-admins-exempt = Admins sind ausgenommen
limit-with-source = { $amount } ({ $source })
limit-of = Tägliches Token-Limit von { $user }: { $limit }.
usage-of =
    Verbrauch von { $user }
    Tokens heute: { $today }
    Letzte { $days } Tage: { $tokens }, { $messages }
    Limit: { $limit }
usage-today-of-limit = { $used } von { $limit }
usage-nobody = In den letzten { $days } Tagen hat niemand Tokens verbraucht.
usage-report-heading = Tokens pro Person, heute · letzte { $days } Tage:
users-admins = Admins: { $ids }
users-allow-all = Zugelassen: alle (ALLOW_ALL_USERS)
users-allowed-by-admins = Von Admins zugelassen
users-blocked = Gesperrt
users-nobody = niemand
users-rule = { $user } (von { $admin }, { $at })
users-nobody-active = In den letzten { $days } Tagen war niemand aktiv.
users-active-heading = Aktiv in den letzten { $days } Tagen:

## Hinweise an Admins zu Unbekannten

stranger-alert = Jemand, der nicht auf der Zulassungsliste steht, hat mir geschrieben: { $name }{ $handle }, ID { $id }. Ich habe ihm gesagt, dass der Bot privat ist, und nichts gespeichert, was er geschickt hat.
stranger-button-allow = Zulassen
stranger-button-block = Sperren
stranger-allowed-by = Zugelassen von { $admin } (ID { $admin_id }).
stranger-blocked-by = Gesperrt von { $admin } (ID { $admin_id }).
only-admins-decide = Das können nur Admins entscheiden.

# The Mini App (the bot's side), and /settings.
command-settings = Zeige deine Einstellungen: Persona, Modell, Inkognito, Zeitzone.
webapp-failed = Bei mir ist etwas schiefgegangen. Bitte versuche es gleich noch einmal.
webapp-too-many = Das war viel auf einmal. Bitte warte { $seconds } s und versuche es dann noch einmal.
webapp-private-chat = Privater Chat mit mir
webapp-group-chat = Gruppenchat { $id }
webapp-memory-button = 🧠 Mein Gedächtnis ansehen und bearbeiten
webapp-settings-button = ⚙️ Einstellungen ändern
webapp-export-sent = Ich habe dir die Datei in unseren privaten Chat geschickt.
webapp-menu-button = Gedächtnis
settings-heading = Deine Einstellungen:
settings-persona = Persona: { $persona }
settings-persona-default = Persona: die voreingestellte
settings-model = Modell: { $model }
settings-incognito-on = Inkognito in diesem Chat: an
settings-incognito-off = Inkognito in diesem Chat: aus
settings-time-zone = Zeitzone: { $zone }
settings-time-zone-default = Zeitzone: { $zone } (voreingestellt)
settings-how-to-change = Ändern kannst du sie mit /persona, /model, /incognito und /timezone.

# Tools: reminders, time zones, /tools.
command-timezone = Deine Zeitzone für Erinnerungen zeigen oder setzen: /timezone Europe/Berlin, oder /timezone reset.
command-reminders = Deine Erinnerungen auflisten, mit Knöpfen zum Abbrechen.
command-tools = Die Werkzeuge zeigen, die ich für dich nutzen kann.
reminder-due = ⏰ Erinnerung: { $text }
reminder-late = ⏰ Erinnerung (fällig { $due }; ich war da nicht erreichbar): { $text }
reminders-heading = Deine Erinnerungen:
reminders-none = Du hast keine Erinnerungen. Frag mich zum Beispiel: „erinnere mich morgen um 9, Anna anzurufen“.
reminders-zone = Die Zeiten sind in deiner Zeitzone, { $zone }.
reminders-zone-default = Die Zeiten sind in { $zone }; setze deine mit /timezone, z. B. /timezone Europe/Berlin.
reminder-cancel-button = ✖ { $number } abbrechen
reminder-cancelled = Erinnerung abgebrochen.
reminder-already-gone = Diese Erinnerung wurde schon gesendet oder abgebrochen.
reminder-not-yours = Das sind die Erinnerungen von jemand anderem.
timezone-current = Deine Zeitzone ist { $zone }; dort ist es jetzt { $time }. Ändere sie mit /timezone <Zone>, z. B. /timezone America/New_York.
timezone-default = Du hast keine Zeitzone gesetzt, also nutze ich { $zone } (dort ist es jetzt { $time }). Setze deine mit /timezone <Zone>, z. B. /timezone Europe/Berlin.
timezone-set = Deine Zeitzone ist jetzt { $zone }; dort ist es { $time }.
timezone-reset = Deine Zeitzone ist vergessen; ich nutze wieder { $zone }.
timezone-unknown = Die Zeitzone „{ $name }“ kenne ich nicht. Nutze einen Namen wie Europe/Berlin, America/New_York oder Asia/Tokyo.
tools-heading = Werkzeuge, die ich für dich nutzen kann:
tools-off = Werkzeuge sind bei diesem Bot ausgeschaltet.
tools-unsupported = Das Modell { $model } kann keine Werkzeuge nutzen, also antworte ich ohne sie.
tools-incognito-note = Im Inkognito-Modus nutze ich nur Werkzeuge, die nichts speichern.

## Inline mode

inline-title = { $bot } fragen
inline-waiting = ⏳ Ich denke nach…

## Mini App page
# The page's sentences (src/webapp/page/), sent to it by /app/api/me. Plain text, no variables.
app-title = Dein Gedächtnis
app-tab-memory = Gedächtnis
app-tab-search = Suche
app-tab-settings = Einstellungen
app-tab-usage = Verbrauch
app-tab-admin = Admin
app-chat = Chat
app-private-chat = Privater Chat
app-group-chat = Gruppenchats
app-notes = Notizen
app-no-notes = Noch keine Notizen.
app-since = Seit
app-until = bis
app-earlier = Frühere Fassungen
app-add-note = Notiz hinzufügen
app-add-note-placeholder = Etwas, das ich mir merken soll…
app-save = Speichern
app-cancel = Abbrechen
app-edit = Bearbeiten
app-remove = Entfernen
app-confirm-remove-summary = Diese Zusammenfassung entfernen? Ich erinnere mich dann nicht mehr an dieses Gespräch.
app-summaries = Gesprächszusammenfassungen
app-no-summaries = Noch keine Zusammenfassungen.
app-search = Suchen
app-search-placeholder = Wörter oder eine Frage…
app-no-results = Nichts gefunden.
app-kind-message = Nachricht
app-kind-summary = Zusammenfassung
app-kind-note = Notiz
app-role-user = Du
app-role-assistant = Bot
app-role-system = System
app-persona = Persona
app-persona-placeholder = Wie soll ich mit dir reden? Leer lassen für die Voreinstellung.
app-model = Modell
app-incognito = Inkognito: nichts aus diesem Chat merken
app-time-zone = Zeitzone
app-time-zone-hint = Ein Name wie Europe/Berlin; leer lassen für die Voreinstellung.
app-export = Export
app-export-json = Als JSON herunterladen
app-export-markdown = Als Markdown herunterladen
app-tokens-per-day = Tokens pro Tag, letzte 30 Tage
app-today = Heute
app-daily-limit = Tageslimit
app-no-limit = Kein Tageslimit
app-images-today = Bilder heute
app-speech-today = Sprache heute
app-admin-usage = Tokens aller pro Tag
app-admin-people = Personen
app-user = Person
app-messages = Nachrichten
app-tokens = Tokens
app-limit = Limit
app-access = Zugang
app-access-allowed = erlaubt
app-access-blocked = gesperrt
app-access-admin = Admin
app-access-stranger = unbekannt
app-allow = Erlauben
app-block = Sperren
app-unblock = Entsperren
app-set-limit = Limit setzen
app-limit-placeholder = Zahl, off oder default
app-strangers = Unbekannte, die geschrieben haben
app-no-strangers = Keine Unbekannten haben geschrieben.
app-saved = Gespeichert.
app-error = Etwas ist schiefgelaufen. Bitte versuche es noch einmal.
app-forbidden = Das darfst du nicht.
app-open-from-telegram = Öffne diese Seite über den Bot in Telegram.

## Sprachantworten, /tts, /voice und /image

command-voice = Wähle, wann ich auch laut antworte: /voice on, /voice off oder /voice auto (wenn du sprichst).
command-tts = Einen Text als Sprachnachricht vorlesen: /tts <Text>.
command-image = Ein Bild zeichnen: /image <Beschreibung>.
voice-state = Sprachantworten: { $mode ->
        [on] an (jede Antwort wird auch vorgelesen)
        [off] aus (nur Text)
       *[auto] automatisch (vorgelesen, wenn du eine Sprachnachricht schickst)
    }. Ändern mit /voice on, /voice off oder /voice auto.
voice-set = Erledigt. Sprachantworten: { $mode ->
        [on] an (jede Antwort wird auch vorgelesen)
        [off] aus (nur Text)
       *[auto] automatisch (vorgelesen, wenn du eine Sprachnachricht schickst)
    }.
speech-not-set-up = Vorlesen ist bei diesem Bot nicht eingerichtet (der Betreiber kann TTS_BASE_URL setzen).
tts-usage = Schreib den Text zum Vorlesen hinter den Befehl: /tts <Text>.
tts-too-long = Dieser Text hat { $length } Zeichen; ich lese höchstens { $max } auf einmal vor. Bitte schick einen kürzeren.
speech-failed = Ich konnte das gerade nicht vorlesen: Der Sprachdienst hat nicht geantwortet. Bitte versuch es später noch einmal.
speech-limit-reached = Du hast die { $limit } Sekunden Sprache für heute aufgebraucht; bis { $resets_at } (in { $wait }) bekommst du nur Text.
image-not-set-up = Zeichnen ist bei diesem Bot nicht eingerichtet (der Betreiber kann IMAGE_BASE_URL setzen).
image-usage = Schreib hinter den Befehl, was ich zeichnen soll: /image <Beschreibung>, zum Beispiel /image ein roter Fuchs im Schnee.
image-too-long = Diese Beschreibung hat { $length } Zeichen; höchstens { $max } sind erlaubt. Bitte kürze sie.
image-unsafe = Der Bilddienst wollte das nicht zeichnen. Seine Begründung: { $reason }
image-unsafe-no-reason = Der Bilddienst wollte das nicht zeichnen.
image-timed-out = Der Bilddienst hat zu lange zum Zeichnen gebraucht. Bitte versuch es später noch einmal.
image-failed = Ich konnte das gerade nicht zeichnen: Der Bilddienst ist ausgefallen. Bitte versuch es später noch einmal.
image-limit-reached = Du hast die { $limit } Bilder für heute aufgebraucht. Nach { $resets_at } (in { $wait }) kannst du wieder welche bekommen.
stats-images-today = Bilder heute: { $used }
stats-images-today-limited = Bilder heute: { $used } von { $limit }
stats-speech-today = Sprache heute: { $used } s
stats-speech-today-limited = Sprache heute: { $used } s von { $limit } s
usage-media = Bilder: { $images }, Sprache: { $seconds } s
terminal-cannot-send-media = Sprachnachrichten und Bilder kommen in Telegram; ein Terminal kann sie nicht abspielen oder zeigen.
