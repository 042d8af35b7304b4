//! Drawing pictures, free of Telegram: a description checked once ([`Description`]), the daily
//! picture limit checked before the image server is asked, the picture counted once drawn, and
//! what was drawn kept in the conversation as text (`[drew: …]`), so that "make the last one
//! darker" has its context. Used by `/image` and by the model's `generate_image` tool; the front
//! end sends the photo.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::bounded_text::{LengthError, within_length};
use crate::ids::ConversationKey;
use crate::llm::Completion;
use crate::llm::images::{ImageClient, ImageError, Picture};
use crate::metrics;
use crate::quota::media::{MediaKind, MediaLimitReached};
use crate::storage::{MediaUsed, UserId};

use super::Conversations;

/// The marker what was drawn is stored behind, in the conversation's history.
const DREW_MARKER: &str = "[drew: ";

/// A description of a picture, trimmed, within the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description(String);

/// Why a description is refused before anyone is asked.
pub type DescriptionError = LengthError;

impl Description {
    pub fn parse(text: &str, max_chars: usize) -> Result<Self, DescriptionError> {
        within_length(text.trim().to_owned(), max_chars).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What is stored as the answer to a drawn picture.
pub fn drew_note(description: &str) -> String {
    format!("{DREW_MARKER}{description}]")
}

/// Why no picture was drawn.
#[derive(Debug, thiserror::Error)]
pub enum DrawRefusal {
    #[error("no image server is configured")]
    NotConfigured,
    #[error("the description is not usable: {0:?}")]
    Description(DescriptionError),
    #[error("the daily pictures are used up")]
    LimitReached(MediaLimitReached),
    #[error("drawing failed: {0}")]
    Failed(#[from] ImageError),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// A picture drawn for a conversation, with its description.
#[derive(Clone, Debug)]
pub struct DrawnPicture {
    pub picture: Picture,
    pub description: String,
}

/// Pictures the model drew with its tool during a turn, waiting for the front end to send them
/// once the turn's answer is out. One list per conversation: a conversation runs one turn at a
/// time.
#[derive(Clone, Default)]
pub(super) struct DrawnForTurns(Arc<Mutex<HashMap<ConversationKey, Vec<DrawnPicture>>>>);

impl DrawnForTurns {
    fn push(&self, key: ConversationKey, drawn: DrawnPicture) {
        // A poisoned lock only means a push panicked; the map is still usable.
        let mut waiting = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        waiting.entry(key).or_default().push(drawn);
    }

    fn take(&self, key: ConversationKey) -> Vec<DrawnPicture> {
        let mut waiting = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        waiting.remove(&key).unwrap_or_default()
    }
}

impl Conversations {
    /// The same conversations, drawing pictures with `images`.
    pub fn with_images(mut self, images: ImageClient) -> Self {
        self.images = Some(images);
        self
    }

    /// Whether pictures can be drawn (an image server is configured).
    pub fn can_draw(&self) -> bool {
        self.images.is_some()
    }

    /// Whether `user_id` may have a picture drawn now: a server is configured and they are
    /// under their daily pictures. Decides whether the model is offered `generate_image`.
    pub async fn may_draw(&self, user_id: UserId) -> bool {
        if !self.can_draw() {
            return false;
        }
        match self.quota.check_media(user_id, MediaKind::Images).await {
            Ok(allowed) => allowed.is_ok(),
            Err(error) => {
                tracing::warn!(error = ?error, "could not check the daily pictures");
                false
            }
        }
    }

    /// `/image <description>`: the picture drawn for `key`'s person, and the exchange
    /// (`/image …`, `[drew: …]`) stored in the conversation.
    pub async fn draw_on_request(
        &self,
        key: ConversationKey,
        request: &str,
        telegram_message_id: Option<i64>,
    ) -> Result<DrawnPicture, DrawRefusal> {
        let drawn = self.draw(key.user_id, request).await?;
        let asked = format!("/image {}", drawn.description);
        self.remember_drawing(key, &asked, &drawn.description, telegram_message_id)
            .await;
        Ok(drawn)
    }

    /// The model's `generate_image`: draws, and keeps the picture for the front end to send
    /// after the turn's answer ([`Conversations::take_drawn_pictures`]). The turn's own reply
    /// records it in the history, from the tool's result.
    async fn draw_for_turn(
        &self,
        key: ConversationKey,
        description: &str,
    ) -> Result<String, DrawRefusal> {
        let drawn = self.draw(key.user_id, description).await?;
        let note = drew_note(&drawn.description);
        self.drawn_for_turns.push(key, drawn);
        Ok(note)
    }

    /// `generate_image`: what the model reads back, the picture kept for the front end.
    pub(super) async fn generate_image_for_tool(
        &self,
        key: ConversationKey,
        description: &str,
    ) -> crate::tools::ToolOutput {
        use crate::tools::ToolOutput;
        match self.draw_for_turn(key, description).await {
            Ok(note) => ToolOutput::ok(format!(
                "{note} The picture was drawn and is sent to the person as a photo after your \
                 answer; do not describe it as missing."
            )),
            Err(DrawRefusal::Failed(ImageError::Unsafe { reason })) => ToolOutput::error(format!(
                "the image service's safety system refused this description: {reason}"
            )),
            Err(DrawRefusal::LimitReached(_)) => {
                ToolOutput::error("this person has no pictures left today")
            }
            Err(DrawRefusal::Description(problem)) => {
                ToolOutput::error(format!("the description is not usable: {problem:?}"))
            }
            Err(other) => {
                tracing::warn!(error = %other, "generate_image failed");
                ToolOutput::error("the picture could not be drawn; try again later")
            }
        }
    }

    /// The pictures the model drew during `key`'s last turn, to send now.
    pub fn take_drawn_pictures(&self, key: ConversationKey) -> Vec<DrawnPicture> {
        self.drawn_for_turns.take(key)
    }

    /// `description` checked, the limit checked, drawn, counted.
    async fn draw(&self, user_id: UserId, description: &str) -> Result<DrawnPicture, DrawRefusal> {
        let images = self.images.as_ref().ok_or(DrawRefusal::NotConfigured)?;
        let description = Description::parse(description, images.max_description_chars())
            .map_err(DrawRefusal::Description)?;
        if let Err(reached) = self.quota.check_media(user_id, MediaKind::Images).await? {
            metrics::media_refused("images");
            return Err(DrawRefusal::LimitReached(reached));
        }
        let picture = match images.draw(description.as_str()).await {
            Ok(picture) => picture,
            Err(error) => {
                metrics::image_call(error.kind());
                return Err(error.into());
            }
        };
        metrics::image_call("ok");
        let one = MediaUsed {
            images: 1,
            speech_seconds: 0,
        };
        self.quota.count_media(user_id, one).await?;
        Ok(DrawnPicture {
            picture,
            description: description.as_str().to_owned(),
        })
    }

    /// Stores `asked` and `[drew: description]` as an exchange of `key` (nothing in incognito),
    /// so the next turn's prompt has it. A failure is logged: the picture is drawn and paid for,
    /// and the person gets it anyway.
    async fn remember_drawing(
        &self,
        key: ConversationKey,
        asked: &str,
        description: &str,
        telegram_message_id: Option<i64>,
    ) {
        let stored = async {
            let turn = self.begin_turn(key, asked, telegram_message_id).await?;
            let answer = Completion {
                text: drew_note(description),
                // No model was asked: the exchange costs no tokens.
                tokens_in: Some(0),
                tokens_out: Some(0),
                tool_calls: Vec::new(),
            };
            self.finish_turn(&turn, &answer, None).await
        };
        if let Err(error) = stored.await {
            tracing::warn!(error = ?error, "could not store what was drawn");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_trimmed_and_must_be_there_and_within_the_limit() {
        assert_eq!(
            Description::parse("  a red fox ", 20).map(|d| d.as_str().to_owned()),
            Ok("a red fox".to_owned())
        );
        assert_eq!(Description::parse(" \n", 20), Err(DescriptionError::Empty));
        assert_eq!(
            Description::parse("a very long description", 5),
            Err(DescriptionError::TooLong { length: 23, max: 5 })
        );
        assert_eq!(drew_note("a red fox"), "[drew: a red fox]");
    }
}
