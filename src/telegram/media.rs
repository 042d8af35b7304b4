//! Photos, voice notes, audio files, video notes and documents on their way into a chat turn:
//! which attachment a message carries (and for a photo, which of Telegram's sizes), fetching its
//! file (`getFile`, then the Bot API's file download) within Telegram's 20 MB limit for bots and
//! `MEDIA_TIMEOUT_SECS`, and turning it into the turn's input with [`crate::attachments`] and,
//! for a recording, the transcription offered by [`Conversations`].
//!
//! Every way this can go wrong is a [`MediaProblem`], answered with a polite notice; the person's
//! message is stored only once its input is ready, so a failure stores nothing half. A turn
//! resumed after a crash takes a recording's transcript from the stored message instead of
//! fetching and transcribing it again. The download URL holds the bot token: its errors are
//! logged without any URL.

use std::time::Duration;

use futures_util::StreamExt;
use teloxide::types::{FileMeta, Me, Message};
use teloxide::{ApiError, RequestError};
use tokio::time::Instant;

use crate::attachments::document::{self, DocumentError, DocumentKind};
use crate::attachments::image::{IMAGE_MAX_BYTES, image_media_type, pick_photo_size};
use crate::attachments::{self, Spoken};
use crate::config::{MAX_TELEGRAM_DOWNLOAD_BYTES, MediaConfig};
use crate::conversation::{Conversations, PreparedInput, TurnInput};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::CallFailure;
use crate::llm::Image;
use crate::llm::transcription::{Recording, TranscriptionError};
use crate::replies;
use crate::telegram::access::without_bot_mention;
use crate::telegram::bot::TelegramBot;

/// What the handlers need to know about media, fixed at start.
#[derive(Clone, Debug)]
pub struct MediaSettings {
    pub vision_model: Option<String>,
    pub document_max_bytes: u64,
    pub document_token_budget: usize,
    pub timeout: Duration,
}

impl MediaSettings {
    pub fn from_config(config: &MediaConfig) -> Self {
        Self {
            vision_model: config.vision_model().map(str::to_owned),
            document_max_bytes: config.document_max_bytes,
            document_token_budget: config.document_token_budget as usize,
            timeout: config.media_timeout(),
        }
    }
}

/// A file a turn can read, as a message carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// A photo, in the size picked for the model.
    Photo(FileMeta),
    /// A picture sent as a file.
    ImageFile(FileMeta),
    /// Something spoken: its file, and the name and media type that tell a transcription server
    /// its format.
    Recording {
        file: FileMeta,
        spoken: Spoken,
        file_name: String,
        media_type: String,
    },
    /// A text file or a PDF.
    Document {
        file: FileMeta,
        kind: DocumentKind,
        name: String,
    },
}

/// The attachment of `message` that a turn can read; `None` for text, stickers, videos,
/// archives and every other kind, which get the short reply.
pub fn attachment_of(message: &Message) -> Option<Attachment> {
    if let Some(sizes) = message.photo() {
        let sides: Vec<u32> = sizes
            .iter()
            .map(|size| size.width.max(size.height))
            .collect();
        return pick_photo_size(&sides).map(|index| Attachment::Photo(sizes[index].file.clone()));
    }
    if let Some(voice) = message.voice() {
        let media_type = mime_text(voice.mime_type.as_ref()).unwrap_or("audio/ogg");
        return Some(recording(
            &voice.file,
            Spoken::Voice,
            "voice.ogg",
            media_type,
        ));
    }
    if let Some(audio) = message.audio() {
        let media_type = mime_text(audio.mime_type.as_ref()).unwrap_or("audio/mpeg");
        let name = audio
            .file_name
            .clone()
            .unwrap_or_else(|| format!("audio.{}", audio_extension(media_type)));
        return Some(recording(&audio.file, Spoken::Audio, &name, media_type));
    }
    if let Some(note) = message.video_note() {
        return Some(recording(
            &note.file,
            Spoken::VideoNote,
            "video_note.mp4",
            "video/mp4",
        ));
    }
    let document = message.document()?;
    let name = document.file_name.clone().unwrap_or_default();
    let kind = document::classify(
        Some(&name)
            .filter(|name| !name.is_empty())
            .map(String::as_str),
        mime_text(document.mime_type.as_ref()),
    );
    let file = document.file.clone();
    match kind {
        DocumentKind::Image => Some(Attachment::ImageFile(file)),
        DocumentKind::Text | DocumentKind::Pdf => Some(Attachment::Document { file, kind, name }),
        DocumentKind::Other => None,
    }
}

fn recording(file: &FileMeta, spoken: Spoken, file_name: &str, media_type: &str) -> Attachment {
    Attachment::Recording {
        file: file.clone(),
        spoken,
        file_name: file_name.to_owned(),
        media_type: media_type.to_owned(),
    }
}

