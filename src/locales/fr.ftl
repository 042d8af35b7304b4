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

unknown-command =
    Je ne connais pas cette commande. Voici celles que je comprends :

    { $commands }

## /start

start =
    Bonjour ! Je suis un assistant IA doté d'une mémoire.

    Je conserve notre conversation dans ce chat : les derniers messages mot pour mot (ceux de moins de { $history_window }) et des résumés des sessions précédentes (une session se termine après { $idle } de silence). Tout est supprimé automatiquement au bout de { $purge_after }.

    /persona définit mon comportement avec vous, /memory montre ce que je garde sur vous, /stats ce que je stocke, /reset commence une nouvelle session, /export vous envoie votre historique, /clear le supprime. /help liste tout.

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

text-only = Pour l'instant, je ne lis que les messages texte : les stickers, photos, messages vocaux et fichiers m'échappent. Écrivez-le en texte, s'il vous plaît.
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

## /forget et /memory

forget-usage = Indiquez-moi le numéro de la note à oublier, p. ex. /forget 2. /memory les liste.
forgot = Oublié : { $note }
no-such-note = Je n'ai pas de note numéro { $number }. /memory liste les notes que je garde.
memory-no-notes = Je n'ai encore aucune note sur vous dans ce chat. Les faits et préférences durables que vous me confiez sont notés à la fin d'une session.
memory-notes-heading = Notes que je garde sur vous (supprimez-en une avec /forget <numéro>) :
memory-note = { $number }. { $note } (depuis le { $since })
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
