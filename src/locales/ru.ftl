# Все фразы, которые telemem пишет сам, на русском. Образец — en.ftl: там объяснено каждое
# сообщение. Все id и все подстановки `{ $имя }` из en.ftl сохраняются; названия команд (/persona,
# /forget, …) не переводятся. Если здесь нет какого-то сообщения, бот пишет его по-английски.
# Множественное число: [one] — 1, 21, 31…; [few] — 2–4, 22–24…; [many] — 0, 5–20, 25–30…

## Справка и меню команд

help-intro = Я ИИ-ассистент и помню наши разговоры. Команды:
command-start = Поздороваться и рассказать, что я запоминаю.
command-help = Показать этот список команд.
command-persona = Показать или задать, как я с вами общаюсь: /persona <текст> или /persona reset.
command-stats = Показать, что я храню о вас в этом чате.
command-memory = Показать заметки и итоги сессий, которые я храню о вас в этом чате.
command-forget = Забыть заметку: /forget <номер из /memory>.
command-reset = Начать новую сессию (прежняя история сохраняется).
command-clear = Удалить всю вашу историю в этом чате (с подтверждением).
command-export = Прислать вашу историю в этом чате файлом: /export или /export json.
command-model = Показать или выбрать модель, которая вам отвечает: /model или /model <название>.
command-remember = Добавить заметку: /remember <текст>. Изменить заметку n: /remember <n> <новый текст>.
command-incognito = Ничего не сохранять из этого чата и не использовать память: /incognito on, /incognito off.
command-cancel = Остановить ответ, который я пишу; уже написанное останется (кнопка «Стоп» делает то же).
command-retry = Ответить на ваше последнее сообщение заново; новый ответ заменит старый.

## Часть /help и меню команд только для администраторов

admin-help-heading = Команды администратора (их видят только администраторы):
command-allow = Разрешить человеку пользоваться ботом, сняв блокировку: /allow <id>.
command-block = Закрыть доступ человеку, даже если ALLOWED_USERS или ALLOW_ALL_USERS его пускают: /block <id>.
command-unblock = Снять блокировку (снова решают ALLOWED_USERS и ALLOW_ALL_USERS): /unblock <id>.
command-limit = Показать или задать дневной лимит токенов: /limit <id> [<токены>|off|default].
command-users = Кому разрешено, кто заблокирован, кто был активен за последние 7 дней.
command-usage = Токены по людям за сегодня и за последние 30 дней: /usage [<id>].

unknown-command =
    Такой команды я не знаю. Вот какие я понимаю:

    { $commands }

## /start

start =
    Привет! Я ИИ-ассистент с памятью.

    Я храню наш разговор в этом чате: последние сообщения дословно (не старше, чем { $history_window }) и краткие итоги прошлых сессий (сессия заканчивается, если никто не пишет дольше, чем { $idle }). Всё хранится не дольше, чем { $purge_after }, и затем удаляется автоматически.

    /persona задаёт, как я с вами общаюсь, /memory показывает, что я о вас помню, /remember добавляет заметку, /incognito on запрещает мне что-либо сохранять, /stats показывает, что я храню, /reset начинает новую сессию, /export присылает вашу историю, /clear удаляет её. /help — список всех команд.

## Кто может пользоваться ботом

not-allowed = Извините, это частный бот, и вас нет в его списке пользователей. Ничего из того, что вы сюда отправите, не сохраняется.
not-allowed-as-chat = Извините, это частный бот: он отвечает только людям из своего списка, а по сообщению от имени канала или анонимного администратора не видно, кто его написал. Напишите от своего имени, чтобы им пользоваться. Ничего из того, что вы сюда отправите, не сохраняется.

## Личное, запрошенное в группе

answered-in-private = Я отправил ответ в наш личный чат, чтобы он не остался в группе.
ask-in-private = Это я показываю только в личном чате, а написать вам туда пока не могу. Откройте чат со мной (нажмите на моё имя), нажмите «Запустить» и спросите там.
private-needs-a-person = Это я показываю только в личном чате, а у сообщения от имени канала или анонимного администратора нет личного чата, куда я мог бы написать. Спросите от своего имени в личном чате со мной.
persona-saved-not-shown = Персона сохранена. В группе я её не показываю; /persona в личном чате со мной покажет её.
from-group =
    Вы спросили в группе «{ $group }»:

    { $answer }
