//! Why a `--cache-registry` value cannot be used (bad input fails the build; a registry that
//! misbehaves only warns, see [`super::warning::CacheWarning`]).

use crate::registry::RegistryError;

/// A `--cache-registry` value that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CacheRegistryError {
    /// Not `http(s)://HOST[:PORT]/REPO`.
    #[error(
        "--cache-registry `{url}` is not valid: {reason}; expected http(s)://HOST[:PORT]/REPO, e.g. https://registry.ci.example/cks-cache"
    )]
    BadUrl {
        /// The value as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The HTTP client cannot be made (an unusable `--ca-file`).
    #[error("--cache-registry `{url}`: {source}")]
    Client {
        /// The value as given.
        url: String,
        /// The client's error.
        #[source]
        source: crate::fetch::FetchError,
    },
    /// The registry settings (plain HTTP without `--insecure-registry`, credentials) refuse it.
    #[error("--cache-registry `{url}`: {source}")]
    Registry {
        /// The value as given.
        url: String,
        /// The registry client's error.
        #[source]
        source: RegistryError,
    },
}
