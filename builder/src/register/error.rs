//! Why `register` stopped: each variant names the input and says what to do.

use std::path::PathBuf;
use std::time::Duration;

use cks_cloudstack::CloudStackError;

use crate::inspect::InspectError;
use crate::iso::IsoError;

/// What keeps an ISO from being registered.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// The ISO file cannot be read.
    #[error("cannot read {iso}: {source}")]
    Read {
        /// The ISO.
        iso: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The ISO cannot be opened as an image.
    #[error("{iso} is not a readable ISO: {source}")]
    Image {
        /// The ISO.
        iso: PathBuf,
        /// What the reader said.
        source: IsoError,
    },
    /// `verify` cannot read the ISO.
    #[error("{0}")]
    Inspect(#[from] InspectError),
    /// `verify` rejects the ISO.
    #[error(
        "{iso} does not meet the CKS node contract ({count} problem{plural}, first: {first}); run `cks-iso verify {iso}` for all of them"
    )]
    Rejected {
        /// The ISO.
        iso: PathBuf,
        /// How many problems.
        count: usize,
        /// `s` or nothing.
        plural: &'static str,
        /// The first problem.
        first: String,
    },
    /// The ISO has no usable `versions.txt`.
    #[error("{iso}: {detail}; build it with `cks-iso build`, which writes /versions.txt")]
    Versions {
        /// The ISO.
        iso: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The `.sha256` sidecar names another digest.
    #[error(
        "{sidecar} says sha256 {listed} but {iso} hashes to {actual}: the ISO or its sidecar was changed after the build; rebuild or copy both again"
    )]
    Sidecar {
        /// The ISO.
        iso: PathBuf,
        /// The sidecar.
        sidecar: PathBuf,
        /// The digest it lists.
        listed: String,
        /// The ISO's digest.
        actual: String,
    },
    /// `--require-signature`: the ISO has no readable `.sig` beside it.
    #[error(
        "--require-signature: {iso} has no signature {sig} ({detail}); sign it with `cks-iso catalog DIR --sign-key KEY` (or `cks-iso build --sign-key KEY`) and keep the .sig beside it"
    )]
    Unsigned {
        /// The ISO.
        iso: PathBuf,
        /// The signature file looked for.
        sig: PathBuf,
        /// Why it could not be read.
        detail: String,
    },
    /// `--require-signature`: the ISO's `.sig` does not verify with `--key`.
    #[error(
        "--require-signature: {iso} is not signed by --key {key}: {source}; nothing was registered (build and sign it again, or check who signed it)"
    )]
    BadSignature {
        /// The ISO.
        iso: PathBuf,
        /// The public key's path.
        key: String,
        /// Why.
        source: cks_signature::SignatureError,
    },
    /// The URL did not answer with the ISO (the transport's failure, as every client of the
    /// builder reports it).
    #[error("--url {url}: {source}; serve the ISO there before registering it")]
    UrlHttp {
        /// The URL.
        url: String,
        /// What the transport reported.
        #[source]
        source: crate::http::HttpError,
    },
    /// The URL's answer could not be read.
    #[error("--url {url}: {detail}; serve the ISO there before registering it")]
    UrlUnreachable {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The URL serves something else.
    #[error(
        "--url {url} serves {served} but {iso} is {expected}: CloudStack would download something else; upload this ISO there (or pass the URL that serves it)"
    )]
    UrlMismatch {
        /// The URL.
        url: String,
        /// The ISO.
        iso: PathBuf,
        /// What the URL serves (size or sha256).
        served: String,
        /// What the ISO is.
        expected: String,
    },
    /// The same version is registered with another checksum.
    #[error(
        "Kubernetes {version} is already registered in CloudStack as {existing} with checksum {registered}, but {iso} has {ours}; pass --replace to delete {existing} and register this ISO"
    )]
    OtherChecksum {
        /// The semantic version.
        version: String,
        /// The registered version: `<name> (id <id>)`.
        existing: String,
        /// Its checksum.
        registered: String,
        /// The ISO.
        iso: PathBuf,
        /// The ISO's checksum.
        ours: String,
    },
    /// `--replace` asked to delete a version clusters use.
    #[error(
        "--replace: Kubernetes {version} ({name}, id {id}) is used by cluster{plural} {clusters}; upgrade them to another version first, or register this ISO under another version"
    )]
    InUse {
        /// The semantic version.
        version: String,
        /// The version's name.
        name: String,
        /// Its id.
        id: String,
        /// The clusters using it.
        clusters: String,
        /// `s` or nothing.
        plural: &'static str,
    },
    /// The server lacks a parameter the flags need.
    #[error(
        "{flag}: this CloudStack's addKubernetesSupportedVersion has no `{parameter}` parameter (it needs CloudStack {since} or newer); drop {flag}"
    )]
    Unsupported {
        /// The flag.
        flag: &'static str,
        /// The parameter.
        parameter: &'static str,
        /// The first CloudStack release with it.
        since: &'static str,
    },
    /// CloudStack failed to download or check the ISO.
    #[error(
        "CloudStack could not download {url} for Kubernetes {version}: isostate {state}, {status}; {cleanup}; fix the URL or the image store and register again"
    )]
    DownloadFailed {
        /// The semantic version.
        version: String,
        /// The URL.
        url: String,
        /// CloudStack's `isostate`.
        state: String,
        /// CloudStack's download status text.
        status: String,
        /// What became of the version: removed again, or why not.
        cleanup: String,
    },
    /// `--zone` names no zone.
    #[error(
        "--zone {zone}: CloudStack has no zone with that name or id (zones: {known}); pass one of them"
    )]
    NoZone {
        /// The zone asked for.
        zone: String,
        /// The zones there are.
        known: String,
    },
    /// The ISO did not become Ready in time.
    #[error(
        "Kubernetes {version} (id {id}) is not Ready after {waited:?}: isostate {state}, {status}; it stays registered: wait longer with a larger --timeout, or check the ISO in CloudStack"
    )]
    Timeout {
        /// The semantic version.
        version: String,
        /// The version's id.
        id: String,
        /// How long it waited.
        waited: Duration,
        /// The last `isostate`.
        state: String,
        /// The last status text.
        status: String,
    },
    /// The ISO does not fit the node contract of the server's CloudStack line.
    #[error(
        "{} does not fit CloudStack {version} (the {line} line): {missing}; build it with the files that line reads (`cks-iso build --cloudstack {line}`), or pass --force",
        iso.display()
    )]
    Unfit {
        /// The ISO.
        iso: PathBuf,
        /// The server's version.
        version: String,
        /// Its line.
        line: cks_pinning::node_contract::Line,
        /// What is missing and what the node does without it.
        missing: String,
    },
    /// CloudStack answered with an error.
    #[error("{0}")]
    CloudStack(#[from] CloudStackError),
}