export-caption-from-group = Ваша история в группе «{ $group }».

## Ответы вместо ответа модели

text-only = Такие сообщения я читать не умею — стикеры, видео, архивы и подобные файлы проходят мимо меня. Я читаю текст, фото, голосовые сообщения и текстовые документы (и PDF); пожалуйста, пришлите это в одном из этих видов.
tool-searching-memory = 🔧 ищу в вашей памяти…
tool-remembering = 🔧 делаю заметку…
tool-setting-reminder = 🔧 ставлю напоминание…
tool-using = 🔧 использую инструмент…
model-unavailable = Модель сейчас не отвечает. Ваше сообщение сохранено; попробуйте ещё раз через минуту.
model-rate-limited = Модель сейчас перегружена (превышен лимит запросов). Ваше сообщение сохранено; попробуйте ещё раз через минуту.
internal-error = У меня что-то пошло не так, и я не смог обработать это сообщение. Попробуйте ещё раз чуть позже.
storage-full = Сейчас я не могу ничего сохранить: хранилище заполнено. Оператор уже знает; попробуйте позже.
empty-message = Ваше сообщение пустое — напишите что-нибудь, и я отвечу.
empty-reply = Модель вернула пустой ответ. Переформулируйте или попробуйте ещё раз.
message-too-long = В вашем сообщении { $length ->
        [one] { $length } символ
        [few] { $length } символа
       *[many] { $length } символов
    }, а я принимаю не больше { $max }. Сократите его или разбейте на части.
too-many-waiting = Вы пишете быстрее, чем я успеваю отвечать: { $max ->
        [one] { $max } ваше сообщение уже ждёт
        [few] { $max } ваших сообщения уже ждут
       *[many] { $max } ваших сообщений уже ждут
    } ответа. Сначала я отвечу на то, что уже ждёт; то, что вы пришлёте до этого, я не прочитаю, поэтому отправьте это ещё раз, когда я отвечу.
too-many-per-minute = Это больше { $max ->
        [one] { $max } сообщения
       *[other] { $max } сообщений
    } за минуту, поэтому последнее я не прочитал. Подождите немного и отправьте его ещё раз.

## /clear

clear-confirm = Удалить всю вашу историю в этом чате — сообщения, сессии, итоги и заметки? Персона останется. Отменить это будет нельзя.
clear-button-yes = Да, удалить
clear-button-no = Отмена
clear-cancelled = Ничего не удалено.
clear-not-yours = Подтвердить /clear может только тот, кто его запросил.
cleared = Удалено { $messages ->
        [one] { $messages } сообщение
        [few] { $messages } сообщения
       *[many] { $messages } сообщений
    } из { $sessions ->
        [one] { $sessions } сессии
       *[other] { $sessions } сессий
    }. Я больше ничего не помню из этого чата.

## /reset

reset-done = Начата новая сессия. Прежние разговоры я храню и могу вспомнить их, когда это важно.
reset-nothing-open = Новая сессия начнётся с вашего следующего сообщения. Прежние разговоры я по-прежнему помню.

## /persona

persona-reset = Персона сброшена: я снова веду себя как обычно.
persona-none =
    Персона не задана, поэтому я веду себя как обычно.
    Задайте её командой /persona <как мне себя вести>, например: /persona Отвечай коротко, как пират.
persona-current =
    Ваша персона:

    { $persona }

    Изменить её: /persona <текст>; вернуться к обычному поведению: /persona reset.
persona-saved =
    Персона сохранена. Теперь так:

    { $persona }
persona-too-long = В этой персоне { $length ->
        [one] { $length } символ
        [few] { $length } символа
       *[many] { $length } символов
    }, а можно не больше { $max }. Сократите её, пожалуйста.

## /export

export-empty = Экспортировать нечего: в этом чате нет ваших сохранённых сообщений.
export-caption = Ваша история в этом чате.
export-title = История telemem
export-author-user = Вы
export-author-bot = Бот
export-author-system = Система
export-reminders = Напоминания

## /forget и /memory

