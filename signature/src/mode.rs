//! What a build does with each artifact's verdict: `require` refuses anything not verified,
//! `warn` turns it into one warning line, `off` skips verification.

use serde::{Deserialize, Serialize};

use crate::error::SignatureError;
use crate::verify::Verified;

/// `--signatures require|warn|off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every signed source must verify; a missing or bad signature fails the build.
    Require,
    /// Verify what is signed; print one line per artifact that is not verified.
    #[default]
    Warn,
    /// Do not fetch or verify signatures.
    Off,
}

/// A `--signatures` value that is not a mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--signatures {0:?}: expected require, warn or off")]
pub struct UnknownMode(pub String);

impl std::str::FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(text: &str) -> Result<Mode, UnknownMode> {
        match text {
            "require" => Ok(Mode::Require),
            "warn" => Ok(Mode::Warn),
            "off" => Ok(Mode::Off),
            other => Err(UnknownMode(other.to_string())),
        }
    }
}

/// What verification of one artifact came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It verified.
    Verified(Verified),
    /// The signature files or signature manifest are not there.
    Missing(String),
    /// A signature is there and was refused.
    Refused(SignatureError),
}

/// The line a build records (and, under `warn`, prints) for an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Verified: the line to record.
    Verified(String),
    /// Not verified, and the mode allows it: the warning to print once.
    Warning(String),
}

/// Why `require` fails the build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{subject}: signature required but {reason}; use --signatures warn to build anyway")]
pub struct Refusal {
    /// The file (path in the ISO) or image reference.
    pub subject: String,
    /// Why.
    pub reason: String,
}

/// Applies the mode to an artifact's outcome.
pub fn judge(mode: Mode, subject: &str, outcome: &Outcome) -> Result<Judgement, Refusal> {
    let reason = match outcome {
        Outcome::Verified(v) => return Ok(Judgement::Verified(v.summary())),
        Outcome::Missing(what) => format!("it is not signed ({what})"),
        Outcome::Refused(error) => format!("its signature is refused: {error}"),
    };
    match mode {
        Mode::Require => Err(Refusal {
            subject: subject.to_string(),
            reason,
        }),
        Mode::Warn | Mode::Off => Ok(Judgement::Warning(format!("{subject}: {reason}"))),
    }
}
