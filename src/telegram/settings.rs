//! What the handlers are given at start, fixed for the run: the longest message a turn takes,
//! whether replies stream, the `/start` greeting's time windows, the media settings and who the
//! admins are (`ADMIN_USERS`, fixed for the run: some tools are theirs alone).

use crate::commands;
use crate::config::Config;
use crate::replies::Greeting;
use crate::telegram::media::MediaSettings;

/// Settings the handlers need, fixed at start.
#[derive(Clone, Debug)]
pub struct BotSettings {
    pub max_message_chars: usize,
    pub stream_replies: bool,
    /// The time windows the `/start` greeting names.
    pub greeting: Greeting,
    pub media: MediaSettings,
    pub admins: std::collections::HashSet<crate::storage::UserId>,
    /// The Mini App's address, when `PUBLIC_URL` gives it one.
    pub app_url: Option<reqwest::Url>,
}

impl BotSettings {
    pub fn from_config(config: &Config) -> Self {
        Self {
            max_message_chars: config.telegram.max_message_chars as usize,
            stream_replies: config.telegram.stream_replies,
            greeting: commands::greeting(config),
            media: MediaSettings::from_config(&config.media),
            admins: config.telegram.admin_users.iter().copied().collect(),
            app_url: config.webapp.app_url(),
        }
    }

    /// Whether `user` is in `ADMIN_USERS`.
    pub fn is_admin(&self, user: crate::storage::UserId) -> bool {
        self.admins.contains(&user)
    }
}
