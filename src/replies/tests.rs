use super::numbers::counted;
use super::views::{ConversationStats, MemoryOverview};
use super::*;
use crate::access_list::{AccessChange, AccessOverview};
use crate::i18n::{self, Lang};
use crate::llm::ModelInUse;
use crate::quota::{LimitReached, LimitSource, PersonLimit};
use crate::storage::{
    AccessRule, AccessRuleRecord, NoteRecord, PersonUsage, SummaryRecord, UserId,
};

#[test]
fn durations_read_naturally() {
    let en = |secs| human_duration(Lang::En, secs);
    assert_eq!(en(86_400), "1 day");
    assert_eq!(en(30 * 86_400), "30 days");
    assert_eq!(en(5_400), "1 hour 30 minutes");
    assert_eq!(en(1_800), "30 minutes");
    assert_eq!(en(0), "0 seconds");
}

#[test]
fn durations_read_naturally_in_every_language() {
    assert_eq!(human_duration(Lang::De, 2 * 86_400), "2 Tage");
    assert_eq!(human_duration(Lang::De, 3_660), "1 Stunde 1 Minute");
    assert_eq!(human_duration(Lang::Es, 5_400), "1 hora y 30 minutos");
    assert_eq!(human_duration(Lang::Fr, 30 * 86_400), "30 jours");
    assert_eq!(human_duration(Lang::Ru, 86_400), "1 день");
    assert_eq!(human_duration(Lang::Ru, 2 * 86_400), "2 дня");
    assert_eq!(human_duration(Lang::Ru, 5 * 86_400), "5 дней");
    assert_eq!(
        human_duration(Lang::Ru, 3 * 3_600 + 21 * 60),
        "3 часа 21 минута"
    );
    assert_eq!(human_duration(Lang::Ru, 0), "0 секунд");
}

#[test]
fn english_sentences_read_as_before() {
    assert_eq!(
        from_group(Lang::En, "Friends", "Your persona: none"),
        "You asked in the group “Friends”:\n\nYour persona: none"
    );
    assert_eq!(
        persona_none(Lang::En),
        "You have no persona set, so I use my default behaviour.\nSet one with /persona <how I \
         should behave>, e.g. /persona Answer briefly, like a pirate."
    );
    assert_eq!(
        cleared(Lang::En, 2, 1),
        "Deleted 2 messages from 1 session. I no longer remember anything from this chat."
    );
    assert_eq!(
        persona_too_long(Lang::En, 1_001, 1_000),
        "That persona is 1001 characters long; at most 1000 are allowed. Please shorten it."
    );
    let greeting = Greeting {
        history_window_secs: 86_400,
        purge_after_secs: 30 * 86_400,
        session_idle_secs: 1_800,
    };
    assert_eq!(
        start(Lang::En, &greeting),
        "Hello! I am an AI assistant with a memory.\n\nI keep our conversation in this chat: \
         the last messages of the past 1 day verbatim, and summaries of earlier sessions (a \
         session ends after 30 minutes of silence). Everything is deleted automatically after \
         30 days.\n\n/persona sets how I behave for you, /memory shows what I keep about you, \
         /remember adds a note, /incognito on stops me storing anything, /stats shows what I \
         store, /reset starts a fresh session, /export sends you your history, /clear deletes \
         it. /help lists everything."
    );
}

