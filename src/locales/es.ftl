# Todas las frases que telemem escribe por sí mismo, en español. El modelo es en.ftl: allí se
# explica cada mensaje. Se conservan todos los ids y todos los marcadores `{ $nombre }` de en.ftl;
# los nombres de los comandos (/persona, /forget, …) no se traducen. Si aquí falta un mensaje, el
# bot lo escribe en inglés.

## Ayuda y menú de comandos

help-intro = Soy un asistente de IA que recuerda nuestras conversaciones. Comandos:
command-start = Saludar y explicar qué recuerdo.
command-help = Mostrar esta lista de comandos.
command-persona = Ver o definir cómo me comporto contigo: /persona <texto>, o /persona reset.
command-stats = Mostrar qué guardo sobre ti en este chat.
command-memory = Mostrar las notas y los resúmenes de sesiones que guardo sobre ti en este chat.
command-forget = Olvidar una nota: /forget <número de /memory>.
command-reset = Empezar una sesión nueva (el historial anterior se conserva).
command-clear = Borrar todo tu historial en este chat (pregunta antes).
command-export = Enviarte tu historial de este chat como archivo: /export o /export json.
command-model = Ver o elegir el modelo que te responde: /model o /model <nombre>.
command-remember = Añadir una nota para que la guarde: /remember <texto>. Cambiar la nota n: /remember <n> <texto nuevo>.
command-incognito = No guardar nada de este chat ni usar recuerdos: /incognito on, /incognito off.
command-cancel = Detener la respuesta que estoy escribiendo; lo ya escrito se queda (el botón Detener hace lo mismo).
command-retry = Responder de nuevo a tu último mensaje; la respuesta nueva sustituye a la anterior.

## La parte de /help y del menú de comandos solo para administradores

admin-help-heading = Comandos de administración (solo los ven los administradores):
command-allow = Dejar que alguien use el bot, quitando un bloqueo: /allow <id>.
command-block = Dejar fuera a alguien, aunque ALLOWED_USERS o ALLOW_ALL_USERS le dejen entrar: /block <id>.
command-unblock = Quitar un bloqueo (ALLOWED_USERS y ALLOW_ALL_USERS vuelven a decidir): /unblock <id>.
command-limit = Ver o fijar un límite diario de tokens: /limit <id> [<tokens>|off|default].
command-users = Quién tiene permiso, quién está bloqueado, quién estuvo activo en los últimos 7 días.
command-usage = Tokens por persona hoy y en los últimos 30 días: /usage [<id>].

unknown-command =
    No conozco ese comando. Estos son los que entiendo:

    { $commands }

## /start

start =
    ¡Hola! Soy un asistente de IA con memoria.

    Guardo nuestra conversación en este chat: los últimos mensajes tal cual (los de hasta { $history_window } de antigüedad) y resúmenes de las sesiones anteriores (una sesión termina tras { $idle } de silencio). Todo se borra automáticamente al cabo de { $purge_after }.

    /persona define cómo me comporto contigo, /memory muestra lo que guardo sobre ti, /remember añade una nota, /incognito on hace que no guarde nada, /stats muestra lo que almaceno, /reset empieza una sesión nueva, /export te envía tu historial y /clear lo borra. /help lo enumera todo.

## Quién puede usar el bot

not-allowed = Lo siento, este bot es privado y no estás en su lista de usuarios. No se guarda nada de lo que envíes aquí.
not-allowed-as-chat = Lo siento, este bot es privado: solo responde a las personas de su lista de usuarios, y un mensaje enviado como canal o como administrador anónimo no muestra quién lo escribió. Escribe en tu propio nombre para usarlo. No se guarda nada de lo que envíes aquí.

## Contenido privado pedido en un grupo

answered-in-private = Te he enviado la respuesta en nuestro chat privado, para que no quede en el grupo.
ask-in-private = Esto solo lo muestro en un chat privado, y todavía no puedo escribirte allí. Abre un chat conmigo (toca mi nombre), pulsa «Iniciar» y pregúntame allí.
private-needs-a-person = Esto solo lo muestro en un chat privado, y un mensaje enviado como canal o como administrador anónimo no tiene un chat privado al que pueda escribir. Pregúntame en tu propio nombre en un chat privado conmigo.
persona-saved-not-shown = Persona guardada. No la muestro en el grupo; /persona en un chat privado conmigo te la enseña.
from-group =
    Preguntaste en el grupo «{ $group }»:

    { $answer }
