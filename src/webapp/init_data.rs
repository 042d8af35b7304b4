//! Who opened the Mini App: Telegram's init data, checked the way Telegram documents it. The
//! data is a URL-encoded form (`user`, `auth_date`, `query_id`, ..., `hash`); its `hash` is the
//! hex HMAC-SHA256 of the other fields (sorted by name, `name=value`, joined by line feeds) keyed
//! by HMAC-SHA256 of the bot token keyed by `WebAppData`. Only the bot's token makes a valid hash,
//! so a valid one proves Telegram gave this data to this person; it is compared in constant time,
//! and data older than the allowed age is refused, so a leaked link stops working.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::ids::UserId;

type HmacSha256 = Hmac<Sha256>;

/// A sign-in dated this far in the future still counts: clocks differ a little.
const CLOCK_SKEW_MS: i64 = 5 * 60 * 1000;

/// The key init data is signed with, made from the bot token. `Debug` does not show it.
#[derive(Clone)]
pub struct InitDataKey([u8; 32]);

impl std::fmt::Debug for InitDataKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("InitDataKey(..)")
    }
}

/// The person the init data names, as Telegram describes them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct WebAppUser {
    pub id: i64,
    #[serde(default)]
    pub first_name: String,
    // A missing optional field reads as `None`.
    pub last_name: Option<String>,
    pub username: Option<String>,
    pub language_code: Option<String>,
}

impl WebAppUser {
    pub fn user_id(&self) -> UserId {
        UserId(self.id)
    }
}

/// Init data whose signature and age were checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitData {
    pub user: WebAppUser,
    /// When Telegram signed it, in ms.
    pub auth_date_ms: i64,
}

/// Why init data was refused. Callers answer every kind the same way (401): the kinds are for
/// the log and the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InitDataError {
    #[error("no init data")]
    Missing,
    #[error("init data without a hash")]
    NoHash,
    #[error("init data signed with another key, or changed")]
    BadSignature,
    #[error("init data without a valid auth_date")]
    NoDate,
    #[error("init data older than allowed")]
    Expired,
    #[error("init data without a valid user")]
    NoUser,
}

impl InitDataKey {
    /// The key of the bot with `bot_token`.
    pub fn for_bot_token(bot_token: &str) -> Self {
        Self(hmac_sha256(b"WebAppData", bot_token.as_bytes()))
    }

    /// Checks `raw` (the init data string as the Mini App received it) at `now_ms`: signed with
    /// this key, at most `max_age_ms` old, naming a user.
    pub fn verify(
        &self,
        raw: &str,
        now_ms: i64,
        max_age_ms: i64,
    ) -> Result<InitData, InitDataError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(InitDataError::Missing);
        }
        let mut fields: Vec<(String, String)> = form_urlencoded::parse(raw.as_bytes())
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
        let hash_at = fields
            .iter()
            .position(|(name, _)| name == "hash")
            .ok_or(InitDataError::NoHash)?;
        let (_, hash) = fields.remove(hash_at);
        let hash = decode_hex(&hash).ok_or(InitDataError::BadSignature)?;
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any size");
        mac.update(data_check_string(&mut fields).as_bytes());
        mac.verify_slice(&hash)
            .map_err(|_| InitDataError::BadSignature)?;

        let field = |wanted: &str| {
            fields
                .iter()
                .find(|(name, _)| name == wanted)
                .map(|(_, value)| value.as_str())
        };
        let auth_date_ms = field("auth_date")
            .and_then(|seconds| seconds.parse::<i64>().ok())
            .and_then(|seconds| seconds.checked_mul(1000))
            .ok_or(InitDataError::NoDate)?;
        if now_ms.saturating_sub(auth_date_ms) > max_age_ms
            || auth_date_ms.saturating_sub(now_ms) > CLOCK_SKEW_MS
        {
            return Err(InitDataError::Expired);
        }
        let user: WebAppUser = field("user")
            .and_then(|user| serde_json::from_str(user).ok())
            .ok_or(InitDataError::NoUser)?;
        if user.id == 0 {
            return Err(InitDataError::NoUser);
        }
        Ok(InitData { user, auth_date_ms })
    }

    /// Init data with `fields` (names and values, not yet encoded) signed with this key, as
    /// Telegram would give it: for tests and for opening the Mini App in a browser by hand.
    pub fn sign(&self, fields: &[(&str, &str)]) -> String {
        let mut owned: Vec<(String, String)> = fields
            .iter()
            .filter(|(name, _)| *name != "hash")
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let check = data_check_string(&mut owned);
        let hash: String = hmac_sha256(&self.0, check.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let mut form = form_urlencoded::Serializer::new(String::new());
        for (name, value) in &owned {
            form.append_pair(name, value);
        }
        form.append_pair("hash", &hash);
        form.finish()
    }
}

