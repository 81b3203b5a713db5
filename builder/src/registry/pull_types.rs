//! What a pull is asked (options, one request per image) and what it gives back (pulled and
//! skipped images, warnings, the report), shared by the list and the one-image pull.

use std::path::PathBuf;

use serde::Serialize;

use super::auth::CredentialStore;
use crate::retry::RetryPolicy;
use cks_iso_reader::oci::Arch;
use cks_pinning::digest::Digest;
use cks_pinning::image::ImageRef;

/// How to pull.
#[derive(Debug, Clone)]
pub struct PullOptions {
    /// The target architecture (of the ISO, not of the build host).
    pub arch: Arch,
    /// `REGISTRY=URL` mirrors.
    pub mirrors: Vec<String>,
    /// Registries and mirrors (`host[:port]`) that may be reached over plain HTTP.
    pub insecure: Vec<String>,
    /// Images and blob transfers in flight at once.
    pub concurrency: usize,
    /// Make a single-platform image for another platform an error instead of a skip.
    pub strict_platforms: bool,
    /// Retries for transport errors, 429 and 5xx.
    pub retry: RetryPolicy,
    /// Credentials for private registries.
    pub credentials: CredentialStore,
    /// PEM files whose certificates are trusted besides the system roots (`--ca-file`).
    pub ca_files: Vec<PathBuf>,
    /// Where blobs are kept; a directory that persists between builds is a verified cache. A
    /// temporary directory, removed at the end, when `None`.
    pub blob_dir: Option<PathBuf>,
    /// Where finished tarballs are kept for later builds, if anywhere.
    pub tarball_cache: Option<PathBuf>,
    /// The shared tier for manifests, blobs and finished tarballs (a cache registry), if any.
    pub shared: Option<crate::artifact::SharedTier>,
    /// Digests to pull instead of resolving the tag, by request reference (a lock's record).
    pub pinned: std::collections::BTreeMap<ImageRef, Digest>,
    /// How much is read of manifests, configs and error answers; layers per image (`--limit`).
    pub limits: cks_pinning::limits::Limits,
    /// The fewest bytes every window of a manifest or blob must bring (`--min-rate`).
    pub min_rate: crate::pace::MinRate,
    /// The manifests read so far in this build, shared by every copy of these options.
    pub manifests: super::ManifestMemo,
    /// Where each blob's SHA-1 is remembered as it lands ([`super::sha1_memo`]), if anywhere.
    pub sha1_memo: Option<PathBuf>,
}

impl PullOptions {
    /// Defaults for `arch`: no mirrors, concurrency 4, default retries, no credentials.
    pub fn new(arch: Arch) -> Self {
        PullOptions {
            arch,
            mirrors: Vec::new(),
            insecure: Vec::new(),
            concurrency: 4,
            strict_platforms: false,
            retry: RetryPolicy::default(),
            credentials: CredentialStore::default(),
            ca_files: Vec::new(),
            blob_dir: None,
            tarball_cache: None,
            shared: None,
            pinned: Default::default(),
            limits: cks_pinning::limits::Limits::default(),
            min_rate: crate::pace::MinRate::default(),
            manifests: super::ManifestMemo::default(),
            sha1_memo: None,
        }
    }
}

/// One image to pull and the file name of its tarball.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRequest {
    /// The full normalised reference.
    pub reference: ImageRef,
    /// The tarball's file name in the output directory.
    pub tarball_name: String,
}

impl ImageRequest {
    /// One request per image, named with `cks_pinning::image::tarball_names` (short names, long
    /// ones where two images would share a short name).
    pub fn for_images(images: &[ImageRef]) -> Vec<ImageRequest> {
        images
            .iter()
            .zip(cks_pinning::image::tarball_names(images))
            .map(|(image, tarball_name)| ImageRequest {
                reference: image.clone(),
                tarball_name,
            })
            .collect()
    }
}

/// An image written to a tarball.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PulledImage {
    /// The full normalised reference, as requested (the original name, even through a mirror).
    pub reference: ImageRef,
    /// The digest the registry serves for it (of the index when it is multi-platform).
    pub digest: Digest,
    /// The media type of that object.
    pub media_type: String,
    /// The digest of the target platform's manifest (equal to `digest` for a single manifest).
    pub platform_digest: Digest,
    /// The platform of the content, e.g. `linux/arm64`.
    pub platform: String,
    /// The tarball's path.
    pub tarball: PathBuf,
    /// The tarball's size.
    pub tarball_size: u64,
    /// The tarball's `sha256:` digest.
    pub tarball_sha256: String,
    /// The blobs in the tarball (top object, platform manifest, config, layers), by digest.
    pub blobs: Vec<String>,
}

impl PulledImage {
    /// `<reference without digest>@<digest>`, the line `cks-iso pull` prints.
    pub fn pinned(&self) -> String {
        self.reference
            .without_digest()
            .pinned_to(&self.digest)
            .to_string()
    }
}

/// An image left out because it is for another platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedImage {
    /// The full normalised reference.
    pub reference: ImageRef,
    /// Its platform, e.g. `linux/arm`.
    pub platform: String,
}

impl SkippedImage {
    /// The versions.txt line: `skipped-image: <reference> <platform>`.
    pub fn versions_line(&self) -> String {
        format!("skipped-image: {} {}", self.reference, self.platform)
    }
}

/// Something the caller should show the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum PullWarning {
    /// A single-platform image for another platform was left out.
    SkippedPlatform {
        /// The full normalised reference.
        reference: String,
        /// Its platform.
        platform: String,
        /// The target platform.
        target: String,
    },
}

impl std::fmt::Display for PullWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PullWarning::SkippedPlatform {
                reference,
                platform,
                target,
            } => write!(
                f,
                "left out {reference}: it is a {platform} image and its pods cannot run on {target} nodes"
            ),
        }
    }
}

/// What a pull did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PullReport {
    /// Images written, in request order.
    pub images: Vec<PulledImage>,
    /// Images left out, in request order.
    pub skipped: Vec<SkippedImage>,
    /// Warnings for the user.
    pub warnings: Vec<PullWarning>,
    /// Bytes received from registries (manifests and blobs, retries included).
    pub bytes_fetched: u64,
    /// Bytes of tarballs written.
    pub bytes_written: u64,
    /// Total size of the distinct blobs and manifests used.
    pub unique_bytes: u64,
    /// Blobs downloaded.
    pub blobs_fetched: u64,
    /// Blob uses served from the store instead of the network.
    pub blobs_reused: u64,
}

/// One image pulled (its tarball still under a temporary name) or left out.
pub(super) enum Outcome {
    Pulled(PulledImage, tempfile::TempPath),
    Skipped(SkippedImage, PullWarning),
}