export-caption-from-group = Tu historial en el grupo «{ $group }».

## Respuestas en lugar de una respuesta del modelo

text-only = No puedo leer este tipo de mensaje: los stickers, los vídeos, los archivos comprimidos y otros archivos así se me escapan. Leo texto, fotos, notas de voz y documentos de texto (también PDF); envíalo como uno de ellos, por favor.
tool-searching-memory = 🔧 buscando en tu memoria…
tool-remembering = 🔧 tomando nota…
tool-setting-reminder = 🔧 creando un recordatorio…
tool-using = 🔧 usando una herramienta…
model-unavailable = El modelo no responde en este momento. Tu mensaje está guardado; inténtalo de nuevo dentro de un minuto.
model-rate-limited = El modelo está ocupado en este momento (límite de peticiones). Tu mensaje está guardado; inténtalo de nuevo dentro de un minuto.
internal-error = Algo ha fallado por mi parte y no he podido procesar ese mensaje. Inténtalo de nuevo en un momento.
storage-full = Ahora mismo no puedo guardar nada porque mi almacenamiento está lleno. El operador ya está avisado; inténtalo más tarde.
empty-message = Tu mensaje está vacío: escribe algo y te responderé.
empty-reply = El modelo ha devuelto una respuesta vacía. Reformúlalo o inténtalo de nuevo.
message-too-long = Tu mensaje tiene { $length } caracteres; acepto como máximo { $max }. Acórtalo o divídelo en partes.
too-many-waiting = Me envías mensajes más rápido de lo que puedo responder: { $max ->
        [one] { $max } mensaje tuyo ya está esperando
       *[other] { $max } mensajes tuyos ya están esperando
    }. Primero respondo a lo que ya espera; lo que envíes hasta entonces no lo leo, así que vuelve a enviarlo cuando haya respondido.
too-many-per-minute = Son más de { $max ->
        [one] { $max } mensaje
       *[other] { $max } mensajes
    } en un minuto, así que no he leído el último. Espera un momento y vuelve a enviarlo.

## /clear

clear-confirm = ¿Borrar todo tu historial en este chat: mensajes, sesiones, resúmenes y notas? Tu persona se mantiene. Esto no se puede deshacer.
clear-button-yes = Sí, bórralo
clear-button-no = Cancelar
clear-cancelled = No se ha borrado nada.
clear-not-yours = Solo quien pidió /clear puede confirmarlo.
cleared = { $messages ->
        [one] Se ha borrado { $messages } mensaje
       *[other] Se han borrado { $messages } mensajes
    } de { $sessions ->
        [one] { $sessions } sesión
       *[other] { $sessions } sesiones
    }. Ya no recuerdo nada de este chat.

## /reset

reset-done = He empezado una sesión nueva. Sigo guardando nuestras conversaciones anteriores y puedo recordarlas cuando sean relevantes.
reset-nothing-open = Con tu próximo mensaje empieza una sesión nueva. Las conversaciones anteriores se siguen recordando.

## /persona

persona-reset = Persona restablecida: vuelvo a mi comportamiento predeterminado.
persona-none =
    No tienes ninguna persona definida, así que me comporto como de costumbre.
    Define una con /persona <cómo debo comportarme>, p. ej. /persona Responde breve, como un pirata.
persona-current =
    Tu persona:

    { $persona }

    Cámbiala con /persona <texto>, o vuelve a la predeterminada con /persona reset.
persona-saved =
    Persona guardada. A partir de ahora:

    { $persona }
persona-too-long = Esa persona tiene { $length } caracteres; se permiten como máximo { $max }. Acórtala, por favor.

## /export

export-empty = No hay nada que exportar: no hay mensajes tuyos guardados en este chat.
export-caption = Tu historial en este chat.
export-title = Historial de telemem
export-author-user = Tú
export-author-bot = Bot
export-author-system = Sistema
export-reminders = Recordatorios

## /forget y /memory