/// Every sentence of this module in `lang`, with sample values.
fn every_sentence(lang: Lang) -> Vec<String> {
    let greeting = Greeting {
        history_window_secs: 86_400,
        purge_after_secs: 2_592_000,
        session_idle_secs: 1_800,
    };
    let empty = MemoryOverview {
        notes: Vec::new(),
        summaries: Vec::new(),
        incognito: false,
    };
    let labels = export_labels(lang);
    let mut sentences = vec![
        help_intro(lang),
        unknown_command(lang, "/help"),
        not_allowed(lang),
        not_allowed_as_chat(lang),
        answered_in_private(lang),
        ask_in_private(lang),
        private_needs_a_person(lang),
        persona_saved_not_shown(lang),
        from_group(lang, "Friends", "text"),
        export_caption_from_group(lang, "Friends"),
        text_only(lang),
        model_unavailable(lang),
        model_rate_limited(lang),
        internal_error(lang),
        storage_full(lang),
        too_many_waiting(lang, 5),
        too_many_per_minute(lang, 20),
        empty_message(lang),
        empty_reply(lang),
        message_too_long(lang, 5_000, 4_096),
        clear_confirm(lang),
        clear_button_yes(lang),
        clear_button_no(lang),
        clear_cancelled(lang),
        clear_not_yours(lang),
        cleared(lang, 3, 1),
        reset_done(lang),
        reset_nothing_open(lang),
        persona_reset(lang),
        persona_none(lang),
        persona_current(lang, "terse"),
        persona_set(lang, "terse"),
        persona_too_long(lang, 1_001, 1_000),
        export_empty(lang),
        export_caption(lang),
        labels.title,
        labels.user,
        labels.bot,
        labels.system,
        forget_usage(lang),
        forgot(lang, "tea"),
        no_such_note(lang, "9"),
        memory(lang, &empty),
        start(lang, &greeting),
        stats(lang, &sample_stats(Some(50_000), true)),
        stats(lang, &sample_stats(None, false)),
        memory(lang, &sample_memory(true)),
        terminal_welcome(lang, 7, 7),
        terminal_cannot_clear(lang),
        terminal_cannot_export(lang),
        human_duration(lang, 90_061),
    ];
    sentences.extend(
        [
            "start",
            "help",
            "cancel",
            "retry",
            "persona",
            "model",
            "stats",
            "memory",
            "remember",
            "forget",
            "incognito",
            "reset",
            "clear",
            "export",
            "allow",
            "block",
            "unblock",
            "limit",
            "users",
            "usage",
        ]
        .map(|name| command_description(lang, name).unwrap_or_default()),
    );
    sentences.extend(turn_sentences(lang));
    sentences.extend(command_sentences(lang));
    sentences.extend(admin_sentences(lang));
    sentences.extend(voice_and_picture_sentences(lang));
    sentences
}

/// The sentences of voice answers, /tts, /voice and /image.
fn voice_and_picture_sentences(lang: Lang) -> Vec<String> {
    use crate::quota::media::{MediaAllowance, MediaKind, MediaLimitReached, MediaToday};
    use crate::voice_mode::VoiceMode;
    let reached = |kind| MediaLimitReached {
        kind,
        used: 5,
        limit: 5,
        resets_at_ms: 86_400_000,
        now_ms: 3_600_000,
    };
    let today = MediaToday {
        images: MediaAllowance {
            used: 1,
            limit: Some(5),
        },
        speech_seconds: MediaAllowance {
            used: 30,
            limit: None,
        },
    };
    let mut sentences: Vec<String> = [VoiceMode::On, VoiceMode::Off, VoiceMode::Auto]
        .into_iter()
        .flat_map(|mode| [voice_state(lang, mode), voice_set(lang, mode)])
        .collect();
    sentences.extend([
        speech_not_set_up(lang),
        tts_usage(lang),
        tts_too_long(lang, 5_000, 4_096),
        speech_failed(lang),
        speech_limit_reached(lang, &reached(MediaKind::SpeechSeconds)),
        image_not_set_up(lang),
        image_usage(lang),
        image_description_too_long(lang, 1_200, 1_000),
        image_unsafe(lang, "rejected by the safety system"),
        image_unsafe(lang, ""),
        image_timed_out(lang),
        image_failed(lang),
        image_limit_reached(lang, &reached(MediaKind::Images)),
        media_today(lang, &today, true, true),
        usage_media(lang, 3, 42),
        terminal_cannot_send_media(lang),
    ]);
    sentences.extend(
        ["voice", "tts", "image"].map(|name| command_description(lang, name).unwrap_or_default()),
    );
    sentences
}

