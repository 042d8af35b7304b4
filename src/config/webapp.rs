//! The Mini App's settings: the public HTTPS address Telegram opens it at (without one the bot
//! offers no button for it, and the commands work as ever), and how old a Mini App's sign-in may
//! be.

use std::time::Duration;

use clap::Args;

use crate::setting::Setting;

#[derive(Clone, Debug, Args)]
pub struct WebAppConfig {
    /// Public HTTPS address at which HTTP_ADDR is reached from the internet (a reverse proxy's),
    /// e.g. https://bot.example.com. Set: /memory, /settings and the chat's menu button open
    /// the Mini App at <PUBLIC_URL>/app/. Unset: no Mini App buttons.
    #[arg(setting = "PUBLIC_URL", global = true, value_parser = parse_public_url)]
    pub public_url: Option<reqwest::Url>,

    /// The Mini App refuses a sign-in (Telegram's init data) older than this.
    #[arg(setting = "WEBAPP_MAX_AGE_SECS", default_value_t = 86_400, global = true,
          value_parser = clap::value_parser!(u64).range(60..=30 * 86_400))]
    pub webapp_max_age_secs: u64,

    /// Mini App API calls one person may make a minute; past it they are answered 429.
    #[arg(setting = "WEBAPP_REQUESTS_PER_MINUTE", default_value_t = 120, global = true,
          value_parser = clap::value_parser!(u32).range(10..=100_000))]
    pub webapp_requests_per_minute: u32,

    /// Mini App searches one person may make a minute (each may ask the embedding server for a
    /// vector); past it they are answered 429.
    #[arg(setting = "WEBAPP_SEARCHES_PER_MINUTE", default_value_t = 20, global = true,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub webapp_searches_per_minute: u32,
}

impl WebAppConfig {
    pub fn max_age(&self) -> Duration {
        Duration::from_secs(self.webapp_max_age_secs)
    }

    /// The address of the Mini App's page, when there is a public one.
    pub fn app_url(&self) -> Option<reqwest::Url> {
        let public = self.public_url.as_ref()?;
        public.join("app/").ok()
    }
}

/// An `https` URL without a query or fragment; its path is kept, ending in `/`, so that the
/// Mini App's address is `<PUBLIC_URL>/app/` behind a proxy's path too.
fn parse_public_url(value: &str) -> Result<reqwest::Url, String> {
    let mut url = reqwest::Url::parse(value.trim())
        .map_err(|error| format!("not a URL ({error}); expected e.g. https://bot.example.com"))?;
    if url.scheme() != "https" {
        return Err(
            "Telegram opens Mini Apps only over https: expected an https:// URL".to_owned(),
        );
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("expected an address without ?query or #fragment".to_owned());
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_lives_under_the_public_address_with_or_without_a_path() {
        let config = |url: &str| WebAppConfig {
            public_url: Some(parse_public_url(url).unwrap()),
            webapp_max_age_secs: 86_400,
            webapp_requests_per_minute: 120,
            webapp_searches_per_minute: 20,
        };
        assert_eq!(
            config("https://bot.example.com")
                .app_url()
                .unwrap()
                .as_str(),
            "https://bot.example.com/app/"
        );
        assert_eq!(
            config("https://example.com/telemem")
                .app_url()
                .unwrap()
                .as_str(),
            "https://example.com/telemem/app/"
        );
    }

    #[test]
    fn a_plain_http_or_odd_address_is_refused_with_the_reason() {
        assert!(
            parse_public_url("http://bot.example.com")
                .unwrap_err()
                .contains("https")
        );
        assert!(
            parse_public_url("bot.example.com")
                .unwrap_err()
                .contains("not a URL")
        );
        assert!(parse_public_url("https://x.example/?a=1").is_err());
    }
}