forget-usage = Укажите номер заметки, которую нужно забыть, например /forget 2. Список — в /memory.
forgot = Забыто: { $note }
no-such-note = Заметки с номером { $number } у меня нет. /memory показывает заметки, которые я храню.
memory-no-notes = У меня пока нет заметок о вас в этом чате. Важные факты и предпочтения, о которых вы говорите, я записываю после окончания сессии; /remember <текст> добавляет заметку сразу.
memory-notes-heading = Мои заметки о вас:
memory-note = { $number }. { $note } (с { $since })
memory-incognito = В этом чате включён режим инкогнито: я не сохраняю ничего из нашего разговора и не использую ничего из этого в ответах. /incognito off выключает его.
memory-note-by-hand = { $number }. { $note } (добавлена вами { $since })
memory-note-earlier = раньше: { $note } (до { $until })
memory-notes-how-to = Изменить: /remember <номер> <новый текст>. Удалить: /forget <номер>. Добавить: /remember <текст>.
memory-no-summaries = Итогов сессий пока нет: сессия подытоживается после её окончания.
memory-summaries-heading = Итоги наших прошлых сессий:

## /stats

stats =
    Ваша статистика в этом чате
    Сообщений сохранено: { $stored }
    Сообщений в текущем контексте: { $in_context }
    Токенов сегодня: { $tokens_today }
    Токенов всего: { $tokens_total }
    Текущая сессия: { $session }
    Последняя активность: { $last_activity }
    Модель: { $model }
stats-tokens-today-limited = { $used } из { $limit } (во всех ваших чатах)
stats-tokens-today = { $used } (во всех ваших чатах)
stats-model-no-longer-offered = (выбранная вами модель больше не предлагается)
stats-incognito = Инкогнито: включено (ничего из этого чата не сохраняется)
stats-incognito-tokens = Из сегодняшних токенов в режиме инкогнито: { $tokens }
stats-session = { $age } (с { $since })
stats-no-session = нет открытой
stats-never = не было

## Длительность

duration-days = { $count ->
        [one] { $count } день
        [few] { $count } дня
       *[many] { $count } дней
    }
duration-hours = { $count ->
        [one] { $count } час
        [few] { $count } часа
       *[many] { $count } часов
    }
duration-minutes = { $count ->
        [one] { $count } минута
        [few] { $count } минуты
       *[many] { $count } минут
    }
duration-seconds = { $count ->
        [one] { $count } секунда
        [few] { $count } секунды
       *[many] { $count } секунд
    }
duration-two-units = { $larger } { $smaller }

## telemem chat в терминале

terminal-welcome = telemem chat от имени пользователя { $user } в чате { $chat }. Напишите сообщение и нажмите Enter; /help — список команд, /quit — выход.
terminal-cannot-clear = /clear просит подтверждения кнопками, а терминал не умеет их показывать, поэтому ничего не удалено.
terminal-cannot-export = /export присылает историю файлом, а терминал не может его принять.

## Размеры и количества

size-megabytes = { $size } МБ
size-kilobytes = { $size } КБ
size-bytes = { $count ->
        [one] { $count } байт
        [few] { $count } байта
       *[many] { $count } байт
    }
count-messages = { $count ->
        [one] { $shown } сообщение
        [few] { $shown } сообщения
       *[many] { $shown } сообщений
    }
count-tokens = { $count ->
        [one] { $shown } токен
        [few] { $shown } токена
       *[many] { $shown } токенов
    }

## Фото, голосовые сообщения и документы

