//! How a person wants their answers: `/voice on|off|auto` (auto by default: spoken when they
//! spoke). A plain value, shared by the conversation that applies it and the sentences that
//! name it.

/// How a person wants their answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VoiceMode {
    /// Every answer is spoken too.
    On,
    /// Text only.
    Off,
    /// Spoken when the question was (a voice note, an audio file, a video note).
    #[default]
    Auto,
}

impl VoiceMode {
    /// `on`, `off` or `auto`, in any case; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "on" => Some(Self::On),
            "off" => Some(Self::Off),
            "auto" => Some(Self::Auto),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::On => "on",
            Self::Off => "off",
            Self::Auto => "auto",
        }
    }

    /// Whether an answer to a question (`spoken` or written) is spoken too.
    pub fn speaks_answer(self, spoken: bool) -> bool {
        match self {
            Self::On => true,
            Self::Off => false,
            Self::Auto => spoken,
        }
    }
}
