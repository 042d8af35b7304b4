//! Files users send: photos (in several sizes), voice notes, audio files, video notes and
//! documents, kept with their bytes so that `getFile` describes them and the Bot API's file
//! download (`/file/bot<token>/<file_path>`) serves them, as Telegram does. Like Telegram, the
//! fake refuses `getFile` for a file over 20 MB; a file can report a size other than its bytes'
//! length, so a test needs no 20 MB of bytes for that.

use serde_json::{Value, json};

use super::FakeTelegram;
use super::server::Reply;
use super::state::State;
use super::updates::mention_entities;

/// Telegram's limit on files a bot may download.
pub const TELEGRAM_DOWNLOAD_LIMIT: u64 = 20 * 1024 * 1024;

/// A file a user sends.
#[derive(Clone, Debug)]
pub struct UserFile {
    pub bytes: Vec<u8>,
    /// The size Telegram reports; `None`: the bytes' length.
    pub reported_size: Option<u64>,
    pub file_name: Option<String>,
    pub mime_type: Option<String>,
}

impl UserFile {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            reported_size: None,
            file_name: None,
            mime_type: None,
        }
    }

    /// The same file with a name and a media type (documents, audio files).
    pub fn named(mut self, file_name: &str, mime_type: &str) -> Self {
        self.file_name = Some(file_name.to_owned());
        self.mime_type = Some(mime_type.to_owned());
        self
    }

    /// The same file, with Telegram reporting `size` bytes.
    pub fn reporting_size(mut self, size: u64) -> Self {
        self.reported_size = Some(size);
        self
    }

    fn size(&self) -> u64 {
        self.reported_size.unwrap_or(self.bytes.len() as u64)
    }
}

/// A file kept for `getFile` and downloads.
#[derive(Clone, Debug)]
pub(super) struct KeptFile {
    path: String,
    size: u64,
    bytes: Vec<u8>,
}

impl FakeTelegram {
    /// A photo in the sizes `(width, height, bytes)` Telegram offers, with an optional caption;
    /// returns its update id.
    pub fn send_photo_sizes(
        &self,
        chat_id: i64,
        user_id: i64,
        sizes: &[(u32, u32, Vec<u8>)],
        caption: Option<&str>,
    ) -> i64 {
        self.enqueue(|state, update_id| {
            let sizes: Vec<Value> = sizes
                .iter()
                .enumerate()
                .map(|(index, (width, height, bytes))| {
                    let meta = state.keep_file(
                        &format!("photo-{update_id}-{index}"),
                        &UserFile::new(bytes.clone()),
                        "photos",
                    );
                    let mut size = meta;
                    size["width"] = json!(width);
                    size["height"] = json!(height);
                    size
                })
                .collect();
            let mut message = state.user_message(state.chat(chat_id), user_id);
            message["photo"] = Value::Array(sizes);
            add_caption(&mut message, caption);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A voice note; returns its update id.
    pub fn send_voice(&self, chat_id: i64, user_id: i64, file: UserFile) -> i64 {
        self.send_file_message(chat_id, user_id, "voice", file, None)
    }

    /// An audio file; returns its update id.
    pub fn send_audio(&self, chat_id: i64, user_id: i64, file: UserFile) -> i64 {
        self.send_file_message(chat_id, user_id, "audio", file, None)
    }

    /// A round video note; returns its update id.
    pub fn send_video_note(&self, chat_id: i64, user_id: i64, file: UserFile) -> i64 {
        self.send_file_message(chat_id, user_id, "video_note", file, None)
    }

    /// A document with an optional caption; returns its update id.
    pub fn send_document(
        &self,
        chat_id: i64,
        user_id: i64,
        file: UserFile,
        caption: Option<&str>,
    ) -> i64 {
        self.send_file_message(chat_id, user_id, "document", file, caption)
    }

    fn send_file_message(
        &self,
        chat_id: i64,
        user_id: i64,
        kind: &str,
        file: UserFile,
        caption: Option<&str>,
    ) -> i64 {
        self.enqueue(|state, update_id| {
            let mut object = state.keep_file(&format!("{kind}-{update_id}"), &file, kind);
            match kind {
                "voice" | "audio" => object["duration"] = json!(3),
                "video_note" => {
                    object["duration"] = json!(3);
                    object["length"] = json!(240);
                }
                _ => {}
            }
            if let Some(name) = &file.file_name {
                object["file_name"] = json!(name);
            }
            // Telegram always gives a recording's media type (and teloxide needs it).
            let default_type = match kind {
                "voice" => Some("audio/ogg"),
                "audio" => Some("audio/mpeg"),
                _ => None,
            };
            if let Some(mime_type) = file.mime_type.as_deref().or(default_type) {
                object["mime_type"] = json!(mime_type);
            }
            let mut message = state.user_message(state.chat(chat_id), user_id);
            message[kind] = object;
            add_caption(&mut message, caption);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// The paths of the files the bot downloaded, in order.
    pub fn downloaded_files(&self) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter(|call| call.method == "downloadFile" && call.ok)
            .map(|call| call.params["path"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// The caption, with the `mention` entities Telegram marks in it.
fn add_caption(message: &mut Value, caption: Option<&str>) {
    let Some(caption) = caption else {
        return;
    };
    message["caption"] = json!(caption);
    let mentions = mention_entities(caption);
    if !mentions.is_empty() {
        message["caption_entities"] = Value::Array(mentions);
    }
}

impl State {
    /// Keeps `file` under `file_id` and returns its Telegram fields (`file_id`,
    /// `file_unique_id`, `file_size`).
    fn keep_file(&mut self, file_id: &str, file: &UserFile, folder: &str) -> Value {
        let path = format!("{folder}/{file_id}.bin");
        self.files.insert(
            file_id.to_owned(),
            KeptFile {
                path,
                size: file.size(),
                bytes: file.bytes.clone(),
            },
        );
        json!({
            "file_id": file_id,
            "file_unique_id": format!("u{file_id}"),
            "file_size": file.size()
        })
    }

    /// `getFile`: the file's path for the download, or Telegram's refusal.
    pub(super) fn get_file(&self, params: &Value) -> Reply {
        let file_id = params["file_id"].as_str().unwrap_or_default();
        let Some(file) = self.files.get(file_id) else {
            return Reply::bad_request("Bad Request: invalid file_id");
        };
        if file.size > TELEGRAM_DOWNLOAD_LIMIT {
            return Reply::bad_request("Bad Request: file is too big");
        }
        Reply::Ok(json!({
            "file_id": file_id,
            "file_unique_id": format!("u{file_id}"),
            "file_size": file.size,
            "file_path": file.path
        }))
    }

    /// The bytes of the file at `path`, as the file download serves them.
    pub(super) fn file_bytes(&self, path: &str) -> Option<Vec<u8>> {
        self.files
            .values()
            .find(|file| file.path == path)
            .map(|file| file.bytes.clone())
    }
}