media-heard = 🎤 «{ $transcript }»
media-document-cut = 📄 Документ длинный: я прочитал первые { $shown } из { $total } символов.
media-file-too-big = Этот файл слишком большой для меня: Telegram позволяет ботам скачивать файлы до 20 МБ. Пожалуйста, пришлите файл поменьше.
media-document-too-big = Этот документ больше { $max }, которые я читаю. Пожалуйста, пришлите файл покороче или вставьте нужную часть текстом.
media-image-too-big = Этот файл с картинкой слишком большой для модели (больше 5 МБ). Пожалуйста, пришлите его как фото: Telegram его уменьшит.
media-file-empty = Этот файл пустой, читать в нём нечего.
media-image-unreadable = Я не смог открыть эту картинку: это не изображение JPEG, PNG, GIF или WebP, или оно повреждено.
media-document-not-text = Я не смог прочитать этот файл как текст: похоже, он двоичный или повреждён, или он не в UTF-8.
media-pdf-unreadable = Я не смог прочитать этот PDF: похоже, он повреждён или защищён.
media-pdf-no-text = В этом PDF нет текста, который я могу прочитать; наверное, это скан. Пожалуйста, пришлите его страницы как фото.
media-file-unavailable = Сейчас я не смог получить ваш файл от Telegram. Пожалуйста, пришлите его ещё раз через минуту.
media-timeout = Получение и чтение вашего файла заняло слишком много времени, и я остановился. Пожалуйста, попробуйте ещё раз через минуту.
media-voice-not-set-up = Голосовые сообщения у этого бота не настроены, поэтому я не могу их прослушать. Пожалуйста, напишите сообщение текстом.
media-transcription-unavailable = Я не смог расшифровать вашу запись: служба распознавания речи сейчас не отвечает. Пожалуйста, попробуйте через минуту или напишите текстом.
media-transcription-refused = Я не разобрал эту запись: служба распознавания речи не смогла её прочитать. Пожалуйста, запишите её заново или напишите текстом.
media-nothing-heard = Я не услышал в этой записи ни одного слова. Пожалуйста, попробуйте ещё раз или напишите текстом.
media-vision-not-supported = Модель, которой я пользуюсь, не умеет смотреть на картинки. Ваша подпись сохранена; опишите картинку словами или попросите оператора указать в VISION_MODEL модель, которая видит.

## Остановка, /cancel и /retry

stop-button = ⏹ Стоп
nothing-to-stop = Останавливать нечего: сейчас я не пишу для вас ответ.
stop-not-yours = Остановить этот ответ может только тот, кому он адресован.
terminal-nothing-to-stop = Сейчас останавливать нечего. Пока пишется ответ, его останавливает Ctrl-C.
nothing-to-retry = Отвечать заново не на что: вы ещё не писали мне в этом чате.
retry-while-running = Я ещё отвечаю на ваше последнее сообщение. Дождитесь этого ответа (или остановите его командой /cancel), затем отправьте /retry.
replaced-by-newer = ↻ Заменён более новым ответом ниже.

## /remember

remember-usage = Скажите, что записать, например /remember Я вегетарианец. Чтобы изменить заметку 2 (по списку /memory), напишите /remember 2 <новый текст>.
remembered =
    Записал: { $note }
    /memory показывает ваши заметки.
already-remembered = Такая заметка у меня уже есть: { $note }
note-replaced =
    Заметка { $number } изменена.
    Было: { $old }
    Стало: { $new }
note-too-long = { $length ->
        [one] Эта заметка длиной { $length } символ
        [few] Эта заметка длиной { $length } символа
       *[many] Эта заметка длиной { $length } символов
    }; можно не больше { $max }. Пожалуйста, сократите её.
too-many-notes = { $max ->
        [one] Вы уже добавили { $max } заметку
        [few] Вы уже добавили { $max } заметки
       *[many] Вы уже добавили { $max } заметок
    } — столько, сколько я храню. Удалите одну командой /forget <номер> (см. /memory) или измените командой /remember <номер> <новый текст>.

## /model

model-in-use = Вам отвечает { $model }.
model-choice-unavailable = Выбранная вами модель { $chosen } больше не предлагается, поэтому теперь вам отвечает { $model }.
model-unknown = Модели с названием «{ $name }» у меня нет.
model-chosen = Теперь вам отвечает { $model }, во всех наших чатах.
model-choose-with-buttons = Нажмите на модель, чтобы выбрать её (или напишите /model <название>):
model-choose-by-name = Выберите модель командой /model <название>:
model-menu-not-yours = Выбирать здесь может только тот, кто запросил этот список. Напишите /model, чтобы получить свой.
model-menu-out-of-date = Список моделей изменился; вот он снова.

## /incognito

incognito-is-on = В этом чате включён режим инкогнито: я не сохраняю ничего из нашего разговора и не использую память о прошлых беседах, только наши последние сообщения в течение нескольких минут. /incognito off выключает его.
incognito-is-off = Режим инкогнито выключен: я сохраняю наш разговор в этом чате и помню его. /incognito on это меняет: тогда я ничего не сохраняю из нашего разговора и не использую память.
incognito-switched-on = Режим инкогнито включён. Теперь я не сохраняю ничего из того, что мы говорим в этом чате, и не использую память о прошлых беседах (ваша персона по-прежнему действует); я храню только наши последние сообщения несколько минут и забываю их, когда вы выключаете режим. /incognito off выключает его.
incognito-switched-off = Режим инкогнито выключен. Я снова сохраняю наш разговор в этом чате и помню его; из части в режиме инкогнито ничего не сохранилось.