fn sample_stats(limit: Option<u64>, incognito: bool) -> ConversationStats {
    ConversationStats {
        messages_stored: 1,
        messages_in_context: 1,
        tokens_today: 1_234,
        daily_token_limit: limit,
        tokens_total: 1,
        session_started_at_ms: Some(0),
        last_activity_ms: None,
        now_ms: 7_200_000,
        model: ModelInUse {
            name: "small-model".to_owned(),
            unavailable_choice: incognito.then(|| "old-model".to_owned()),
        },
        incognito,
        incognito_tokens_today: if incognito { 300 } else { 0 },
    }
}

fn sample_memory(incognito: bool) -> MemoryOverview {
    let note = |id: i64, text: &str, added_by_hand: bool| NoteRecord {
        id,
        note: text.to_owned(),
        created_at_ms: 0,
        confirmed_at_ms: 0,
        added_by_hand,
        valid_from_ms: 0,
        earlier: Vec::new(),
    };
    let mut changed = note(2, "Isst Fisch", true);
    changed.earlier = vec![crate::storage::EarlierValue {
        note: "Isst kein Fleisch".to_owned(),
        from_ms: None,
        until_ms: 3_600_000,
    }];
    MemoryOverview {
        notes: vec![note(1, "Mag Tee", false), changed],
        summaries: vec![SummaryRecord {
            session_id: 1,
            chat_id: crate::storage::ChatId(1),
            user_id: UserId(1),
            summary: "Über Tee gesprochen".to_owned(),
            created_at_ms: 0,
            session_started_at_ms: 0,
            session_last_activity_at_ms: 0,
        }],
        incognito,
    }
}

/// The sentences of photos, voice notes and documents, Stop and /retry.
fn turn_sentences(lang: Lang) -> Vec<String> {
    vec![
        heard(lang, "hello"),
        document_cut(lang, 100, 2_000),
        file_too_big(lang),
        document_too_big(lang, 1_572_864),
        image_too_big(lang),
        file_empty(lang),
        image_unreadable(lang),
        document_not_text(lang),
        pdf_unreadable(lang),
        pdf_no_text(lang),
        file_unavailable(lang),
        media_timeout(lang),
        voice_not_set_up(lang),
        transcription_unavailable(lang),
        transcription_refused(lang),
        nothing_heard(lang),
        vision_not_supported(lang),
        stop_button(lang),
        nothing_to_stop(lang),
        stop_not_yours(lang),
        terminal_nothing_to_stop(lang),
        nothing_to_retry(lang),
        retry_while_running(lang),
        replaced_by_newer(lang),
        human_bytes(lang, 512),
        human_bytes(lang, 300 * 1_024),
        daily_limit_reached(
            lang,
            &LimitReached {
                used: 50_100,
                limit: 50_000,
                resets_at_ms: 86_400_000,
                now_ms: 3_600_000,
            },
        ),
        stored_history_capped(lang, 5 * 1_048_576),
        inline_title(lang, "Telemem"),
        inline_waiting(lang),
    ]
}

/// The sentences of /remember, /model and /incognito.
fn command_sentences(lang: Lang) -> Vec<String> {
    let chosen_gone = ModelInUse {
        name: "small-model".to_owned(),
        unavailable_choice: Some("old-model".to_owned()),
    };
    let chosen = ModelInUse {
        name: "small-model".to_owned(),
        unavailable_choice: None,
    };
    vec![
        remember_usage(lang),
        remembered(lang, "tea"),
        already_remembered(lang, "tea"),
        note_replaced(lang, 2, "tea", "coffee"),
        note_too_long(lang, 600, 500),
        too_many_notes(lang),
        model_in_use(lang, &chosen),
        model_in_use(lang, &chosen_gone),
        model_unknown(lang, "gpt-9"),
        model_chosen(lang, "small-model"),
        model_choose_with_buttons(lang),
        model_choose_by_name(lang),
        model_menu_not_yours(lang),
        model_menu_out_of_date(lang),
        incognito_state(lang, true),
        incognito_state(lang, false),
        incognito_switched(lang, true, true),
        incognito_switched(lang, false, true),
    ]
}