forget-usage = Dime el número de la nota que debo olvidar, p. ej. /forget 2. /memory las enumera.
forgot = Olvidado: { $note }
no-such-note = No tengo ninguna nota con el número { $number }. /memory enumera las notas que guardo.
memory-no-notes = Todavía no guardo notas sobre ti en este chat. Los datos y preferencias duraderos que me cuentes se anotan cuando termina una sesión; /remember <texto> añade una ahora.
memory-notes-heading = Notas que guardo sobre ti:
memory-note = { $number }. { $note } (desde { $since })
memory-incognito = El modo incógnito está activado en este chat: no guardo nada de lo que decimos ni uso nada de esto en mis respuestas. /incognito off lo desactiva.
memory-note-by-hand = { $number }. { $note } (añadida por ti el { $since })
memory-note-earlier = antes: { $note } (hasta { $until })
memory-notes-how-to = Cambiar una: /remember <número> <texto nuevo>. Quitar una: /forget <número>. Añadir una: /remember <texto>.
memory-no-summaries = Todavía no hay resúmenes de sesiones: una sesión se resume cuando termina.
memory-summaries-heading = Resúmenes de nuestras sesiones anteriores:

## /stats

stats =
    Tus estadísticas en este chat
    Mensajes guardados: { $stored }
    Mensajes en el contexto actual: { $in_context }
    Tokens hoy: { $tokens_today }
    Tokens en total: { $tokens_total }
    Sesión actual: { $session }
    Última actividad: { $last_activity }
    Modelo: { $model }
stats-tokens-today-limited = { $used } de { $limit } (en todos tus chats)
stats-tokens-today = { $used } (en todos tus chats)
stats-model-no-longer-offered = (el modelo que elegiste ya no se ofrece)
stats-incognito = Incógnito: activado (no se guarda nada de este chat)
stats-incognito-tokens = De los tokens de hoy, en incógnito: { $tokens }
stats-session = { $age } (desde { $since })
stats-no-session = ninguna abierta
stats-never = nunca

## Duraciones

duration-days = { $count ->
        [one] { $count } día
       *[other] { $count } días
    }
duration-hours = { $count ->
        [one] { $count } hora
       *[other] { $count } horas
    }
duration-minutes = { $count ->
        [one] { $count } minuto
       *[other] { $count } minutos
    }
duration-seconds = { $count ->
        [one] { $count } segundo
       *[other] { $count } segundos
    }
duration-two-units = { $larger } y { $smaller }

## telemem chat en un terminal

terminal-welcome = telemem chat como usuario { $user } en el chat { $chat }. Escribe un mensaje y pulsa Intro; /help enumera los comandos, /quit sale.
terminal-cannot-clear = /clear pide una confirmación con botones, que un terminal no puede mostrar, así que no se ha borrado nada.
terminal-cannot-export = /export envía tu historial como archivo, que un terminal no puede recibir.

## Tamaños y cantidades

size-megabytes = { $size } MB
size-kilobytes = { $size } KB
size-bytes = { $count ->
        [one] { $count } byte
       *[other] { $count } bytes
    }
count-messages = { $count ->
        [one] { $shown } mensaje
       *[other] { $shown } mensajes
    }
count-tokens = { $count ->
        [one] { $shown } token
       *[other] { $shown } tokens
    }

## Fotos, notas de voz y documentos