## Лимиты

daily-limit-reached = Вы израсходовали свой дневной лимит токенов ({ $limit }; использовано { $used }), поэтому я не отправил это сообщение модели и не сохранил его. Лимит обнулится в { $resets_at } (через { $wait }); пожалуйста, отправьте его тогда ещё раз.
stored-history-capped = Ваша сохранённая история достигла предела в { $megabytes } МБ, поэтому я удалил ваши самые старые разговоры, чтобы освободить место, и буду и дальше удалять самые старые по мере появления новых. /export пришлёт вам то, что я ещё храню.

## Команды администратора

admin-only-in-private = Команды администратора работают только в личном чате со мной, чтобы они не попадали в группы.
allow-usage = Укажите, кого впустить, по его id в Telegram, например /allow 123456789.
block-usage = Укажите, кого заблокировать, по его id в Telegram, например /block 123456789.
unblock-usage = Укажите, с кого снять блокировку, по его id в Telegram, например /unblock 123456789.
limit-usage = Использование: /limit <id> показывает дневной лимит токенов человека; /limit <id> <токены> задаёт его (например /limit 123456789 50000), /limit <id> off снимает его, /limit <id> default возвращает USER_DAILY_TOKEN_LIMIT.
usage-usage = Использование: /usage — токены всех, /usage <id> — токены одного человека.
cannot-block-yourself = Нельзя заблокировать самого себя.
cannot-block-admin = Людей из ADMIN_USERS заблокировать нельзя; сначала уберите их из этой настройки.
access-allowed = { $user } теперь может пользоваться ботом.
access-already-allowed = { $user } уже разрешён; ничего не изменилось.
access-blocked = { $user } теперь заблокирован: я не буду ему отвечать, что бы ни говорили списки разрешённых.
access-already-blocked = { $user } уже заблокирован.
access-unblocked = С { $user } снята блокировка; о нём снова решают ALLOWED_USERS и ALLOW_ALL_USERS (/allow его впускает).
access-not-blocked = { $user } не заблокирован; ничего не изменилось.
limit-tokens-a-day = { $count ->
        [one] { $shown } токен в день
        [few] { $shown } токена в день
       *[many] { $shown } токенов в день
    }
limit-none = без лимита
limit-set-by-admin = задан администратором { $admin } через /limit
limit-admins-exempt = на администраторов не распространяется
limit-with-source = { $amount } ({ $source })
limit-of = Дневной лимит токенов { $user }: { $limit }.
usage-of =
    Расход { $user }
    Токенов сегодня: { $today }
    За последние дни ({ $days }): { $tokens }, { $messages }
    Лимит: { $limit }
usage-today-of-limit = { $used } из { $limit }
usage-nobody = За последние дни ({ $days }) никто не использовал токены.
usage-report-heading = Токены по людям, сегодня · за последние дни ({ $days }):
users-admins = Администраторы: { $ids }
users-allow-all = Разрешено: всем (ALLOW_ALL_USERS)
users-allowed-by-admins = Разрешены администраторами
users-blocked = Заблокированы
users-nobody = никто
users-rule = { $user } (кем: { $admin }, { $at })
users-nobody-active = За последние дни ({ $days }) никто не был активен.
users-active-heading = Активны за последние дни ({ $days }):

## Оповещения администраторам о незнакомцах

stranger-alert = Мне написал человек не из списка разрешённых: { $name }{ $handle }, id { $id }. Я ответил, что бот частный, и ничего из присланного не сохранил.
stranger-button-allow = Разрешить
stranger-button-block = Заблокировать
stranger-allowed-by = Разрешил(а) { $admin } (id { $admin_id }).
stranger-blocked-by = Заблокировал(а) { $admin } (id { $admin_id }).
only-admins-decide = Решать это могут только администраторы.