/// The sentences of the admins' commands and alerts.
fn admin_sentences(lang: Lang) -> Vec<String> {
    let person = UserId(42);
    let usage = PersonUsage {
        user_id: person,
        messages: 3,
        tokens: 1_500,
        tokens_today: 200,
        images: 0,
        speech_seconds: 0,
    };
    let mut sentences = vec![
        admin_help_heading(lang),
        admin_only_in_private(lang),
        allow_usage(lang),
        block_usage(lang),
        unblock_usage(lang),
        limit_usage(lang),
        usage_usage(lang),
        cannot_block_yourself(lang),
        cannot_block_admin(lang),
        usage_report(lang, &[], 30),
        usage_report(lang, std::slice::from_ref(&usage), 30),
        users_overview(lang, &sample_access(), &[], 7),
        users_overview(lang, &sample_access(), std::slice::from_ref(&usage), 7),
        stranger_alert(lang, "Eve", Some("eve"), person),
        stranger_button_allow(lang),
        stranger_button_block(lang),
        stranger_decided(lang, AccessChange::Allowed, "Ada", UserId(1)),
        stranger_decided(lang, AccessChange::Blocked, "Ada", UserId(1)),
        only_admins_decide(lang),
    ];
    for change in [
        AccessChange::Allowed,
        AccessChange::AlreadyAllowed,
        AccessChange::Blocked,
        AccessChange::AlreadyBlocked,
        AccessChange::Unblocked,
        AccessChange::NotBlocked,
    ] {
        sentences.push(access_changed(lang, person, change));
    }
    for limit in sample_limits() {
        sentences.push(limit_of(lang, person, &limit));
        sentences.push(usage_of(lang, person, &usage, &limit, 30));
    }
    sentences
}

fn sample_access() -> AccessOverview {
    let rule = |rule| AccessRuleRecord {
        user_id: UserId(42),
        rule,
        changed_by: UserId(1),
        changed_at_ms: 0,
    };
    AccessOverview {
        allow_all: true,
        admins: vec![UserId(1)],
        configured: vec![UserId(2), UserId(3)],
        allowed: vec![rule(AccessRule::Allow)],
        blocked: vec![rule(AccessRule::Block)],
    }
}

fn sample_limits() -> [PersonLimit; 3] {
    [
        PersonLimit {
            tokens: Some(50_000),
            source: LimitSource::Setting,
        },
        PersonLimit {
            tokens: Some(1),
            source: LimitSource::Admin { set_by: UserId(1) },
        },
        PersonLimit {
            tokens: None,
            source: LimitSource::Exempt,
        },
    ]
}

#[test]
fn sizes_and_counts_read_naturally_in_every_language() {
    assert_eq!(human_bytes(Lang::En, 1_048_576), "1 MB");
    assert_eq!(human_bytes(Lang::En, 1_572_864), "1.5 MB");
    assert_eq!(human_bytes(Lang::En, 300 * 1_024), "300 KB");
    assert_eq!(human_bytes(Lang::En, 512), "512 bytes");
    assert_eq!(human_bytes(Lang::De, 1_572_864), "1,5 MB");
    assert_eq!(human_bytes(Lang::Fr, 1_572_864), "1,5 Mo");
    assert_eq!(thousands(Lang::En, 0), "0");
    assert_eq!(thousands(Lang::En, 999), "999");
    assert_eq!(thousands(Lang::En, 1_234), "1,234");
    assert_eq!(thousands(Lang::En, 1_234_567), "1,234,567");
    assert_eq!(thousands(Lang::De, 50_000), "50.000");
    assert_eq!(thousands(Lang::Ru, 50_000), "50\u{a0}000");
    assert_eq!(counted(Lang::En, "count-messages", 1), "1 message");
    assert_eq!(counted(Lang::En, "count-tokens", 1_234), "1,234 tokens");
    assert_eq!(counted(Lang::Ru, "count-messages", 1), "1 сообщение");
    assert_eq!(counted(Lang::Ru, "count-messages", 3), "3 сообщения");
    assert_eq!(counted(Lang::Ru, "count-messages", 11), "11 сообщений");
    assert_eq!(
        counted(Lang::Ru, "count-tokens", 1_500),
        "1\u{a0}500 токенов"
    );
    assert_eq!(counted(Lang::Ru, "count-tokens", 22), "22 токена");
}