/// The fields sorted by name, `name=value` joined by line feeds.
fn data_check_string(fields: &mut [(String, String)]) -> String {
    fields.sort();
    fields
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any size");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// The bytes of a hex string, or `None` when it is not one.
fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "123456:TEST-token";
    const NOW_MS: i64 = 1_780_000_000_000;
    const DAY_MS: i64 = 86_400_000;

    fn signed_for(user_id: i64, auth_date_secs: i64) -> String {
        let user = format!(r#"{{"id":{user_id},"first_name":"Ana","language_code":"de"}}"#);
        InitDataKey::for_bot_token(TOKEN).sign(&[
            ("query_id", "AAH-abc"),
            ("user", &user),
            ("auth_date", &auth_date_secs.to_string()),
        ])
    }

    #[test]
    fn init_data_signed_with_the_bot_token_names_its_person() {
        let raw = signed_for(42, NOW_MS / 1000 - 60);
        let data = InitDataKey::for_bot_token(TOKEN)
            .verify(&raw, NOW_MS, DAY_MS)
            .unwrap();
        assert_eq!(data.user.user_id(), UserId(42));
        assert_eq!(data.user.first_name, "Ana");
        assert_eq!(data.user.language_code.as_deref(), Some("de"));
        assert_eq!(data.auth_date_ms, (NOW_MS / 1000 - 60) * 1000);
    }

    /// The hash of a known token and data, worked
    /// out independently with Python's hmac module.
    #[test]
    fn the_hash_matches_an_independent_computation() {
        // python3 -c 'import hmac,hashlib;k=hmac.new(b"WebAppData",b"123456:TEST-token",
        //   hashlib.sha256).digest();print(hmac.new(k,b"auth_date=1\nuser={\"id\":7}",
        //   hashlib.sha256).hexdigest())'
        let raw =
            InitDataKey::for_bot_token(TOKEN).sign(&[("auth_date", "1"), ("user", r#"{"id":7}"#)]);
        let hash = raw.rsplit("hash=").next().unwrap();
        assert_eq!(
            hash,
            "1d4f3f339ca526add44a1ff7bc2bb4be5ce93c1e45d3032a7ba3a255306bd88e"
        );
    }

    #[test]
    fn a_changed_field_is_refused() {
        let raw = signed_for(42, NOW_MS / 1000).replace("%22id%22%3A42", "%22id%22%3A43");
        assert!(
            raw.contains("43"),
            "the test must change the user id: {raw}"
        );
        assert_eq!(
            InitDataKey::for_bot_token(TOKEN).verify(&raw, NOW_MS, DAY_MS),
            Err(InitDataError::BadSignature)
        );
    }

    #[test]
    fn another_bots_signature_is_refused() {
        let raw = signed_for(42, NOW_MS / 1000);
        assert_eq!(
            InitDataKey::for_bot_token("999:other").verify(&raw, NOW_MS, DAY_MS),
            Err(InitDataError::BadSignature)
        );
    }

    #[test]
    fn init_data_older_than_allowed_or_from_the_future_is_refused() {
        let key = InitDataKey::for_bot_token(TOKEN);
        let old = signed_for(42, (NOW_MS - DAY_MS) / 1000 - 1);
        assert_eq!(
            key.verify(&old, NOW_MS, DAY_MS),
            Err(InitDataError::Expired)
        );
        let just_in_time = signed_for(42, (NOW_MS - DAY_MS) / 1000 + 1);
        assert!(key.verify(&just_in_time, NOW_MS, DAY_MS).is_ok());
        let future = signed_for(42, (NOW_MS + 3_600_000) / 1000);
        assert_eq!(
            key.verify(&future, NOW_MS, DAY_MS),
            Err(InitDataError::Expired)
        );
    }

    #[test]
    fn missing_or_malformed_init_data_is_refused() {
        let key = InitDataKey::for_bot_token(TOKEN);
        assert_eq!(key.verify("", NOW_MS, DAY_MS), Err(InitDataError::Missing));
        assert_eq!(
            key.verify("user=%7B%7D&auth_date=1", NOW_MS, DAY_MS),
            Err(InitDataError::NoHash)
        );
        assert_eq!(
            key.verify("auth_date=1&hash=zz", NOW_MS, DAY_MS),
            Err(InitDataError::BadSignature)
        );
        let no_user = key.sign(&[("auth_date", &(NOW_MS / 1000).to_string())]);
        assert_eq!(
            key.verify(&no_user, NOW_MS, DAY_MS),
            Err(InitDataError::NoUser)
        );
        let no_date = key.sign(&[("user", r#"{"id":5}"#)]);
        assert_eq!(
            key.verify(&no_date, NOW_MS, DAY_MS),
            Err(InitDataError::NoDate)
        );
    }
}