# The Mini App (the bot's side), and /settings.
command-settings = Показать ваши настройки: персона, модель, инкогнито, часовой пояс.
webapp-failed = У меня что-то пошло не так. Попробуйте ещё раз через минуту.
webapp-too-many = Слишком много запросов сразу. Подождите { $seconds } с и попробуйте снова.
webapp-private-chat = Личный чат со мной
webapp-group-chat = Групповой чат { $id }
webapp-memory-button = 🧠 Посмотреть и изменить мою память
webapp-settings-button = ⚙️ Изменить настройки
webapp-export-sent = Я отправил файл в наш личный чат.
webapp-menu-button = Память
settings-heading = Ваши настройки:
settings-persona = Персона: { $persona }
settings-persona-default = Персона: по умолчанию
settings-model = Модель: { $model }
settings-incognito-on = Инкогнито в этом чате: включено
settings-incognito-off = Инкогнито в этом чате: выключено
settings-time-zone = Часовой пояс: { $zone }
settings-time-zone-default = Часовой пояс: { $zone } (по умолчанию)
settings-how-to-change = Изменить их можно командами /persona, /model, /incognito и /timezone.

# Tools: reminders, time zones, /tools.
command-timezone = Показать или задать ваш часовой пояс для напоминаний: /timezone Europe/Moscow или /timezone reset.
command-reminders = Показать ваши напоминания с кнопками отмены.
command-tools = Показать инструменты, которые я могу использовать для вас.
reminder-due = ⏰ Напоминание: { $text }
reminder-late = ⏰ Напоминание (на { $due }; я тогда был недоступен): { $text }
reminders-heading = Ваши напоминания:
reminders-none = У вас нет напоминаний. Попросите меня, например: «напомни завтра в 9 позвонить Анне».
reminders-zone = Время указано в вашем часовом поясе, { $zone }.
reminders-zone-default = Время указано в { $zone }; задайте свой пояс через /timezone, например /timezone Europe/Moscow.
reminder-cancel-button = ✖ Отменить { $number }
reminder-cancelled = Напоминание отменено.
reminder-already-gone = Это напоминание уже отправлено или отменено.
reminder-not-yours = Это напоминания другого человека.
timezone-current = Ваш часовой пояс — { $zone }; там сейчас { $time }. Изменить: /timezone <пояс>, например /timezone America/New_York.
timezone-default = Вы не задали часовой пояс, поэтому я использую { $zone } (там сейчас { $time }). Задайте свой: /timezone <пояс>, например /timezone Europe/Moscow.
timezone-set = Ваш часовой пояс теперь { $zone }; там сейчас { $time }.
timezone-reset = Ваш часовой пояс забыт; я снова использую { $zone }.
timezone-unknown = Я не знаю часовой пояс «{ $name }». Используйте название вроде Europe/Moscow, America/New_York или Asia/Tokyo.
tools-heading = Инструменты, которые я могу использовать для вас:
tools-off = Инструменты в этом боте отключены.
tools-unsupported = Модель { $model } не умеет пользоваться инструментами, поэтому я отвечаю без них.
tools-incognito-note = В режиме инкогнито я использую только инструменты, которые ничего не сохраняют.

## Inline mode

inline-title = Спросить { $bot }
inline-waiting = ⏳ Думаю…

