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

unknown-command =
    No conozco ese comando. Estos son los que entiendo:

    { $commands }

## /start

start =
    ¡Hola! Soy un asistente de IA con memoria.

    Guardo nuestra conversación en este chat: los últimos mensajes tal cual (los de hasta { $history_window } de antigüedad) y resúmenes de las sesiones anteriores (una sesión termina tras { $idle } de silencio). Todo se borra automáticamente al cabo de { $purge_after }.

    /persona define cómo me comporto contigo, /memory muestra lo que guardo sobre ti, /stats lo que almaceno, /reset empieza una sesión nueva, /export te envía tu historial y /clear lo borra. /help lo enumera todo.

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

text-only = Por ahora solo puedo leer mensajes de texto: los stickers, las fotos, los audios y los archivos se me escapan. Escríbelo en texto, por favor.
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

## /forget y /memory

forget-usage = Dime el número de la nota que debo olvidar, p. ej. /forget 2. /memory las enumera.
forgot = Olvidado: { $note }
no-such-note = No tengo ninguna nota con el número { $number }. /memory enumera las notas que guardo.
memory-no-notes = Todavía no guardo notas sobre ti en este chat. Los datos y preferencias duraderos que me cuentes se anotan cuando termina una sesión.
memory-notes-heading = Notas que guardo sobre ti (quita una con /forget <número>):
memory-note = { $number }. { $note } (desde { $since })
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
