//! Pulling a list of images into tarballs: check the requests, ask the credential helpers, pull
//! each image (`pull_image`: blobs fetched once per build), then name every tarball at once.

use std::path::{Path, PathBuf};

use futures_util::{StreamExt, TryStreamExt};
use serde::Serialize;

use super::RegistryError;
use super::auth::CredentialStore;
use super::client::RegistryClient;
use super::endpoint::Endpoints;
use super::platform::Arch;
use super::pull_image::pull_one;
use super::reference::RemoteName;
use super::store::BlobStore;
use crate::progress::ProgressSink;
use crate::retry::RetryPolicy;

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
    /// Where blobs are kept; a directory that persists between builds is a verified cache. A
    /// temporary directory, removed at the end, when `None`.
    pub blob_dir: Option<PathBuf>,
    /// Where finished tarballs are kept for later builds, if anywhere.
    pub tarball_cache: Option<PathBuf>,
    /// The shared cache registry for manifests and blobs, if any.
    pub cache_registry: Option<crate::cache_registry::SharedCacheRegistry>,
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
            blob_dir: None,
            tarball_cache: None,
            cache_registry: None,
        }
    }
}

/// One image to pull and the file name of its tarball.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRequest {
    /// The full normalised reference.
    pub reference: String,
    /// The tarball's file name in the output directory.
    pub tarball_name: String,
}

impl ImageRequest {
    /// One request per image, named with `cks_pinning::image::tarball_names` (short names, long
    /// ones where two images would share a short name).
    pub fn for_images(images: &[cks_pinning::image::ImageRef]) -> Vec<ImageRequest> {
        images
            .iter()
            .zip(cks_pinning::image::tarball_names(images))
            .map(|(image, tarball_name)| ImageRequest {
                reference: image.to_string(),
                tarball_name,
            })
            .collect()
    }
}

/// An image written to a tarball.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PulledImage {
    /// The full normalised reference, as requested (the original name, even through a mirror).
    pub reference: String,
    /// The digest the registry serves for it (of the index when it is multi-platform).
    pub digest: String,
    /// The media type of that object.
    pub media_type: String,
    /// The digest of the target platform's manifest (equal to `digest` for a single manifest).
    pub platform_digest: String,
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
        match RemoteName::parse(&self.reference) {
            Ok(name) => format!("{}@{}", name.without_digest(), self.digest),
            Err(_) => format!("{}@{}", self.reference, self.digest),
        }
    }
}

/// An image left out because it is for another platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedImage {
    /// The full normalised reference.
    pub reference: String,
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

/// Pulls every request into `out_dir/<tarball_name>`. Fails on the first error, and then writes
/// no tarball at all; on success every tarball is complete.
pub async fn pull_images(
    requests: &[ImageRequest],
    out_dir: &Path,
    options: &PullOptions,
    progress: &dyn ProgressSink,
) -> Result<PullReport, RegistryError> {
    let endpoints = Endpoints::new(&options.mirrors, &options.insecure)?;
    let names = checked_names(requests, &endpoints)?;
    let credentials = credentials_for(&names, &endpoints, options)?;
    std::fs::create_dir_all(out_dir).map_err(RegistryError::io(out_dir))?;
    let client = RegistryClient::new(endpoints, credentials, options.retry.clone())?;
    let temp;
    let blob_dir = match &options.blob_dir {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::Builder::new()
                .prefix(".cks-blobs-")
                .tempdir_in(out_dir)
                .map_err(RegistryError::io(out_dir))?;
            temp.path().to_path_buf()
        }
    };
    let store = BlobStore::new(&blob_dir, options.concurrency)?
        .with_cache_registry(options.cache_registry.clone());
    let outcomes: Vec<Outcome> = futures_util::stream::iter(requests.iter().zip(&names))
        .map(|(request, name)| pull_one(&client, &store, name, request, out_dir, options, progress))
        .buffered(options.concurrency.max(1))
        .try_collect()
        .await?;
    let mut report = name_tarballs(outcomes)?;
    let stats = store.stats();
    report.bytes_fetched = client.bytes_fetched();
    report.unique_bytes = stats.unique_bytes;
    report.blobs_fetched = stats.blobs_fetched;
    report.blobs_reused = stats.blobs_reused;
    Ok(report)
}

/// Each request's reference, parsed, with a plain tarball name and a registry the endpoints
/// allow.
fn checked_names(
    requests: &[ImageRequest],
    endpoints: &Endpoints,
) -> Result<Vec<RemoteName>, RegistryError> {
    requests
        .iter()
        .map(|r| {
            if r.tarball_name.is_empty()
                || r.tarball_name.contains('/')
                || r.tarball_name.starts_with('.')
            {
                return Err(RegistryError::BadReference {
                    reference: r.reference.clone(),
                    reason: format!(
                        "tarball name `{}` must be a plain file name",
                        r.tarball_name
                    ),
                });
            }
            let name = RemoteName::parse(&r.reference)?;
            endpoints.resolve(&name.registry)?;
            Ok(name)
        })
        .collect()
}

/// The pull's credentials: the given ones, and the credential helpers' answers about the
/// registries and mirrors this pull contacts.
fn credentials_for(
    names: &[RemoteName],
    endpoints: &Endpoints,
    options: &PullOptions,
) -> Result<CredentialStore, RegistryError> {
    let mut credentials = options.credentials.clone();
    let mut hosts = Vec::new();
    for name in names {
        hosts.push(endpoints.resolve(&name.registry)?.host);
        hosts.push(name.registry.clone());
    }
    let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
    credentials.ask_helpers(&hosts)?;
    Ok(credentials)
}

/// The report of every outcome, in request order; only once every tarball is complete do they
/// get their names, so a failed pull leaves none.
fn name_tarballs(outcomes: Vec<Outcome>) -> Result<PullReport, RegistryError> {
    let mut report = PullReport::default();
    let mut written = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Pulled(image, file) => {
                report.bytes_written += image.tarball_size;
                written.push((file, image.tarball.clone()));
                report.images.push(image);
            }
            Outcome::Skipped(skipped, warning) => {
                report.skipped.push(skipped);
                report.warnings.push(warning);
            }
        }
    }
    for (file, dest) in written {
        file.persist(&dest)
            .map_err(|e| RegistryError::io(&dest)(e.error))?;
    }
    Ok(report)
}