media-heard = 🎤 «{ $transcript }»
media-document-cut = 📄 El documento es largo: he leído los primeros { $shown } de sus { $total } caracteres.
media-file-too-big = Ese archivo es demasiado grande para mí: Telegram deja que los bots descarguen archivos de hasta 20 MB. Envía uno más pequeño, por favor.
media-document-too-big = Ese documento supera los { $max } que leo. Envía un archivo más corto o pega la parte que importa, por favor.
media-image-too-big = Ese archivo de imagen es demasiado grande para el modelo (más de 5 MB). Envíalo como foto: Telegram lo hace más pequeño.
media-file-empty = Ese archivo está vacío, así que no hay nada que leer.
media-image-unreadable = No he podido abrir esa imagen: no es una imagen JPEG, PNG, GIF ni WebP, o está dañada.
media-document-not-text = No he podido leer ese archivo como texto: parece binario o dañado, o no está en UTF-8.
media-pdf-unreadable = No he podido leer ese PDF: parece dañado o protegido.
media-pdf-no-text = Ese PDF no tiene texto que yo pueda leer; probablemente es un escaneo. Envía sus páginas como fotos, por favor.
media-file-unavailable = Ahora mismo no he podido descargar tu archivo de Telegram. Envíalo de nuevo dentro de un minuto, por favor.
media-timeout = Descargar y leer tu archivo llevó demasiado tiempo, así que lo dejé. Inténtalo de nuevo dentro de un minuto, por favor.
media-voice-not-set-up = Las notas de voz no están configuradas en este bot, así que no puedo escucharlas. Escribe tu mensaje, por favor.
media-transcription-unavailable = No he podido transcribir tu grabación: el servicio de transcripción no responde ahora mismo. Inténtalo de nuevo dentro de un minuto o escríbelo.
media-transcription-refused = No he podido entender esa grabación: el servicio de transcripción no pudo leerla. Grábala de nuevo o escríbelo.
media-nothing-heard = No he oído ninguna palabra en esa grabación. Inténtalo de nuevo o escríbelo.
media-vision-not-supported = El modelo que uso no puede ver imágenes. Tu pie de foto está guardado; describe la imagen con palabras o pide al operador que ponga en VISION_MODEL un modelo que pueda ver.

## Detener, /cancel y /retry

stop-button = ⏹ Detener
nothing-to-stop = No hay nada que detener: ahora mismo no estoy escribiendo ninguna respuesta para ti.
stop-not-yours = Solo la persona a quien va dirigida esta respuesta puede detenerla.
terminal-nothing-to-stop = Ahora mismo no hay nada que detener. Mientras se escribe una respuesta, Ctrl-C la detiene.
nothing-to-retry = No hay nada que responder de nuevo: todavía no me has escrito en este chat.
retry-while-running = Todavía estoy respondiendo a tu último mensaje. Espera esa respuesta (o detenla con /cancel) y luego envía /retry.
replaced-by-newer = ↻ Sustituida por una respuesta más reciente abajo.

## /remember

remember-usage = Dime qué anotar, p. ej. /remember Soy vegetariano. Para cambiar la nota 2 (según la lista de /memory), escribe /remember 2 <texto nuevo>.
remembered =
    Anotado: { $note }
    /memory enumera tus notas.
already-remembered = Ya guardo esa nota: { $note }
note-replaced =
    Nota { $number } cambiada.
    Antes: { $old }
    Ahora: { $new }
note-too-long = Esa nota tiene { $length } caracteres; se permiten como máximo { $max }. Acórtala, por favor.
too-many-notes = Ya has añadido { $max } notas, tantas como guardo. Quita una con /forget <número> (mira /memory) o cambia una con /remember <número> <texto nuevo>.

## /model

model-in-use = Te responde { $model }.
model-choice-unavailable = El modelo que elegiste, { $chosen }, ya no se ofrece, así que ahora te responde { $model }.
model-unknown = No ofrezco ningún modelo llamado «{ $name }».
model-chosen = A partir de ahora te responde { $model }, en todos nuestros chats.
model-choose-with-buttons = Toca un modelo para elegirlo (o escribe /model <nombre>):
model-choose-by-name = Elige uno con /model <nombre>:
model-menu-not-yours = Solo quien pidió esta lista puede elegir aquí. Escribe /model para la tuya.
model-menu-out-of-date = La lista de modelos ha cambiado; aquí la tienes de nuevo.

## /incognito

incognito-is-on = El modo incógnito está activado en este chat: no guardo nada de lo que decimos ni uso recuerdos de conversaciones anteriores, solo nuestros últimos mensajes durante unos minutos. /incognito off lo desactiva.
incognito-is-off = El modo incógnito está desactivado: guardo nuestra conversación en este chat y la recuerdo. /incognito on lo cambia: entonces no guardo nada de lo que decimos ni uso recuerdos.
incognito-switched-on = Modo incógnito activado. A partir de ahora no guardo nada de lo que decimos en este chat ni uso recuerdos de conversaciones anteriores (tu persona sigue valiendo); solo conservo nuestros últimos mensajes durante unos minutos y los olvido cuando lo desactivas. /incognito off lo desactiva.
incognito-switched-off = Modo incógnito desactivado. Vuelvo a guardar nuestra conversación en este chat y a recordarla; no se guardó nada de la parte en incógnito.

