//! Pulling a list of images into tarballs: resolve, choose the platform, fetch blobs once per
//! build, write each layout tarball.

use std::path::{Path, PathBuf};

use futures_util::{StreamExt, TryStreamExt};
use serde::Serialize;

use super::RegistryError;
use super::auth::CredentialStore;
use super::client::{FetchedManifest, RegistryClient};
use super::endpoint::Endpoints;
use super::layout::{DockerImage, LayoutContents, write_tarball_temp};
use super::manifest::{Descriptor, Manifest, config_platform, parse_manifest};
use super::platform::{self, Arch};
use super::reference::RemoteName;
use super::store::BlobStore;
use super::tarball_cache::{CachedTarball, TarballCache};
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

enum Outcome {
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
    let names = requests
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
        .collect::<Result<Vec<_>, _>>()?;
    // Credential helpers are asked about the registries and mirrors this pull contacts.
    let mut credentials = options.credentials.clone();
    let mut hosts = Vec::new();
    for name in &names {
        hosts.push(endpoints.resolve(&name.registry)?.host);
        hosts.push(name.registry.clone());
    }
    let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
    credentials.ask_helpers(&hosts)?;
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
    // Every tarball is complete: only now do they get their names, so a failed pull leaves none.
    for (file, dest) in written {
        file.persist(&dest)
            .map_err(|e| RegistryError::io(&dest)(e.error))?;
    }
    let stats = store.stats();
    report.bytes_fetched = client.bytes_fetched();
    report.unique_bytes = stats.unique_bytes;
    report.blobs_fetched = stats.blobs_fetched;
    report.blobs_reused = stats.blobs_reused;
    Ok(report)
}