fn mime_text<M: AsRef<str>>(mime: Option<&M>) -> Option<&str> {
    mime.map(AsRef::as_ref)
}

/// The usual extension of an audio media type, for a file sent without a name.
fn audio_extension(media_type: &str) -> &'static str {
    match media_type {
        "audio/ogg" | "audio/opus" => "ogg",
        "audio/mp4" | "audio/m4a" | "audio/x-m4a" | "audio/aac" => "m4a",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/flac" | "audio/x-flac" => "flac",
        "audio/webm" => "webm",
        _ => "mp3",
    }
}

/// The caption the model reads: in a group, without the bot's @mention.
pub fn caption_text(message: &Message, me: &Me) -> String {
    if message.chat.is_private() {
        return message.caption().unwrap_or_default().trim().to_owned();
    }
    without_bot_mention(message, me)
}

/// Why an attachment could not become a turn's input.
#[derive(Debug, thiserror::Error)]
pub enum MediaProblem {
    #[error("the file is over Telegram's 20 MB limit for bots")]
    FileTooBig,
    #[error("the document is over DOCUMENT_MAX_BYTES")]
    DocumentTooBig,
    #[error("the picture file is over the models' limit")]
    ImageTooBig,
    #[error("the file is empty")]
    Empty,
    #[error("the picture is not in a format the models read, or broken")]
    ImageUnreadable,
    #[error("the document cannot be read: {0}")]
    Document(#[from] DocumentError),
    #[error("Telegram did not hand out the file")]
    Unavailable,
    #[error("fetching or transcribing took longer than MEDIA_TIMEOUT_SECS")]
    TimedOut,
    #[error("transcription failed: {0}")]
    Transcription(#[from] TranscriptionError),
    #[error("the transcript is empty")]
    NothingHeard,
    #[error("the stored message could not be read")]
    Storage(#[source] anyhow::Error),
}

impl MediaProblem {
    /// The sentence that answers the message instead.
    pub fn notice(&self, lang: Lang, settings: &MediaSettings) -> String {
        match self {
            Self::FileTooBig => replies::file_too_big(lang),
            Self::DocumentTooBig => replies::document_too_big(lang, settings.document_max_bytes),
            Self::ImageTooBig => replies::image_too_big(lang),
            Self::Empty | Self::Document(DocumentError::Empty) => replies::file_empty(lang),
            Self::ImageUnreadable => replies::image_unreadable(lang),
            Self::Document(DocumentError::NotText) => replies::document_not_text(lang),
            Self::Document(DocumentError::UnreadablePdf) => replies::pdf_unreadable(lang),
            Self::Document(DocumentError::NoTextInPdf) => replies::pdf_no_text(lang),
            Self::Unavailable => replies::file_unavailable(lang),
            Self::TimedOut
            | Self::Transcription(TranscriptionError::Call(CallFailure::Timeout { .. })) => {
                replies::media_timeout(lang)
            }
            Self::Transcription(TranscriptionError::NotConfigured) => {
                replies::voice_not_set_up(lang)
            }
            Self::Transcription(TranscriptionError::Call(CallFailure::Refused { .. })) => {
                replies::transcription_refused(lang)
            }
            Self::Transcription(_) => replies::transcription_unavailable(lang),
            Self::NothingHeard => replies::nothing_heard(lang),
            Self::Storage(_) => replies::internal_error(lang),
        }
    }
}

/// One message's attachment on its way into a turn.
pub struct MediaTurn<'a> {
    pub bot: &'a TelegramBot,
    pub conversations: &'a Conversations,
    pub key: ConversationKey,
    /// The language of the notes shown above the answer.
    pub lang: Lang,
    pub telegram_message_id: i64,
    pub settings: &'a MediaSettings,
}

impl MediaTurn<'_> {
    /// The turn's input for `attachment` with `caption`, all fetching and transcribing done
    /// within `MEDIA_TIMEOUT_SECS`.
    pub async fn prepare(
        &self,
        attachment: &Attachment,
        caption: &str,
    ) -> Result<PreparedInput, MediaProblem> {
        let deadline = Instant::now() + self.settings.timeout;
        let preparing = self.prepare_until(attachment, caption, deadline);
        tokio::time::timeout_at(deadline, preparing)
            .await
            .unwrap_or(Err(MediaProblem::TimedOut))
    }

    async fn prepare_until(
        &self,
        attachment: &Attachment,
        caption: &str,
        deadline: Instant,
    ) -> Result<PreparedInput, MediaProblem> {
        match attachment {
            Attachment::Photo(file) | Attachment::ImageFile(file) => {
                self.picture(file, caption).await
            }
            Attachment::Recording {
                file,
                spoken,
                file_name,
                media_type,
            } => {
                let recording = Recording {
                    bytes: Vec::new(),
                    file_name: file_name.clone(),
                    media_type: media_type.clone(),
                };
                self.spoken(file, *spoken, recording, deadline).await
            }
            Attachment::Document { file, kind, name } => {
                self.document(file, *kind, name, caption).await
            }
        }
    }

    async fn picture(&self, file: &FileMeta, caption: &str) -> Result<PreparedInput, MediaProblem> {
        let bytes = fetch(self.bot, file, SizeLimit::Image).await?;
        let media_type = image_media_type(&bytes).ok_or(MediaProblem::ImageUnreadable)?;
        let input = TurnInput {
            stored_text: attachments::photo_message(caption),
            images: vec![Image {
                media_type,
                bytes: bytes.into(),
            }],
            model: self.settings.vision_model.clone(),
            ..TurnInput::default()
        };
        Ok(PreparedInput {
            input,
            header: String::new(),
        })
    }

    /// A recording's transcript as the person's message: the one stored by a turn begun before
    /// a crash, or a new one.
    async fn spoken(
        &self,
        file: &FileMeta,
        spoken: Spoken,
        mut recording: Recording,
        deadline: Instant,
    ) -> Result<PreparedInput, MediaProblem> {
        let stored = self
            .conversations
            .stored_message_text(self.key, self.telegram_message_id)
            .await
            .map_err(MediaProblem::Storage)?;
        if let Some(stored) = stored.filter(|text| attachments::transcript_in(text).is_some()) {
            tracing::info!(
                chat_id = self.key.chat_id.0,
                "using the transcript stored before a restart"
            );
            return Ok(spoken_turn(stored, self.lang));
        }
        if !self.conversations.can_transcribe() {
            return Err(TranscriptionError::NotConfigured.into());
        }
        recording.bytes = fetch(self.bot, file, SizeLimit::Telegram).await?;
        let remaining = deadline.saturating_duration_since(Instant::now());
        let transcript = self.conversations.transcribe(recording, remaining).await?;
        if transcript.is_empty() {
            return Err(MediaProblem::NothingHeard);
        }
        let stored = attachments::spoken_message(spoken, &transcript);
        Ok(spoken_turn(stored, self.lang))
    }

    async fn document(
        &self,
        file: &FileMeta,
        kind: DocumentKind,
        name: &str,
        caption: &str,
    ) -> Result<PreparedInput, MediaProblem> {
        let limit = SizeLimit::Document(self.settings.document_max_bytes);
        let bytes = fetch(self.bot, file, limit).await?;
        let text = match kind {
            DocumentKind::Pdf => pdf_text(bytes).await?,
            _ => document::text_of_text_file(&bytes)?,
        };
        let turn =
            document::document_turn(name, caption, &text, self.settings.document_token_budget);
        let header = match turn.cut {
            Some(cut) => header_markdown(&replies::document_cut(
                self.lang,
                cut.shown_chars,
                cut.total_chars,
            )),
            None => String::new(),
        };
        Ok(PreparedInput {
            input: TurnInput {
                stored_text: turn.stored,
                prompt_text: Some(turn.prompt),
                ..TurnInput::default()
            },
            header,
        })
    }
}

/// The turn for a stored spoken message, quoting what was heard above the answer.
fn spoken_turn(stored_text: String, lang: Lang) -> PreparedInput {
    let header = attachments::transcript_in(&stored_text)
        .map(|transcript| header_markdown(&replies::heard(lang, transcript)))
        .unwrap_or_default();
    PreparedInput {
        input: TurnInput {
            stored_text,
            ..TurnInput::default()
        },
        header,
    }
}

/// What is shown above the answer to a turn an earlier run began for `message` (its stored
/// reply is delivered now): for a recording, what was heard.
pub async fn resumed_header(
    conversations: &Conversations,
    key: ConversationKey,
    message: &Message,
    lang: Lang,
) -> String {
    if !matches!(attachment_of(message), Some(Attachment::Recording { .. })) {
        return String::new();
    }
    match conversations
        .stored_message_text(key, i64::from(message.id.0))
        .await
    {
        Ok(Some(stored)) => spoken_turn(stored, lang).header,
        Ok(None) => String::new(),
        Err(error) => {
            tracing::warn!(error = ?error, "could not read the stored transcript");
            String::new()
        }
    }
}

/// `text` as a Markdown block quote followed by a blank line, every character that Markdown
/// could read as markup escaped, on one line.
fn header_markdown(text: &str) -> String {
    let mut quoted = String::from("> ");
    for character in text.chars() {
        match character {
            '\n' | '\r' => quoted.push(' '),
            c if c.is_ascii_punctuation() => {
                quoted.push('\\');
                quoted.push(c);
            }
            c => quoted.push(c),
        }
    }
    quoted.push_str("\n\n");
    quoted
}

/// The text of a PDF, extracted off the async threads (parsing a large PDF takes a while).
async fn pdf_text(bytes: Vec<u8>) -> Result<String, MediaProblem> {
    tokio::task::spawn_blocking(move || document::text_of_pdf(&bytes))
        .await
        .map_err(|_| MediaProblem::Document(DocumentError::UnreadablePdf))?
        .map_err(MediaProblem::Document)
}

/// A file size Telegram reported; `None` when it did not say (teloxide then reads `u32::MAX`).
fn known_size(file: &FileMeta) -> Option<u64> {
    (file.size != u32::MAX).then_some(u64::from(file.size))
}

/// The most bytes fetched of one kind of file.
#[derive(Clone, Copy, Debug)]
enum SizeLimit {
    /// Telegram's 20 MB for bots: recordings.
    Telegram,
    /// `DOCUMENT_MAX_BYTES`.
    Document(u64),
    /// What the models take of one picture.
    Image,
}

impl SizeLimit {
    /// Whether `size` bytes pass; past Telegram's 20 MB a file is too big for any limit.
    fn check(self, size: u64) -> Result<(), MediaProblem> {
        if size > MAX_TELEGRAM_DOWNLOAD_BYTES {
            return Err(MediaProblem::FileTooBig);
        }
        match self {
            Self::Document(limit) if size > limit => Err(MediaProblem::DocumentTooBig),
            Self::Image if size > IMAGE_MAX_BYTES => Err(MediaProblem::ImageTooBig),
            _ => Ok(()),
        }
    }
}

/// The bytes of `file` within `limit`: the size Telegram reports is checked before anything is
/// fetched, and the download stops once past the limit, whatever was reported.
async fn fetch(
    bot: &TelegramBot,
    file: &FileMeta,
    limit: SizeLimit,
) -> Result<Vec<u8>, MediaProblem> {
    if let Some(size) = known_size(file) {
        limit.check(size)?;
    }
    let telegram_file = bot.get_file(file.id.clone()).await.map_err(|error| {
        if is_file_too_big(&error) {
            return MediaProblem::FileTooBig;
        }
        tracing::warn!(
            error = crate::telegram::errors::loggable(&error),
            "Telegram did not hand out a file (getFile)"
        );
        MediaProblem::Unavailable
    })?;
    if let Some(size) = known_size(&telegram_file.meta) {
        limit.check(size)?;
    }
    let mut chunks = bot.download_file_stream(&telegram_file.path);
    let mut bytes = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|error| {
            // Without the URL: it holds the bot token.
            tracing::warn!(error = %error.without_url(), "downloading a file from Telegram failed");
            MediaProblem::Unavailable
        })?;
        bytes.extend_from_slice(&chunk);
        limit.check(bytes.len() as u64)?;
    }
    if bytes.is_empty() {
        return Err(MediaProblem::Empty);
    }
    Ok(bytes)
}

