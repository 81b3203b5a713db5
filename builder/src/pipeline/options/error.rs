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
    /// The dashboards given cannot fit the CloudStack lines asked for. One sentence; the
    /// node scripts that would fail are logged at debug level (`-v`).
    #[error(
        "{given} does not fit CloudStack {lines}: no {missing} (run the same command with -v for the node scripts that need it)"
    )]
    Unfit {
        /// The dashboards given.
        given: String,
        /// The lines that refuse them, `4.20, 4.22`.
        lines: String,
        /// What those lines miss, `dashboard.yaml`.
        missing: String,
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
