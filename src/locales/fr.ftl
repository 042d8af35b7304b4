# Toutes les phrases que telemem écrit lui-même, en français. Le modèle est en.ftl : chaque message
# y est expliqué. Tous les ids et tous les espaces réservés `{ $nom }` de en.ftl sont conservés ;
# les noms des commandes (/persona, /forget, …) ne se traduisent pas. S'il manque ici un message,
# le bot l'écrit en anglais.

## Aide et menu des commandes

help-intro = Je suis un assistant IA qui se souvient de nos conversations. Commandes :
command-start = Dire bonjour et expliquer ce dont je me souviens.
command-help = Afficher cette liste de commandes.
command-persona = Voir ou définir mon comportement avec vous : /persona <texte>, ou /persona reset.
command-stats = Afficher ce que je conserve sur vous dans ce chat.
command-memory = Afficher les notes et les résumés de sessions que je garde sur vous dans ce chat.
command-forget = Oublier une note : /forget <numéro donné par /memory>.
command-reset = Commencer une nouvelle session (l'historique précédent est conservé).
command-clear = Supprimer tout votre historique dans ce chat (avec confirmation).
command-export = Recevoir votre historique de ce chat sous forme de fichier : /export ou /export json.
command-model = Voir ou choisir le modèle qui vous répond : /model ou /model <nom>.
command-remember = Ajouter une note à garder : /remember <texte>. Modifier la note n : /remember <n> <nouveau texte>.
command-incognito = Ne rien garder de ce chat et n'utiliser aucun souvenir : /incognito on, /incognito off.
command-cancel = Arrêter la réponse que j'écris ; ce qui est déjà écrit reste (le bouton Arrêter fait de même).
command-retry = Répondre à nouveau à votre dernier message ; la nouvelle réponse remplace l'ancienne.

## La partie de /help et du menu des commandes réservée aux admins

admin-help-heading = Commandes d'administration (seuls les admins les voient) :
command-allow = Autoriser quelqu'un à utiliser le bot, en levant un blocage : /allow <id>.
command-block = Exclure quelqu'un, même si ALLOWED_USERS ou ALLOW_ALL_USERS l'autorisent : /block <id>.
command-unblock = Lever un blocage (ALLOWED_USERS et ALLOW_ALL_USERS décident à nouveau) : /unblock <id>.
command-limit = Voir ou fixer une limite quotidienne de tokens : /limit <id> [<tokens>|off|default].
command-users = Qui est autorisé, qui est bloqué, qui a été actif ces 7 derniers jours.
command-usage = Tokens par personne aujourd'hui et sur les 30 derniers jours : /usage [<id>].

unknown-command =
    Je ne connais pas cette commande. Voici celles que je comprends :

    { $commands }

## /start

start =
    Bonjour ! Je suis un assistant IA doté d'une mémoire.

    Je conserve notre conversation dans ce chat : les derniers messages mot pour mot (ceux de moins de { $history_window }) et des résumés des sessions précédentes (une session se termine après { $idle } de silence). Tout est supprimé automatiquement au bout de { $purge_after }.

    /persona définit mon comportement avec vous, /memory montre ce que je garde sur vous, /remember ajoute une note, /incognito on m'empêche de rien stocker, /stats montre ce que je stocke, /reset commence une nouvelle session, /export vous envoie votre historique, /clear le supprime. /help liste tout.

## Qui peut utiliser le bot

not-allowed = Désolé, ce bot est privé et vous ne figurez pas sur sa liste d'utilisateurs. Rien de ce que vous envoyez ici n'est conservé.
not-allowed-as-chat = Désolé, ce bot est privé : il ne répond qu'aux personnes de sa liste d'utilisateurs, et un message envoyé au nom d'une chaîne ou par un administrateur anonyme ne montre pas qui l'a écrit. Écrivez en votre nom pour l'utiliser. Rien de ce que vous envoyez ici n'est conservé.

## Contenu privé demandé dans un groupe

answered-in-private = Je vous ai envoyé la réponse dans notre chat privé, pour qu'elle ne reste pas dans le groupe.
ask-in-private = Je ne montre cela que dans un chat privé, et je ne peux pas encore vous y écrire. Ouvrez un chat avec moi (touchez mon nom), appuyez sur « Démarrer » et posez la question là-bas.
private-needs-a-person = Je ne montre cela que dans un chat privé, et un message envoyé au nom d'une chaîne ou par un administrateur anonyme n'a pas de chat privé où je puisse écrire. Demandez-le en votre nom dans un chat privé avec moi.
persona-saved-not-shown = Persona enregistrée. Je ne l'affiche pas dans le groupe ; /persona dans un chat privé avec moi vous la montre.
from-group =
    Vous avez demandé dans le groupe « { $group } » :

    { $answer }
export-caption-from-group = Votre historique dans le groupe « { $group } ».

## Réponses à la place d'une réponse du modèle

text-only = Je ne peux pas lire ce genre de message : les stickers, vidéos, archives et autres fichiers de ce type m'échappent. Je lis le texte, les photos, les messages vocaux et les documents texte (ainsi que les PDF) ; envoyez-le sous l'une de ces formes, s'il vous plaît.
tool-searching-memory = 🔧 je cherche dans votre mémoire…
tool-remembering = 🔧 je prends note…
tool-setting-reminder = 🔧 je crée un rappel…
tool-using = 🔧 j’utilise un outil…
model-unavailable = Le modèle ne répond pas pour le moment. Votre message est enregistré ; réessayez dans une minute.
model-rate-limited = Le modèle est surchargé pour le moment (limite de requêtes). Votre message est enregistré ; réessayez dans une minute.
internal-error = Un problème est survenu de mon côté et je n'ai pas pu traiter ce message. Réessayez dans un instant.
storage-full = Je ne peux rien enregistrer pour le moment car mon espace de stockage est plein. L'opérateur a été prévenu ; réessayez plus tard.
empty-message = Votre message est vide : écrivez quelque chose et je vous répondrai.
empty-reply = Le modèle a renvoyé une réponse vide. Reformulez ou réessayez.
message-too-long = Votre message fait { $length } caractères ; j'en accepte au plus { $max }. Raccourcissez-le ou découpez-le en plusieurs parties.
too-many-waiting = Vous envoyez des messages plus vite que je ne peux répondre : { $max ->
        [one] { $max } de vos messages attend déjà
       *[other] { $max } de vos messages attendent déjà
    }. Je vais y répondre ; ce que vous envoyez d'ici là n'est pas lu, alors renvoyez-le une fois que j'aurai répondu.
too-many-per-minute = Cela fait plus de { $max ->
        [one] { $max } message
       *[other] { $max } messages
    } en une minute, je n'ai donc pas lu le dernier. Patientez un instant et renvoyez-le.

## /clear

clear-confirm = Supprimer tout votre historique dans ce chat : messages, sessions, résumés et notes ? Votre persona est conservée. Cette action est irréversible.
clear-button-yes = Oui, supprimer
clear-button-no = Annuler
clear-cancelled = Rien n'a été supprimé.
clear-not-yours = Seule la personne qui a demandé /clear peut le confirmer.
cleared = { $messages ->
        [one] { $messages } message supprimé
       *[other] { $messages } messages supprimés
    } ({ $sessions ->
        [one] { $sessions } session
       *[other] { $sessions } sessions
    }). Je ne me souviens plus de rien de ce chat.

## /reset

reset-done = Nouvelle session commencée. Je garde nos conversations précédentes et je peux m'en souvenir quand elles comptent.
reset-nothing-open = Une nouvelle session commence avec votre prochain message. Je me souviens toujours des conversations précédentes.

## /persona

persona-reset = Persona réinitialisée : je reprends mon comportement par défaut.
persona-none =
    Vous n'avez pas défini de persona, je garde donc mon comportement par défaut.
    Définissez-en une avec /persona <comment je dois me comporter>, p. ex. /persona Réponds brièvement, comme un pirate.
persona-current =
    Votre persona :

    { $persona }

    Modifiez-la avec /persona <texte>, ou revenez au comportement par défaut avec /persona reset.
persona-saved =
    Persona enregistrée. Désormais :

    { $persona }
persona-too-long = Cette persona fait { $length } caractères ; { $max } au maximum sont autorisés. Raccourcissez-la, s'il vous plaît.

## /export

export-empty = Il n'y a rien à exporter : aucun message de vous n'est enregistré dans ce chat.
export-caption = Votre historique dans ce chat.
export-title = Historique telemem
export-author-user = Vous
export-author-bot = Bot
export-author-system = Système
export-reminders = Rappels

## /forget et /memory

forget-usage = Indiquez-moi le numéro de la note à oublier, p. ex. /forget 2. /memory les liste.
forgot = Oublié : { $note }
no-such-note = Je n'ai pas de note numéro { $number }. /memory liste les notes que je garde.
memory-no-notes = Je n'ai encore aucune note sur vous dans ce chat. Les faits et préférences durables que vous me confiez sont notés à la fin d'une session ; /remember <texte> en ajoute une tout de suite.
memory-notes-heading = Notes que je garde sur vous :
memory-note = { $number }. { $note } (depuis le { $since })
memory-incognito = Le mode incognito est activé dans ce chat : je ne stocke rien de ce que nous disons et n'utilise rien de ceci dans mes réponses. /incognito off le désactive.
memory-note-by-hand = { $number }. { $note } (ajoutée par vous le { $since })
memory-note-earlier = avant : { $note } (jusqu'au { $until })
memory-notes-how-to = En modifier une : /remember <numéro> <nouveau texte>. En supprimer une : /forget <numéro>. En ajouter une : /remember <texte>.
memory-no-summaries = Pas encore de résumés de sessions : une session est résumée une fois terminée.
memory-summaries-heading = Résumés de nos sessions précédentes :

## /stats

stats =
    Vos statistiques dans ce chat
    Messages enregistrés : { $stored }
    Messages dans le contexte actuel : { $in_context }
    Jetons aujourd'hui : { $tokens_today }
    Jetons au total : { $tokens_total }
    Session en cours : { $session }
    Dernière activité : { $last_activity }
    Modèle : { $model }
stats-tokens-today-limited = { $used } sur { $limit } (dans tous vos chats)
stats-tokens-today = { $used } (dans tous vos chats)
stats-model-no-longer-offered = (le modèle que vous avez choisi n'est plus proposé)
stats-incognito = Incognito : activé (rien de ce chat n'est stocké)
stats-incognito-tokens = Sur les tokens d'aujourd'hui, en incognito : { $tokens }
stats-session = { $age } (depuis le { $since })
stats-no-session = aucune en cours
stats-never = jamais

## Durées

duration-days = { $count ->
        [one] { $count } jour
       *[other] { $count } jours
    }
duration-hours = { $count ->
        [one] { $count } heure
       *[other] { $count } heures
    }
duration-minutes = { $count ->
        [one] { $count } minute
       *[other] { $count } minutes
    }
duration-seconds = { $count ->
        [one] { $count } seconde
       *[other] { $count } secondes
    }
duration-two-units = { $larger } et { $smaller }

## telemem chat dans un terminal

terminal-welcome = telemem chat en tant qu'utilisateur { $user } dans le chat { $chat }. Tapez un message et appuyez sur Entrée ; /help liste les commandes, /quit quitte.
terminal-cannot-clear = /clear demande une confirmation avec des boutons, qu'un terminal ne peut pas afficher ; rien n'a donc été supprimé.
terminal-cannot-export = /export envoie votre historique sous forme de fichier, qu'un terminal ne peut pas recevoir.

## Tailles et nombres

size-megabytes = { $size } Mo
size-kilobytes = { $size } Ko
size-bytes = { $count ->
        [one] { $count } octet
       *[other] { $count } octets
    }
count-messages = { $count ->
        [one] { $shown } message
       *[other] { $shown } messages
    }
count-tokens = { $count ->
        [one] { $shown } token
       *[other] { $shown } tokens
    }

## Photos, messages vocaux et documents

media-heard = 🎤 « { $transcript } »
media-document-cut = 📄 Le document est long : j'en ai lu les { $shown } premiers caractères sur { $total }.
media-file-too-big = Ce fichier est trop gros pour moi : Telegram permet aux bots de récupérer des fichiers de 20 Mo au plus. Envoyez-en un plus petit, s'il vous plaît.
media-document-too-big = Ce document dépasse les { $max } que je lis. Envoyez un fichier plus court, ou collez la partie importante, s'il vous plaît.
media-image-too-big = Ce fichier image est trop lourd pour le modèle (plus de 5 Mo). Envoyez-le plutôt comme photo : Telegram le réduit.
media-file-empty = Ce fichier est vide, je n'ai donc rien à lire.
media-image-unreadable = Je n'ai pas pu ouvrir cette image : ce n'est pas une image JPEG, PNG, GIF ou WebP, ou elle est endommagée.
media-document-not-text = Je n'ai pas pu lire ce fichier comme du texte : il semble binaire ou endommagé, ou il n'est pas en UTF-8.
media-pdf-unreadable = Je n'ai pas pu lire ce PDF : il semble endommagé ou protégé.
media-pdf-no-text = Ce PDF ne contient aucun texte que je puisse lire ; c'est sans doute un scan. Envoyez ses pages en photos, s'il vous plaît.
media-file-unavailable = Je n'ai pas pu récupérer votre fichier auprès de Telegram pour l'instant. Renvoyez-le dans une minute, s'il vous plaît.
media-timeout = Récupérer et lire votre fichier a pris trop de temps, j'ai donc arrêté. Réessayez dans une minute, s'il vous plaît.
media-voice-not-set-up = Les messages vocaux ne sont pas configurés sur ce bot, je ne peux donc pas les écouter. Tapez votre message, s'il vous plaît.
media-transcription-unavailable = Je n'ai pas pu transcrire votre enregistrement : le service de transcription ne répond pas pour l'instant. Réessayez dans une minute, ou tapez-le.
media-transcription-refused = Je n'ai pas pu comprendre cet enregistrement : le service de transcription n'a pas pu le lire. Enregistrez-le à nouveau, ou tapez-le.
media-nothing-heard = Je n'ai entendu aucun mot dans cet enregistrement. Réessayez, ou tapez-le.
media-vision-not-supported = Le modèle que j'utilise ne peut pas voir les images. Votre légende est enregistrée ; décrivez l'image avec des mots, ou demandez à l'opérateur de régler VISION_MODEL sur un modèle qui voit.

## Arrêt, /cancel et /retry

stop-button = ⏹ Arrêter
nothing-to-stop = Il n'y a rien à arrêter : je n'écris aucune réponse pour vous en ce moment.
stop-not-yours = Seule la personne à qui cette réponse est destinée peut l'arrêter.
terminal-nothing-to-stop = Il n'y a rien à arrêter pour l'instant. Pendant qu'une réponse s'écrit, Ctrl-C l'arrête.
nothing-to-retry = Il n'y a rien à quoi répondre à nouveau : vous ne m'avez pas encore écrit dans ce chat.
retry-while-running = Je réponds encore à votre dernier message. Attendez cette réponse (ou arrêtez-la avec /cancel), puis envoyez /retry.
replaced-by-newer = ↻ Remplacée par une réponse plus récente ci-dessous.

## /remember

remember-usage = Dites-moi quoi noter, par exemple /remember Je suis végétarien. Pour modifier la note 2 (telle que /memory les liste), écrivez /remember 2 <nouveau texte>.
remembered =
    C'est noté : { $note }
    /memory liste vos notes.
already-remembered = Je garde déjà cette note : { $note }
note-replaced =
    Note { $number } modifiée.
    Avant : { $old }
    Maintenant : { $new }
note-too-long = Cette note fait { $length } caractères ; { $max } au maximum sont autorisés. Raccourcissez-la, s'il vous plaît.
too-many-notes = Vous avez déjà ajouté { $max } notes, autant que j'en garde. Supprimez-en une avec /forget <numéro> (voir /memory), ou modifiez-en une avec /remember <numéro> <nouveau texte>.

## /model

model-in-use = C'est { $model } qui vous répond.
model-choice-unavailable = Le modèle que vous avez choisi, { $chosen }, n'est plus proposé, c'est donc { $model } qui vous répond maintenant.
model-unknown = Je ne propose aucun modèle nommé « { $name } ».
model-chosen = Désormais, c'est { $model } qui vous répond, dans tous nos chats.
model-choose-with-buttons = Touchez un modèle pour le choisir (ou écrivez /model <nom>) :
model-choose-by-name = Choisissez-en un avec /model <nom> :
model-menu-not-yours = Seule la personne qui a demandé cette liste peut choisir ici. Écrivez /model pour la vôtre.
model-menu-out-of-date = La liste des modèles a changé ; la voici à nouveau.

## /incognito

incognito-is-on = Le mode incognito est activé dans ce chat : je ne stocke rien de ce que nous disons et n'utilise aucun souvenir des conversations précédentes, seulement nos derniers messages pendant quelques minutes. /incognito off le désactive.
incognito-is-off = Le mode incognito est désactivé : je garde notre conversation dans ce chat et je m'en souviens. /incognito on change cela : je ne stocke alors rien de ce que nous disons et n'utilise aucun souvenir.
incognito-switched-on = Mode incognito activé. Désormais, je ne stocke rien de ce que nous disons dans ce chat et n'utilise aucun souvenir des conversations précédentes (votre persona s'applique toujours) ; je garde seulement nos derniers messages pendant quelques minutes, et je les oublie quand vous le désactivez. /incognito off le désactive.
incognito-switched-off = Mode incognito désactivé. Je garde à nouveau notre conversation dans ce chat et je m'en souviens ; rien de la partie en incognito n'a été gardé.

## Limites

daily-limit-reached = Vous avez utilisé vos { $limit } tokens pour aujourd'hui ({ $used } jusqu'ici), je n'ai donc ni envoyé ce message au modèle ni enregistré. La limite est réinitialisée à { $resets_at } (dans { $wait }) ; renvoyez-le à ce moment-là, s'il vous plaît.
stored-history-capped = Votre historique stocké chez moi a atteint sa limite de { $megabytes } Mo : j'ai donc supprimé vos plus anciennes conversations pour faire de la place, et je continuerai à supprimer les plus anciennes à mesure que de nouvelles arrivent. /export vous envoie ce que je garde encore.

## Commandes d'administration

admin-only-in-private = Les commandes d'administration ne fonctionnent que dans un chat privé avec moi, pour qu'elles restent hors des groupes.
allow-usage = Indiquez-moi qui laisser entrer par son id Telegram, par exemple /allow 123456789.
block-usage = Indiquez-moi qui bloquer par son id Telegram, par exemple /block 123456789.
unblock-usage = Indiquez-moi de qui lever le blocage par son id Telegram, par exemple /unblock 123456789.
limit-usage = Utilisation : /limit <id> montre la limite quotidienne de tokens d'une personne ; /limit <id> <tokens> la fixe (par exemple /limit 123456789 50000), /limit <id> off la lève, /limit <id> default revient à USER_DAILY_TOKEN_LIMIT.
usage-usage = Utilisation : /usage pour les tokens de tout le monde, ou /usage <id> pour ceux d'une personne.
cannot-block-yourself = Vous ne pouvez pas vous bloquer vous-même.
cannot-block-admin = Les personnes dans ADMIN_USERS ne peuvent pas être bloquées ; retirez-les d'abord de ce réglage.
access-allowed = { $user } peut désormais utiliser le bot.
access-already-allowed = { $user } est déjà autorisé ; rien n'a changé.
access-blocked = { $user } est désormais bloqué : je ne lui répondrai plus, quoi que disent les listes d'autorisation.
access-already-blocked = { $user } est déjà bloqué.
access-unblocked = { $user } n'est plus bloqué ; ALLOWED_USERS et ALLOW_ALL_USERS décident à nouveau à son sujet (/allow le laisse entrer).
access-not-blocked = { $user } n'est pas bloqué ; rien n'a changé.
limit-tokens-a-day = { $count ->
        [one] { $shown } token par jour
       *[other] { $shown } tokens par jour
    }
limit-none = aucune limite
limit-set-by-admin = fixée par l'admin { $admin } avec /limit
limit-admins-exempt = les admins en sont exemptés
limit-with-source = { $amount } ({ $source })
limit-of = Limite quotidienne de tokens de { $user } : { $limit }.
usage-of =
    Consommation de { $user }
    Tokens aujourd'hui : { $today }
    { $days } derniers jours : { $tokens }, { $messages }
    Limite : { $limit }
usage-today-of-limit = { $used } sur { $limit }
usage-nobody = Personne n'a utilisé de tokens ces { $days } derniers jours.
usage-report-heading = Tokens par personne, aujourd'hui · { $days } derniers jours :
users-admins = Admins : { $ids }
users-allow-all = Autorisés : tout le monde (ALLOW_ALL_USERS)
users-allowed-by-admins = Autorisés par les admins
users-blocked = Bloqués
users-nobody = personne
users-rule = { $user } (par { $admin }, { $at })
users-nobody-active = Personne n'a été actif ces { $days } derniers jours.
users-active-heading = Actifs ces { $days } derniers jours :

## Alertes aux admins au sujet d'inconnus

stranger-alert = Quelqu'un qui n'est pas sur la liste d'autorisation m'a écrit : { $name }{ $handle }, id { $id }. Je lui ai dit que le bot est privé et n'ai rien enregistré de ce qu'il a envoyé.
stranger-button-allow = Autoriser
stranger-button-block = Bloquer
stranger-allowed-by = Autorisé par { $admin } (id { $admin_id }).
stranger-blocked-by = Bloqué par { $admin } (id { $admin_id }).
only-admins-decide = Seuls les admins peuvent en décider.

# The Mini App (the bot's side), and /settings.
command-settings = Afficher vos réglages : persona, modèle, incognito, fuseau horaire.
webapp-failed = Quelque chose s’est mal passé de mon côté. Réessayez dans un instant.
webapp-too-many = C’était beaucoup d’un coup. Attendez { $seconds } s et réessayez.
webapp-private-chat = Discussion privée avec moi
webapp-group-chat = Groupe { $id }
webapp-memory-button = 🧠 Voir et modifier ma mémoire
webapp-settings-button = ⚙️ Modifier les réglages
webapp-export-sent = Je vous ai envoyé le fichier dans notre discussion privée.
webapp-menu-button = Mémoire
settings-heading = Vos réglages :
settings-persona = Persona : { $persona }
settings-persona-default = Persona : celle par défaut
settings-model = Modèle : { $model }
settings-incognito-on = Incognito dans cette discussion : activé
settings-incognito-off = Incognito dans cette discussion : désactivé
settings-time-zone = Fuseau horaire : { $zone }
settings-time-zone-default = Fuseau horaire : { $zone } (par défaut)
settings-how-to-change = Modifiez-les avec /persona, /model, /incognito et /timezone.

# Tools: reminders, time zones, /tools.
command-timezone = Voir ou définir votre fuseau horaire pour les rappels : /timezone Europe/Paris, ou /timezone reset.
command-reminders = Lister vos rappels, avec des boutons pour les annuler.
command-tools = Voir les outils que je peux utiliser pour vous.
reminder-due = ⏰ Rappel : { $text }
reminder-late = ⏰ Rappel (prévu { $due } ; j’étais hors ligne) : { $text }
reminders-heading = Vos rappels :
reminders-none = Vous n’avez aucun rappel. Demandez-moi par exemple : « rappelle-moi demain à 9 h d’appeler Anna ».
reminders-zone = Les heures sont dans votre fuseau horaire, { $zone }.
reminders-zone-default = Les heures sont en { $zone } ; définissez le vôtre avec /timezone, p. ex. /timezone Europe/Paris.
reminder-cancel-button = ✖ Annuler { $number }
reminder-cancelled = Rappel annulé.
reminder-already-gone = Ce rappel a déjà été envoyé ou annulé.
reminder-not-yours = Ce sont les rappels de quelqu’un d’autre.
timezone-current = Votre fuseau horaire est { $zone } ; il y est { $time }. Changez-le avec /timezone <fuseau>, p. ex. /timezone America/New_York.
timezone-default = Vous n’avez pas défini de fuseau horaire, j’utilise donc { $zone } (il y est { $time }). Définissez le vôtre avec /timezone <fuseau>, p. ex. /timezone Europe/Paris.
timezone-set = Votre fuseau horaire est maintenant { $zone } ; il y est { $time }.
timezone-reset = Votre fuseau horaire est oublié ; j’utilise de nouveau { $zone }.
timezone-unknown = Je ne connais pas le fuseau horaire « { $name } ». Utilisez un nom comme Europe/Paris, America/New_York ou Asia/Tokyo.
tools-heading = Outils que je peux utiliser pour vous :
tools-off = Les outils sont désactivés sur ce bot.
tools-unsupported = Le modèle { $model } ne sait pas utiliser d’outils, je réponds donc sans eux.
tools-incognito-note = En mode incognito, je n’utilise que des outils qui ne conservent rien.

## Inline mode

inline-title = Demander à { $bot }
inline-waiting = ⏳ Je réfléchis…

## Mini App page
# The page's sentences (src/webapp/page/), sent to it by /app/api/me. Plain text, no variables.
app-title = Votre mémoire
app-tab-memory = Mémoire
app-tab-search = Recherche
app-tab-settings = Réglages
app-tab-usage = Consommation
app-tab-admin = Admin
app-chat = Chat
app-private-chat = Chat privé
app-group-chat = Chats de groupe
app-notes = Notes
app-no-notes = Pas encore de notes.
app-since = Depuis le
app-until = jusqu’au
app-earlier = Versions précédentes
app-add-note = Ajouter une note
app-add-note-placeholder = Quelque chose dont je dois me souvenir…
app-save = Enregistrer
app-cancel = Annuler
app-edit = Modifier
app-remove = Supprimer
app-confirm-remove-summary = Supprimer ce résumé ? Je ne me souviendrai plus de cette conversation.
app-summaries = Résumés des conversations
app-no-summaries = Pas encore de résumés.
app-search = Chercher
app-search-placeholder = Des mots ou une question…
app-no-results = Rien trouvé.
app-kind-message = Message
app-kind-summary = Résumé
app-kind-note = Note
app-role-user = Vous
app-role-assistant = Bot
app-role-system = Système
app-persona = Personnalité
app-persona-placeholder = Comment dois-je vous parler ? Laissez vide pour la valeur par défaut.
app-model = Modèle
app-incognito = Incognito : ne rien retenir de ce chat
app-time-zone = Fuseau horaire
app-time-zone-hint = Un nom comme Europe/Paris ; laissez vide pour la valeur par défaut.
app-export = Exporter
app-export-json = Télécharger en JSON
app-export-markdown = Télécharger en Markdown
app-tokens-per-day = Tokens par jour, 30 derniers jours
app-today = Aujourd’hui
app-daily-limit = Limite quotidienne
app-no-limit = Pas de limite quotidienne
app-images-today = Images aujourd'hui
app-speech-today = Voix aujourd'hui
app-admin-usage = Tokens de tout le monde par jour
app-admin-people = Personnes
app-user = Utilisateur
app-messages = Messages
app-tokens = Tokens
app-limit = Limite
app-access = Accès
app-access-allowed = autorisé
app-access-blocked = bloqué
app-access-admin = admin
app-access-stranger = inconnu
app-allow = Autoriser
app-block = Bloquer
app-unblock = Débloquer
app-set-limit = Fixer la limite
app-limit-placeholder = nombre, off ou default
app-strangers = Inconnus qui ont écrit
app-no-strangers = Aucun inconnu n’a écrit.
app-saved = Enregistré.
app-error = Un problème est survenu. Réessayez.
app-forbidden = Vous ne pouvez pas faire cela.
app-open-from-telegram = Ouvrez cette page depuis le bot dans Telegram.

## Réponses vocales, /tts, /voice et /image

command-voice = Choisir quand je réponds aussi à voix haute : /voice on, /voice off ou /voice auto (quand vous parlez).
command-tts = Lire un texte à voix haute en message vocal : /tts <texte>.
command-image = Dessiner une image : /image <description>.
voice-state = Réponses vocales : { $mode ->
        [on] activées (chaque réponse est aussi lue à voix haute)
        [off] désactivées (texte seulement)
       *[auto] automatiques (à voix haute quand vous envoyez un message vocal)
    }. Modifiez-les avec /voice on, /voice off ou /voice auto.
voice-set = C'est fait. Réponses vocales : { $mode ->
        [on] activées (chaque réponse est aussi lue à voix haute)
        [off] désactivées (texte seulement)
       *[auto] automatiques (à voix haute quand vous envoyez un message vocal)
    }.
speech-not-set-up = La lecture à voix haute n'est pas configurée sur ce bot (l'opérateur peut définir TTS_BASE_URL).
tts-usage = Écrivez le texte à lire après la commande : /tts <texte>.
tts-too-long = Ce texte compte { $length } caractères ; j'en lis au plus { $max } à la fois. Envoyez-en un plus court, s'il vous plaît.
speech-failed = Je n'ai pas pu lire cela à voix haute : le service vocal n'a pas répondu. Réessayez plus tard, s'il vous plaît.
speech-limit-reached = Vous avez utilisé les { $limit } secondes de voix d'aujourd'hui ; jusqu'à { $resets_at } (dans { $wait }), vous recevez du texte seulement.
image-not-set-up = Le dessin n'est pas configuré sur ce bot (l'opérateur peut définir IMAGE_BASE_URL).
image-usage = Écrivez quoi dessiner après la commande : /image <description>, par exemple /image un renard roux dans la neige.
image-too-long = Cette description compte { $length } caractères ; { $max } au plus sont acceptés. Raccourcissez-la, s'il vous plaît.
image-unsafe = Le service d'images a refusé de dessiner cela. Sa raison : { $reason }
image-unsafe-no-reason = Le service d'images a refusé de dessiner cela.
image-timed-out = Le service d'images a mis trop de temps à dessiner cela. Réessayez plus tard, s'il vous plaît.
image-failed = Je n'ai pas pu dessiner cela : le service d'images a échoué. Réessayez plus tard, s'il vous plaît.
image-limit-reached = Vous avez utilisé les { $limit } images d'aujourd'hui. Vous pourrez en demander d'autres après { $resets_at } (dans { $wait }).
stats-images-today = Images aujourd'hui : { $used }
stats-images-today-limited = Images aujourd'hui : { $used } sur { $limit }
stats-speech-today = Voix aujourd'hui : { $used } s
stats-speech-today-limited = Voix aujourd'hui : { $used } s sur { $limit } s
usage-media = Images : { $images }, voix : { $seconds } s
terminal-cannot-send-media = Les messages vocaux et les images sont envoyés dans Telegram ; un terminal ne peut ni les lire ni les afficher.