/// Telegram's refusal of `getFile` for a file over 20 MB.
fn is_file_too_big(error: &RequestError) -> bool {
    matches!(error, RequestError::Api(ApiError::Unknown(description)) if description.contains("file is too big"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_a_block_quote_whose_text_cannot_become_markup() {
        assert_eq!(
            header_markdown("🎤 “*buy* [milk](x)\nnow”"),
            "> 🎤 “\\*buy\\* \\[milk\\]\\(x\\) now”\n\n"
        );
    }

    #[test]
    fn sizes_past_telegrams_limit_are_too_big_whatever_the_own_limit() {
        let document = SizeLimit::Document(1_000);
        assert!(document.check(1_000).is_ok());
        assert!(matches!(
            document.check(1_001),
            Err(MediaProblem::DocumentTooBig)
        ));
        assert!(matches!(
            SizeLimit::Document(u64::MAX).check(MAX_TELEGRAM_DOWNLOAD_BYTES + 1),
            Err(MediaProblem::FileTooBig)
        ));
        assert!(
            SizeLimit::Telegram
                .check(MAX_TELEGRAM_DOWNLOAD_BYTES)
                .is_ok()
        );
        assert!(matches!(
            SizeLimit::Image.check(IMAGE_MAX_BYTES + 1),
            Err(MediaProblem::ImageTooBig)
        ));
    }

    #[test]
    fn audio_without_a_name_is_named_after_its_format() {
        assert_eq!(audio_extension("audio/x-m4a"), "m4a");
        assert_eq!(audio_extension("audio/mpeg"), "mp3");
    }
}