#[test]
fn the_admins_listings_read_as_before_in_english() {
    let usage = PersonUsage {
        user_id: UserId(42),
        messages: 1,
        tokens: 1_500,
        tokens_today: 200,
        images: 0,
        speech_seconds: 0,
    };
    let [setting, by_admin, exempt] = sample_limits();
    assert_eq!(
        usage_of(Lang::En, UserId(42), &usage, &setting, 30),
        "Usage of 42\nTokens today: 200 of 50,000\nLast 30 days: 1,500 tokens, 1 message\n\
         Limit: 50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)"
    );
    assert_eq!(
        limit_of(Lang::En, UserId(42), &by_admin),
        "Daily token limit of 42: 1 token a day (set by admin 1 with /limit)."
    );
    assert_eq!(
        limit_of(Lang::En, UserId(1), &exempt),
        "Daily token limit of 1: no limit (admins are exempt)."
    );
    assert_eq!(
        users_overview(Lang::En, &sample_access(), &[usage], 7),
        "Admins: 1\nAllowed: everyone (ALLOW_ALL_USERS)\nALLOWED_USERS: 2, 3\n\
         Allowed by admins:\n• 42 (by 1, 1970-01-01 00:00 UTC)\n\
         Blocked:\n• 42 (by 1, 1970-01-01 00:00 UTC)\n\
         \nActive in the last 7 days:\n• 42: 1 message, 1,500 tokens\n"
    );
}

#[test]
fn a_russian_limit_notice_counts_in_russian() {
    let reached = LimitReached {
        used: 50_100,
        limit: 50_000,
        resets_at_ms: 86_400_000,
        now_ms: 86_400_000 - 2 * 3_600_000,
    };
    let russian = daily_limit_reached(Lang::Ru, &reached);
    assert!(russian.contains("50\u{a0}000"), "{russian}");
    assert!(russian.contains("через 2 часа"), "{russian}");
    assert!(russian.contains("1970-01-02 00:00 UTC"), "{russian}");
}

#[test]
fn every_sentence_exists_and_fills_its_placeholders_in_every_language() {
    for lang in Lang::ALL {
        for sentence in every_sentence(lang) {
            assert!(
                !sentence.trim().is_empty()
                    && !sentence.contains(i18n::MISSING_MARK)
                    && !sentence.contains("{$")
                    && !sentence.contains("{ $"),
                "{}: {sentence:?}",
                lang.code()
            );
        }
    }
}

#[test]
fn stats_and_memory_labels_are_translated() {
    let russian = stats(Lang::Ru, &sample_stats(Some(50_000), true));
    assert!(russian.contains("Сообщений сохранено: 1"), "{russian}");
    assert!(russian.contains("2 часа (с 1970-01-01"), "{russian}");
    assert!(
        russian.contains("1\u{a0}234 из 50\u{a0}000 (во всех ваших чатах)"),
        "{russian}"
    );
    assert!(russian.contains("Инкогнито: включено"), "{russian}");
    let german = memory(Lang::De, &sample_memory(true));
    assert!(
        german.starts_with("Inkognito ist in diesem Chat an"),
        "{german}"
    );
    assert!(german.contains("1. Mag Tee (seit 1970-01-01"), "{german}");
    assert!(
        german.contains("2. Isst Fisch (von dir hinzugefügt am 1970-01-01"),
        "{german}"
    );
    assert!(
        german.contains("\n    vorher: Isst kein Fleisch (bis 1970-01-01 01:00 UTC)\n"),
        "what a note said before is listed under it: {german}"
    );
    assert!(german.contains("• 1970-01-01"), "{german}");
}
