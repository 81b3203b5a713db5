//! A build input that is missing or malformed, named as the user gave it.

use std::path::PathBuf;

/// A build input that is missing or malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A required input was given nowhere.
    #[error(
        "missing {input}: give it as an argument, a flag or in the --config file (e.g. {example})"
    )]
    Missing {
        /// The input's name as the user knows it.
        input: String,
        /// An example value.
        example: String,
    },
    /// An input has a value that cannot be used.
    #[error("bad {input} `{value}`: {expected}")]
    Invalid {
        /// The input's name.
        input: String,
        /// What was given.
        value: String,
        /// What would be accepted.
        expected: String,
    },
    /// The dashboards given cannot fit the CloudStack lines asked for.
    #[error(
        "{given}: {reason}; give DASHBOARD_YAML (--dashboard) for 4.20/4.22, --headlamp for 4.23, or both for any"
    )]
    Unfit {
        /// The dashboards given.
        given: String,
        /// Which line refuses them, and why.
        reason: String,
    },
    /// The config file could not be read or parsed.
    #[error("config file {}: {message}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}