## Mini App page
# The page's sentences (src/webapp/page/), sent to it by /app/api/me. Plain text, no variables.
app-title = Ваша память
app-tab-memory = Память
app-tab-search = Поиск
app-tab-settings = Настройки
app-tab-usage = Расход
app-tab-admin = Админ
app-chat = Чат
app-private-chat = Личный чат
app-group-chat = Групповые чаты
app-notes = Заметки
app-no-notes = Заметок пока нет.
app-since = С
app-until = до
app-earlier = Прежние версии
app-add-note = Добавить заметку
app-add-note-placeholder = Что мне запомнить…
app-save = Сохранить
app-cancel = Отмена
app-edit = Изменить
app-remove = Удалить
app-confirm-remove-summary = Удалить эту сводку? Я больше не буду помнить тот разговор.
app-summaries = Сводки разговоров
app-no-summaries = Сводок пока нет.
app-search = Найти
app-search-placeholder = Слова или вопрос…
app-no-results = Ничего не найдено.
app-kind-message = Сообщение
app-kind-summary = Сводка
app-kind-note = Заметка
app-role-user = Вы
app-role-assistant = Бот
app-role-system = Система
app-persona = Персона
app-persona-placeholder = Как мне с вами говорить? Оставьте пустым для варианта по умолчанию.
app-model = Модель
app-incognito = Инкогнито: ничего не запоминать из этого чата
app-time-zone = Часовой пояс
app-time-zone-hint = Название вроде Europe/Moscow; оставьте пустым для пояса по умолчанию.
app-export = Экспорт
app-export-json = Скачать в JSON
app-export-markdown = Скачать в Markdown
app-tokens-per-day = Токены по дням, последние 30 дней
app-today = Сегодня
app-daily-limit = Дневной лимит
app-no-limit = Без дневного лимита
app-images-today = Картинок сегодня
app-speech-today = Речи сегодня
app-admin-usage = Токены всех по дням
app-admin-people = Люди
app-user = Пользователь
app-messages = Сообщения
app-tokens = Токены
app-limit = Лимит
app-access = Доступ
app-access-allowed = разрешён
app-access-blocked = заблокирован
app-access-admin = админ
app-access-stranger = незнакомец
app-allow = Разрешить
app-block = Заблокировать
app-unblock = Разблокировать
app-set-limit = Задать лимит
app-limit-placeholder = число, off или default
app-strangers = Незнакомцы, которые писали
app-no-strangers = Незнакомцы не писали.
app-saved = Сохранено.
app-error = Что-то пошло не так. Попробуйте ещё раз.
app-forbidden = Вам это нельзя.
app-open-from-telegram = Откройте эту страницу из бота в Telegram.

## Голосовые ответы, /tts, /voice и /image

command-voice = Выбрать, когда я отвечаю ещё и голосом: /voice on, /voice off или /voice auto (когда вы говорите).
command-tts = Прочитать текст вслух голосовым сообщением: /tts <текст>.
command-image = Нарисовать картинку: /image <описание>.
voice-state = Голосовые ответы: { $mode ->
        [on] включены (каждый ответ ещё и озвучивается)
        [off] выключены (только текст)
       *[auto] автоматически (голосом, когда вы присылаете голосовое сообщение)
    }. Изменить: /voice on, /voice off или /voice auto.
voice-set = Готово. Голосовые ответы: { $mode ->
        [on] включены (каждый ответ ещё и озвучивается)
        [off] выключены (только текст)
       *[auto] автоматически (голосом, когда вы присылаете голосовое сообщение)
    }.
speech-not-set-up = Озвучивание в этом боте не настроено (оператор может задать TTS_BASE_URL).
tts-usage = Напишите текст для чтения после команды: /tts <текст>.
tts-too-long = В этом тексте { $length } символов; за раз я читаю не больше { $max }. Пришлите текст покороче.
speech-failed = Сейчас не получилось прочитать это вслух: сервис речи не ответил. Попробуйте позже.
speech-limit-reached = Вы израсходовали { $limit } секунд речи на сегодня; до { $resets_at } (через { $wait }) ответы будут только текстом.
image-not-set-up = Рисование в этом боте не настроено (оператор может задать IMAGE_BASE_URL).
image-usage = Напишите после команды, что нарисовать: /image <описание>, например /image рыжая лиса на снегу.
image-too-long = В этом описании { $length } символов; допускается не больше { $max }. Сократите его, пожалуйста.
image-unsafe = Сервис картинок отказался это рисовать. Его причина: { $reason }
image-unsafe-no-reason = Сервис картинок отказался это рисовать.
image-timed-out = Сервис картинок рисовал слишком долго. Попробуйте позже.
image-failed = Сейчас не получилось нарисовать: сервис картинок дал сбой. Попробуйте позже.
image-limit-reached = Вы израсходовали { $limit } картинок на сегодня. Новые можно будет попросить после { $resets_at } (через { $wait }).
stats-images-today = Картинок сегодня: { $used }
stats-images-today-limited = Картинок сегодня: { $used } из { $limit }
stats-speech-today = Речи сегодня: { $used } с
stats-speech-today-limited = Речи сегодня: { $used } с из { $limit } с
usage-media = Картинки: { $images }, речь: { $seconds } с
terminal-cannot-send-media = Голосовые сообщения и картинки приходят в Telegram; терминал не может их проиграть или показать.