## Límites

daily-limit-reached = Has usado tus { $limit } tokens de hoy (llevas { $used }), así que no he enviado este mensaje al modelo ni lo he guardado. El límite se reinicia a las { $resets_at } (dentro de { $wait }); envíalo de nuevo entonces, por favor.
stored-history-capped = Tu historial guardado conmigo ha llegado a su límite de { $megabytes } MB, así que he borrado tus conversaciones más antiguas para hacer sitio, y seguiré borrando las más antiguas a medida que lleguen otras nuevas. /export te envía lo que aún guardo.

## Comandos de administración

admin-only-in-private = Los comandos de administración solo funcionan en un chat privado conmigo, para que no queden en los grupos.
allow-usage = Dime a quién dejar entrar por su id de Telegram, p. ej. /allow 123456789.
block-usage = Dime a quién bloquear por su id de Telegram, p. ej. /block 123456789.
unblock-usage = Dime a quién quitar el bloqueo por su id de Telegram, p. ej. /unblock 123456789.
limit-usage = Uso: /limit <id> muestra el límite diario de tokens de una persona; /limit <id> <tokens> lo fija (p. ej. /limit 123456789 50000), /limit <id> off lo quita, /limit <id> default vuelve a USER_DAILY_TOKEN_LIMIT.
usage-usage = Uso: /usage para los tokens de todos, o /usage <id> para los de una persona.
cannot-block-yourself = No puedes bloquearte a ti mismo.
cannot-block-admin = Las personas de ADMIN_USERS no se pueden bloquear; sácalas antes de ese ajuste.
access-allowed = { $user } ya puede usar el bot.
access-already-allowed = { $user } ya tenía permiso; no ha cambiado nada.
access-blocked = { $user } está bloqueado ahora: no le responderé, digan lo que digan las listas de permitidos.
access-already-blocked = { $user } ya estaba bloqueado.
access-unblocked = { $user } ya no está bloqueado; ALLOWED_USERS y ALLOW_ALL_USERS vuelven a decidir sobre esa persona (/allow la deja entrar).
access-not-blocked = { $user } no está bloqueado; no ha cambiado nada.
limit-tokens-a-day = { $count ->
        [one] { $shown } token al día
       *[other] { $shown } tokens al día
    }
limit-none = sin límite
limit-set-by-admin = fijado por el administrador { $admin } con /limit
limit-admins-exempt = los administradores están exentos
limit-with-source = { $amount } ({ $source })
limit-of = Límite diario de tokens de { $user }: { $limit }.
usage-of =
    Uso de { $user }
    Tokens hoy: { $today }
    Últimos { $days } días: { $tokens }, { $messages }
    Límite: { $limit }
usage-today-of-limit = { $used } de { $limit }
usage-nobody = Nadie ha usado tokens en los últimos { $days } días.
usage-report-heading = Tokens por persona, hoy · últimos { $days } días:
users-admins = Administradores: { $ids }
users-allow-all = Con permiso: todos (ALLOW_ALL_USERS)
users-allowed-by-admins = Con permiso de los administradores
users-blocked = Bloqueados
users-nobody = nadie
users-rule = { $user } (por { $admin }, { $at })
users-nobody-active = Nadie ha estado activo en los últimos { $days } días.
users-active-heading = Activos en los últimos { $days } días:

## Avisos a los administradores sobre desconocidos

stranger-alert = Alguien que no está en la lista de permitidos me ha escrito: { $name }{ $handle }, id { $id }. Le he dicho que el bot es privado y no he guardado nada de lo que envió.
stranger-button-allow = Permitir
stranger-button-block = Bloquear
stranger-allowed-by = Permitido por { $admin } (id { $admin_id }).
stranger-blocked-by = Bloqueado por { $admin } (id { $admin_id }).
only-admins-decide = Solo los administradores pueden decidir esto.