async fn pull_one(
    client: &RegistryClient,
    store: &BlobStore,
    name: &RemoteName,
    request: &ImageRequest,
    out_dir: &Path,
    options: &PullOptions,
    progress: &dyn ProgressSink,
) -> Result<Outcome, RegistryError> {
    let arch = options.arch;
    let cache = options.cache_registry.as_ref();
    let top =
        crate::cache_registry::manifest(cache, client, name, name.manifest_reference()).await?;
    let (top_type, parsed) = parse_manifest(
        &name.full,
        &top.digest,
        top.content_type.as_deref(),
        &top.bytes,
    )?;
    let mut blobs = vec![(
        top.digest.clone(),
        store.put_bytes(&top.digest, &top.bytes).await?,
    )];
    let (platform_digest, platform, config, layers, config_fetched) = match parsed {
        Manifest::Index(entries) => {
            let entry = platform::select(&entries, arch).ok_or_else(|| {
                RegistryError::PlatformNotInIndex {
                    image: name.full.clone(),
                    platform: arch.platform(),
                    available: platform::describe(&entries),
                }
            })?;
            let child = crate::cache_registry::manifest(cache, client, name, &entry.digest).await?;
            check_size(name, entry, &child)?;
            let (_, parsed) = parse_manifest(
                &name.full,
                &child.digest,
                child.content_type.as_deref(),
                &child.bytes,
            )?;
            let Manifest::Image { config, layers } = parsed else {
                return Err(RegistryError::BadManifest {
                    image: name.full.clone(),
                    digest: child.digest,
                    reason: "an index entry for the target platform is itself an index".into(),
                });
            };
            blobs.push((
                child.digest.clone(),
                store.put_bytes(&child.digest, &child.bytes).await?,
            ));
            let platform = entry
                .platform
                .as_ref()
                .map_or_else(|| arch.platform(), ToString::to_string);
            (child.digest, platform, config, layers, false)
        }
        Manifest::Image { config, layers } => {
            let path = store
                .blob(client, name, &config.digest, config.size, progress)
                .await?;
            let bytes = read_small(&path, super::manifest::MAX_MANIFEST_BYTES).await?;
            let found = config_platform(&name.full, &config.digest, &bytes)?;
            if !super::platform::runs_on(arch, &found) {
                if options.strict_platforms {
                    return Err(RegistryError::WrongPlatform {
                        image: name.full.clone(),
                        platform: arch.platform(),
                        found: found.to_string(),
                    });
                }
                let skipped = SkippedImage {
                    reference: name.full.clone(),
                    platform: found.to_string(),
                };
                let warning = PullWarning::SkippedPlatform {
                    reference: name.full.clone(),
                    platform: found.to_string(),
                    target: arch.platform(),
                };
                return Ok(Outcome::Skipped(skipped, warning));
            }
            blobs.push((config.digest.clone(), path));
            (top.digest.clone(), found.to_string(), config, layers, true)
        }
    };
    let cache = options.tarball_cache.clone().map(TarballCache::new);
    if let Some(cache) = &cache
        && let Some((file, cached)) = cache.take(&name.full, &top.digest, &platform, out_dir)
    {
        return Ok(Outcome::Pulled(
            PulledImage {
                reference: name.full.clone(),
                digest: top.digest,
                media_type: top_type,
                platform_digest: cached.platform_digest,
                platform: cached.platform,
                tarball: out_dir.join(&request.tarball_name),
                tarball_size: cached.size,
                tarball_sha256: cached.sha256,
                blobs: cached.blobs,
            },
            file,
        ));
    }
    let fetches = std::iter::once(&config)
        .filter(|_| !config_fetched)
        .chain(&layers)
        .map(|d| async move {
            let path = store
                .blob(client, name, &d.digest, d.size, progress)
                .await?;
            Ok::<_, RegistryError>((d.digest.clone(), path))
        });
    blobs.extend(futures_util::future::try_join_all(fetches).await?);
    let contents = LayoutContents {
        name: name.full.clone(),
        media_type: top_type.clone(),
        digest: top.digest.clone(),
        size: top.bytes.len() as u64,
        blobs,
        docker: Some(DockerImage {
            config: config.digest.clone(),
            layers: layers.iter().map(|l| l.digest.clone()).collect(),
        }),
    };
    let tarball = out_dir.join(&request.tarball_name);
    let (dir, layout) = (out_dir.to_path_buf(), contents.clone());
    let (file, written) = tokio::task::spawn_blocking(move || write_tarball_temp(&dir, &layout))
        .await
        .map_err(|e| RegistryError::Io {
            path: tarball.clone(),
            source: std::io::Error::other(e.to_string()),
        })??;
    let mut digests: Vec<String> = contents.blobs.into_iter().map(|(d, _)| d).collect();
    digests.dedup();
    if let Some(cache) = &cache {
        let record = CachedTarball {
            size: written.size,
            sha256: written.sha256.clone(),
            platform_digest: platform_digest.clone(),
            platform: platform.clone(),
            blobs: digests.clone(),
        };
        cache.put(&name.full, &top.digest, &platform, &file, &record);
    }
    Ok(Outcome::Pulled(
        PulledImage {
            reference: name.full.clone(),
            digest: top.digest,
            media_type: top_type,
            platform_digest,
            platform,
            tarball,
            tarball_size: written.size,
            tarball_sha256: written.sha256,
            blobs: digests,
        },
        file,
    ))
}

fn check_size(
    name: &RemoteName,
    entry: &Descriptor,
    m: &FetchedManifest,
) -> Result<(), RegistryError> {
    if m.bytes.len() as u64 != entry.size {
        return Err(RegistryError::BlobSize {
            image: name.full.clone(),
            blob: entry.digest.clone(),
            expected: entry.size,
            actual: m.bytes.len() as u64,
        });
    }
    Ok(())
}

async fn read_small(path: &Path, limit: u64) -> Result<Vec<u8>, RegistryError> {
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(RegistryError::io(path))?;
    if meta.len() > limit {
        return Err(RegistryError::BadManifest {
            image: String::new(),
            digest: path.display().to_string(),
            reason: format!("an image config larger than {limit} bytes"),
        });
    }
    tokio::fs::read(path).await.map_err(RegistryError::io(path))
}
