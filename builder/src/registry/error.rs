//! Everything that can go wrong while pulling images and writing their tarballs.

use std::path::PathBuf;

/// An error of the registry client, the platform choice or the tarball writer.
///
/// Every variant names the image (its full reference) and, where there is one, the blob or URL.
/// No variant carries a credential: URLs are built without user info and tokens never leave the
/// client.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// An image reference that is not a full normalised reference.
    #[error("image reference `{reference}` is not valid: {reason}")]
    BadReference {
        /// The reference as given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--registry-mirror` value that is not `REGISTRY=URL`.
    #[error(
        "registry mirror `{spec}` is not valid: {reason}; expected REGISTRY=URL, e.g. registry.k8s.io=http://127.0.0.1:5000"
    )]
    BadMirror {
        /// The value as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Plain HTTP was asked for a registry that was not named with `--insecure-registry`.
    #[error(
        "{url} is plain HTTP but `{registry}` is not named with --insecure-registry; add `--insecure-registry {registry}` to allow it"
    )]
    InsecureNotAllowed {
        /// The registry (or mirror) host.
        registry: String,
        /// The URL that would have been used.
        url: String,
    },
    /// A docker `config.json` that could not be read.
    #[error("docker config {}: {reason}", path.display())]
    DockerConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: super::credential_error::DockerConfigError,
    },
    /// A docker credential helper named by the config failed or is missing.
    #[error(
        "credential helper `{program}` for {registry}: {reason}; install it on PATH or remove it from `credsStore`/`credHelpers` of the docker config.json"
    )]
    CredentialHelper {
        /// The program, `docker-credential-<name>`.
        program: String,
        /// The registry host it was asked about.
        registry: String,
        /// What went wrong (never the helper's answer).
        reason: super::credential_error::HelperFailure,
    },
    /// The HTTP request failed before an answer arrived (after retries): the one transport's
    /// error, naming the URL (without credentials).
    #[error("{image}: {source}")]
    Http {
        /// The image being pulled.
        image: String,
        /// The transport error.
        #[source]
        source: crate::http::HttpError,
    },
    /// A `--ca-file` cannot be used.
    #[error("{source}")]
    CaFile {
        /// Why.
        #[source]
        source: crate::fetch::FetchError,
    },
    /// The registry answered 401 and no usable credentials were available or they were refused.
    #[error("{image}: {registry} answered 401 Unauthorized{}", if *had_credentials {
        "; the credentials for it were refused"
    } else {
        "; no credentials for it were given (run `docker login`, or point DOCKER_CONFIG at a config.json; `cks-iso pull` also takes --docker-config)"
    })]
    Unauthorized {
        /// The image being pulled.
        image: String,
        /// The registry host that refused.
        registry: String,
        /// Whether credentials were sent.
        had_credentials: bool,
    },
    /// The registry does not know the image (or tag, or digest).
    #[error("{image}: not found in the registry ({url} answered 404{detail})")]
    NotFound {
        /// The image being pulled.
        image: String,
        /// The URL that answered 404.
        url: String,
        /// The registry's error text, prefixed with ": ", or empty.
        detail: String,
    },
    /// Any other unexpected HTTP status (after retries for 429 and 5xx).
    #[error("{image}: {url} answered {status}{detail}")]
    Status {
        /// The image being pulled.
        image: String,
        /// The URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The registry's error text, prefixed with ": ", or empty.
        detail: String,
    },
    /// The token server did not give a token.
    #[error("{image}: token server {realm} did not issue a token: {reason}")]
    Token {
        /// The image being pulled.
        image: String,
        /// The token endpoint (without credentials).
        realm: String,
        /// What went wrong.
        reason: String,
    },
    /// The manifest bytes do not hash to the digest the registry or the reference named.
    #[error("{image}: manifest digest mismatch: expected {expected}, the bytes hash to {actual}")]
    ManifestDigest {
        /// The image being pulled.
        image: String,
        /// The digest expected.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// The registry's `Docker-Content-Digest` answer names sha256 but is not a sha256 digest.
    #[error(
        "{image}: the registry answered Docker-Content-Digest {value:?}, which is not a digest ({reason}); the registry or a proxy before it is broken"
    )]
    BadDigestHeader {
        /// The image being pulled.
        image: String,
        /// The header's value as served.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// An image larger than a limit: too many layers, or a config too large.
    #[error("{image}: {what} is over the {kind} limit of {limit}; {}", kind.advice())]
    OverLimit {
        /// The image being pulled.
        image: String,
        /// What is too large, with its size.
        what: String,
        /// The limit's kind.
        kind: cks_pinning::limits::LimitKind,
        /// The limit, as a person reads it.
        limit: String,
    },
    /// A manifest that is not JSON of the expected shape, or too large, or of a media type
    /// this puller does not handle (Docker schema 1, an artifact).
    #[error(transparent)]
    Manifest(#[from] cks_iso_reader::oci::ManifestError),
    /// A blob whose bytes do not hash to its digest.
    #[error("{image}: blob {blob} is corrupt: its bytes hash to {actual}; refusing it")]
    BlobDigest {
        /// The image being pulled.
        image: String,
        /// The blob's digest as the manifest names it.
        blob: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// A blob whose size differs from the manifest's descriptor.
    #[error(
        "{image}: blob {blob} has the wrong size: the manifest says {expected} bytes, got {actual}"
    )]
    BlobSize {
        /// The image being pulled.
        image: String,
        /// The blob's digest.
        blob: String,
        /// The size in the descriptor.
        expected: u64,
        /// The bytes received (at least; the transfer stops when it exceeds the size).
        actual: u64,
    },
    /// An index with no manifest for the target platform.
    #[error("{image}: the image index has no manifest for {platform}; it offers {available}")]
    PlatformNotInIndex {
        /// The image being pulled.
        image: String,
        /// The target platform.
        platform: String,
        /// The platforms the index lists.
        available: String,
    },
    /// A single-platform image for another platform, with `--strict-platforms`.
    #[error(
        "{image}: the image is for {found} only, not the target {platform} (--strict-platforms is set)"
    )]
    WrongPlatform {
        /// The image being pulled.
        image: String,
        /// The target platform.
        platform: String,
        /// The image's own platform.
        found: String,
    },
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl RegistryError {
    /// Wraps an I/O error with the path it happened on.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> RegistryError {
        let path = path.into();
        move |source| RegistryError::Io {
            source: crate::space::explain(source, &path, None),
            path,
        }
    }
}