# The Mini App (the bot's side), and /settings.
command-settings = Muestra tus ajustes: persona, modelo, incógnito, zona horaria.
webapp-failed = Algo salió mal por mi parte. Inténtalo de nuevo en un momento.
webapp-too-many = Eso fue mucho de una vez. Espera { $seconds } s e inténtalo de nuevo.
webapp-private-chat = Chat privado conmigo
webapp-group-chat = Chat de grupo { $id }
webapp-memory-button = 🧠 Ver y editar mi memoria
webapp-settings-button = ⚙️ Cambiar ajustes
webapp-export-sent = Te envié el archivo a nuestro chat privado.
webapp-menu-button = Memoria
settings-heading = Tus ajustes:
settings-persona = Persona: { $persona }
settings-persona-default = Persona: la predeterminada
settings-model = Modelo: { $model }
settings-incognito-on = Incógnito en este chat: activado
settings-incognito-off = Incógnito en este chat: desactivado
settings-time-zone = Zona horaria: { $zone }
settings-time-zone-default = Zona horaria: { $zone } (la predeterminada)
settings-how-to-change = Cámbialos con /persona, /model, /incognito y /timezone.

# Tools: reminders, time zones, /tools.
command-timezone = Ver o fijar tu zona horaria para los recordatorios: /timezone Europe/Madrid, o /timezone reset.
command-reminders = Ver tus recordatorios, con botones para cancelarlos.
command-tools = Ver las herramientas que puedo usar para ti.
reminder-due = ⏰ Recordatorio: { $text }
reminder-late = ⏰ Recordatorio (era para { $due }; yo no estaba en línea): { $text }
reminders-heading = Tus recordatorios:
reminders-none = No tienes recordatorios. Pídeme, por ejemplo: «recuérdame mañana a las 9 llamar a Ana».
reminders-zone = Las horas están en tu zona horaria, { $zone }.
reminders-zone-default = Las horas están en { $zone }; fija la tuya con /timezone, p. ej. /timezone Europe/Madrid.
reminder-cancel-button = ✖ Cancelar { $number }
reminder-cancelled = Recordatorio cancelado.
reminder-already-gone = Ese recordatorio ya se envió o se canceló.
reminder-not-yours = Estos son los recordatorios de otra persona.
timezone-current = Tu zona horaria es { $zone }; allí son ahora las { $time }. Cámbiala con /timezone <zona>, p. ej. /timezone America/New_York.
timezone-default = No has fijado una zona horaria, así que uso { $zone } (allí son ahora las { $time }). Fija la tuya con /timezone <zona>, p. ej. /timezone Europe/Madrid.
timezone-set = Tu zona horaria ahora es { $zone }; allí son las { $time }.
timezone-reset = He olvidado tu zona horaria; vuelvo a usar { $zone }.
timezone-unknown = No conozco la zona horaria «{ $name }». Usa un nombre como Europe/Madrid, America/New_York o Asia/Tokyo.
tools-heading = Herramientas que puedo usar para ti:
tools-off = Las herramientas están desactivadas en este bot.
tools-unsupported = El modelo { $model } no puede usar herramientas, así que respondo sin ellas.
tools-incognito-note = En modo incógnito solo uso herramientas que no guardan nada.

## Inline mode

inline-title = Preguntar a { $bot }
inline-waiting = ⏳ Pensando…

