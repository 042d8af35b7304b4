//! Who said a message: the one [`Role`] that the LLM client sends to the model and the store
//! keeps with every message.
//!
//! It lives beside both layers rather than in either, so the LLM client does not depend on
//! storage and storage does not depend on the client. It carries the two encodings it needs and
//! nothing else: serde for the providers' JSON, and lowercase TEXT for SQLite (the schema checks
//! the same three values).

/// Who said a message. Serialized and stored as lowercase text (`system`, `user`, `assistant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "TEXT", rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_is_written_as_its_lowercase_name() {
        let names: Vec<String> = [Role::System, Role::User, Role::Assistant]
            .iter()
            .map(|role| serde_json::to_string(role).unwrap())
            .collect();
        assert_eq!(names, [r#""system""#, r#""user""#, r#""assistant""#]);
    }
}