## Mini App page
# The page's sentences (src/webapp/page/), sent to it by /app/api/me. Plain text, no variables.
app-title = Tu memoria
app-tab-memory = Memoria
app-tab-search = Buscar
app-tab-settings = Ajustes
app-tab-usage = Uso
app-tab-admin = Admin
app-chat = Chat
app-private-chat = Chat privado
app-group-chat = Chats de grupo
app-notes = Notas
app-no-notes = Aún no hay notas.
app-since = Desde
app-until = hasta
app-earlier = Versiones anteriores
app-add-note = Añadir nota
app-add-note-placeholder = Algo que debería recordar…
app-save = Guardar
app-cancel = Cancelar
app-edit = Editar
app-remove = Eliminar
app-confirm-remove-summary = ¿Eliminar este resumen? Ya no recordaré esa conversación.
app-summaries = Resúmenes de conversaciones
app-no-summaries = Aún no hay resúmenes.
app-search = Buscar
app-search-placeholder = Palabras o una pregunta…
app-no-results = No se encontró nada.
app-kind-message = Mensaje
app-kind-summary = Resumen
app-kind-note = Nota
app-role-user = Tú
app-role-assistant = Bot
app-role-system = Sistema
app-persona = Personalidad
app-persona-placeholder = ¿Cómo debo hablarte? Déjalo vacío para usar la predeterminada.
app-model = Modelo
app-incognito = Incógnito: no recordar nada de este chat
app-time-zone = Zona horaria
app-time-zone-hint = Un nombre como Europe/Madrid; déjalo vacío para usar la predeterminada.
app-export = Exportar
app-export-json = Descargar como JSON
app-export-markdown = Descargar como Markdown
app-tokens-per-day = Tokens por día, últimos 30 días
app-today = Hoy
app-daily-limit = Límite diario
app-no-limit = Sin límite diario
app-images-today = Imágenes hoy
app-speech-today = Voz hoy
app-admin-usage = Tokens de todos por día
app-admin-people = Personas
app-user = Usuario
app-messages = Mensajes
app-tokens = Tokens
app-limit = Límite
app-access = Acceso
app-access-allowed = permitido
app-access-blocked = bloqueado
app-access-admin = admin
app-access-stranger = desconocido
app-allow = Permitir
app-block = Bloquear
app-unblock = Desbloquear
app-set-limit = Fijar límite
app-limit-placeholder = número, off o default
app-strangers = Desconocidos que escribieron
app-no-strangers = Ningún desconocido ha escrito.
app-saved = Guardado.
app-error = Algo salió mal. Inténtalo de nuevo.
app-forbidden = No puedes hacer esto.
app-open-from-telegram = Abre esta página desde el bot en Telegram.

## Respuestas de voz, /tts, /voice e /image

command-voice = Elige cuándo respondo también en voz alta: /voice on, /voice off o /voice auto (cuando hablas).
command-tts = Leer un texto en voz alta como mensaje de voz: /tts <texto>.
command-image = Dibujar una imagen: /image <descripción>.
voice-state = Respuestas de voz: { $mode ->
        [on] activadas (cada respuesta se lee también en voz alta)
        [off] desactivadas (solo texto)
       *[auto] automáticas (en voz alta cuando envías un mensaje de voz)
    }. Cámbialo con /voice on, /voice off o /voice auto.
voice-set = Hecho. Respuestas de voz: { $mode ->
        [on] activadas (cada respuesta se lee también en voz alta)
        [off] desactivadas (solo texto)
       *[auto] automáticas (en voz alta cuando envías un mensaje de voz)
    }.
speech-not-set-up = La lectura en voz alta no está configurada en este bot (el operador puede definir TTS_BASE_URL).
tts-usage = Escribe el texto que leer después del comando: /tts <texto>.
tts-too-long = Ese texto tiene { $length } caracteres; leo como mucho { $max } de una vez. Envía uno más corto, por favor.
speech-failed = No pude leer eso en voz alta ahora: el servicio de voz no respondió. Inténtalo más tarde, por favor.
speech-limit-reached = Has usado los { $limit } segundos de voz de hoy; hasta las { $resets_at } (dentro de { $wait }) recibirás solo texto.
image-not-set-up = El dibujo no está configurado en este bot (el operador puede definir IMAGE_BASE_URL).
image-usage = Escribe qué dibujar después del comando: /image <descripción>, por ejemplo /image un zorro rojo en la nieve.
image-too-long = Esa descripción tiene { $length } caracteres; se aceptan como mucho { $max }. Acórtala, por favor.
image-unsafe = El servicio de imágenes se negó a dibujar eso. Su motivo: { $reason }
image-unsafe-no-reason = El servicio de imágenes se negó a dibujar eso.
image-timed-out = El servicio de imágenes tardó demasiado en dibujarlo. Inténtalo más tarde, por favor.
image-failed = No pude dibujar eso ahora: el servicio de imágenes falló. Inténtalo más tarde, por favor.
image-limit-reached = Has usado las { $limit } imágenes de hoy. Podrás pedir más después de las { $resets_at } (dentro de { $wait }).
stats-images-today = Imágenes hoy: { $used }
stats-images-today-limited = Imágenes hoy: { $used } de { $limit }
stats-speech-today = Voz hoy: { $used } s
stats-speech-today-limited = Voz hoy: { $used } s de { $limit } s
usage-media = Imágenes: { $images }, voz: { $seconds } s
terminal-cannot-send-media = Los mensajes de voz y las imágenes se envían en Telegram; un terminal no puede reproducirlos ni mostrarlos.
