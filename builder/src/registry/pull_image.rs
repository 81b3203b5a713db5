//! One image's pull, phase by phase: the top manifest, the platform (from the index, or the
//! config of a single image), a tarball kept from an earlier build, the blobs, the layout
//! tarball written under a temporary name.

use std::path::{Path, PathBuf};

use super::client::RegistryClient;
use super::error::RegistryError;
use super::finished_tarball::{CachedTarballRefusal, TarballStore};
use super::layout::{DockerImage, LayoutContents, WrittenTarball, write_tarball_temp};
use super::progress_name::ImageProgress;
use super::pull_types::{
    ImageRequest, Outcome, PullOptions, PullWarning, PulledImage, SkippedImage,
};
use super::shared::manifest;
use super::store::BlobStore;
use crate::artifact::{CachedTarball, FetchedManifest, RemoteName, TarballId};
use crate::progress::ProgressSink;
use cks_iso_reader::oci;
use cks_iso_reader::oci::{Descriptor, Manifest, config_platform, parse_manifest};
use cks_pinning::digest::Digest;
use cks_pinning::limits::{LimitKind, Limits, show_size};

/// The image's platform chosen: the manifest to bundle, its config and layers, and the blobs
/// already in the store (the top object, the platform manifest, a config read to choose).
struct Chosen {
    platform_digest: Digest,
    platform: String,
    config: Descriptor,
    layers: Vec<Descriptor>,
    config_fetched: bool,
    blobs: Vec<(String, PathBuf)>,
}

/// Where one image's pull stands: what was asked, and where the answers are kept.
struct Job<'a> {
    client: &'a RegistryClient,
    store: &'a BlobStore,
    name: &'a RemoteName,
    request: &'a ImageRequest,
    out_dir: &'a Path,
    options: &'a PullOptions,
    progress: &'a dyn ProgressSink,
}

/// Pulls one image into a tarball under a temporary name in `out_dir`.
pub(super) async fn pull_one(
    client: &RegistryClient,
    store: &BlobStore,
    name: &RemoteName,
    request: &ImageRequest,
    out_dir: &Path,
    options: &PullOptions,
    progress: &dyn ProgressSink,
) -> Result<Outcome, RegistryError> {
    let job = Job {
        client,
        store,
        name,
        request,
        out_dir,
        options,
        progress,
    };
    let (top, top_type, parsed) = job.top_manifest().await?;
    let top_blob = (
        top.digest.to_string(),
        store.put_bytes(&top.digest, &top.bytes).await?,
    );
    let chosen = match parsed {
        Manifest::Index(entries) => job.platform_of_index(&entries).await?,
        Manifest::Image { config, layers } => {
            match job.platform_of_image(&top, config, layers).await? {
                Ok(chosen) => chosen,
                Err(skipped) => return Ok(skipped),
            }
        }
    };
    let tarballs = TarballStore::new(options.tarball_cache.clone(), options.shared.as_ref());
    let id = tarball_id(name, &top, &chosen);
    let check = |path: PathBuf| {
        let (top, chosen, job) = (&top, &chosen, &job);
        async move { job.checked(&path, top, chosen).await }
    };
    if let Some((file, cached)) = tarballs.find(id, out_dir, progress, check).await {
        return Ok(job.pulled_from(&top, &top_type, &chosen, file, cached));
    }
    let mut blobs = vec![top_blob];
    blobs.extend(chosen.blobs.iter().cloned());
    blobs.extend(job.fetch_blobs(&chosen).await?);
    let contents = LayoutContents {
        name: name.full.clone(),
        media_type: top_type.clone(),
        digest: top.digest.to_string(),
        size: top.bytes.len() as u64,
        blobs,
        docker: Some(DockerImage {
            config: chosen.config.digest.to_string(),
            layers: chosen.layers.iter().map(|l| l.digest.to_string()).collect(),
        }),
    };
    let (file, written) = job.write_layout(&contents).await?;
    let mut digests: Vec<String> = contents.blobs.into_iter().map(|(d, _)| d).collect();
    digests.dedup();
    let record = CachedTarball {
        size: written.size,
        sha256: written.sha256.clone(),
        platform_digest: chosen.platform_digest.clone(),
        platform: chosen.platform.clone(),
        blobs: digests.clone(),
    };
    tarballs.keep(id, &file, &record).await;
    Ok(Outcome::Pulled(
        PulledImage {
            reference: request.reference.clone(),
            digest: top.digest,
            media_type: top_type,
            platform_digest: chosen.platform_digest,
            platform: chosen.platform,
            tarball: out_dir.join(&request.tarball_name),
            tarball_size: written.size,
            tarball_sha256: written.sha256,
            blobs: digests,
        },
        file,
    ))
}

impl Job<'_> {
    /// The manifest the reference names (an index or an image), its media type and contents.
    async fn top_manifest(&self) -> Result<(FetchedManifest, String, Manifest), RegistryError> {
        let name = self.name;
        let shared = self.options.shared.as_ref();
        let reference = match self.options.pinned.get(&self.request.reference) {
            Some(digest) => digest,
            None => name.manifest_reference(),
        };
        let top = manifest(shared, self.client, name, reference).await?;
        let (top_type, parsed) = parse_manifest(
            &name.full,
            &top.digest,
            top.content_type.as_deref(),
            &top.bytes,
        )?;
        Ok((top, top_type, parsed))
    }

    /// An index: its entry for the target platform, whose manifest is fetched and stored.
    async fn platform_of_index(&self, entries: &[Descriptor]) -> Result<Chosen, RegistryError> {
        let (name, arch) = (self.name, self.options.arch);
        let entry =
            oci::select(entries, arch).ok_or_else(|| RegistryError::PlatformNotInIndex {
                image: name.full.clone(),
                platform: arch.platform(),
                available: oci::describe(entries),
            })?;
        let shared = self.options.shared.as_ref();
        let child = manifest(shared, self.client, name, &entry.digest).await?;
        check_size(name, entry, &child)?;
        let (_, parsed) = parse_manifest(
            &name.full,
            &child.digest,
            child.content_type.as_deref(),
            &child.bytes,
        )?;
        let Manifest::Image { config, layers } = parsed else {
            return Err(RegistryError::Manifest(
                cks_iso_reader::oci::ManifestError::BadManifest {
                    image: name.full.clone(),
                    digest: child.digest.to_string(),
                    reason: "an index entry for the target platform is itself an index".into(),
                },
            ));
        };
        within_limits(name, &config, &layers, self.client.limits())?;
        let stored = self.store.put_bytes(&child.digest, &child.bytes).await?;
        let platform = entry
            .platform
            .as_ref()
            .map_or_else(|| arch.platform(), ToString::to_string);
        Ok(Chosen {
            blobs: vec![(child.digest.to_string(), stored)],
            platform_digest: child.digest,
            platform,
            config,
            layers,
            config_fetched: false,
        })
    }

    /// A single image: its config says its platform; one for another platform is skipped
    /// (or refused, with strict platforms).
    async fn platform_of_image(
        &self,
        top: &FetchedManifest,
        config: Descriptor,
        layers: Vec<Descriptor>,
    ) -> Result<Result<Chosen, Outcome>, RegistryError> {
        let (name, arch) = (self.name, self.options.arch);
        within_limits(name, &config, &layers, self.client.limits())?;
        let path = self
            .store
            .blob(
                self.client,
                name,
                &config.digest,
                config.size,
                self.progress,
            )
            .await?;
        let bytes = read_small(&path, self.client.limits().get(LimitKind::Oci)).await?;
        let found = config_platform(&name.full, &config.digest, &bytes)?;
        if !oci::runs_on(arch, &found) {
            if self.options.strict_platforms {
                return Err(RegistryError::WrongPlatform {
                    image: name.full.clone(),
                    platform: arch.platform(),
                    found: found.to_string(),
                });
            }
            let skipped = SkippedImage {
                reference: self.request.reference.clone(),
                platform: found.to_string(),
            };
            let warning = PullWarning::SkippedPlatform {
                reference: name.full.clone(),
                platform: found.to_string(),
                target: arch.platform(),
            };
            return Ok(Err(Outcome::Skipped(skipped, warning)));
        }
        Ok(Ok(Chosen {
            blobs: vec![(config.digest.to_string(), path)],
            platform_digest: top.digest.clone(),
            platform: found.to_string(),
            config,
            layers,
            config_fetched: true,
        }))
    }

    /// What the tarball at `path` is, when it is byte for byte the one this pull writes for
    /// `top` and the chosen platform ([`super::tarball_check::TarballCheck`]); what is wrong otherwise.
    async fn checked(
        &self,
        path: &Path,
        top: &FetchedManifest,
        chosen: &Chosen,
    ) -> Result<CachedTarball, CachedTarballRefusal> {
        let (path, name) = (path.to_path_buf(), self.name.full.clone());
        let (digest, arch) = (top.digest.to_string(), self.options.arch);
        let limits = *self.client.limits();
        let facts = tokio::task::spawn_blocking(move || {
            super::tarball_check::check_tarball_file(&path, &name, &digest, arch, &limits)
        })
        .await??;
        if chosen.platform_digest != facts.platform_digest || facts.platform != chosen.platform {
            return Err(CachedTarballRefusal::OtherPlatform {
                digest: facts.platform_digest.to_string(),
                platform: facts.platform,
            });
        }
        Ok(CachedTarball {
            size: facts.size,
            sha256: facts.sha256,
            platform_digest: facts.platform_digest,
            platform: facts.platform,
            blobs: facts.blobs,
        })
    }

    /// The outcome of a tarball taken from a cache, as its record describes it.
    fn pulled_from(
        &self,
        top: &FetchedManifest,
        top_type: &str,
        chosen: &Chosen,
        file: tempfile::TempPath,
        cached: CachedTarball,
    ) -> Outcome {
        Outcome::Pulled(
            PulledImage {
                reference: self.request.reference.clone(),
                digest: top.digest.clone(),
                media_type: top_type.to_string(),
                // The tarball was checked to hold this platform's manifest.
                platform_digest: chosen.platform_digest.clone(),
                platform: cached.platform,
                tarball: self.out_dir.join(&self.request.tarball_name),
                tarball_size: cached.size,
                tarball_sha256: cached.sha256,
                blobs: cached.blobs,
            },
            file,
        )
    }

    /// The config (unless read already) and every layer, each once per build.
    async fn fetch_blobs(&self, chosen: &Chosen) -> Result<Vec<(String, PathBuf)>, RegistryError> {
        let progress = ImageProgress::new(
            self.progress,
            &self.request.reference,
            &chosen.config,
            &chosen.layers,
        );
        let progress = &progress;
        let fetches = std::iter::once(&chosen.config)
            .filter(|_| !chosen.config_fetched)
            .chain(&chosen.layers)
            .map(|d| async move {
                let path = self
                    .store
                    .blob(self.client, self.name, &d.digest, d.size, progress)
                    .await?;
                Ok::<_, RegistryError>((d.digest.to_string(), path))
            });
        futures_util::future::try_join_all(fetches).await
    }

    /// Writes the layout tarball to a temporary file beside its final name.
    async fn write_layout(
        &self,
        contents: &LayoutContents,
    ) -> Result<(tempfile::TempPath, WrittenTarball), RegistryError> {
        let tarball = self.out_dir.join(&self.request.tarball_name);
        let (dir, layout) = (self.out_dir.to_path_buf(), contents.clone());
        let written = tokio::task::spawn_blocking(move || write_tarball_temp(&dir, &layout))
            .await
            .map_err(|e| RegistryError::Io {
                path: tarball.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        // An error names the tarball being written, not its temporary name.
        written.map_err(|error| match error {
            RegistryError::Io { source, .. } => RegistryError::Io {
                path: tarball,
                source,
            },
            other => other,
        })
    }
}

/// What identifies the tarball of `name` at `top` for the chosen platform.
fn tarball_id<'a>(
    name: &'a RemoteName,
    top: &'a FetchedManifest,
    chosen: &'a Chosen,
) -> TarballId<'a> {
    TarballId {
        image: &name.full,
        digest: &top.digest,
        platform_digest: &chosen.platform_digest,
        platform: &chosen.platform,
    }
}

fn check_size(
    name: &RemoteName,
    entry: &Descriptor,
    m: &FetchedManifest,
) -> Result<(), RegistryError> {
    if m.bytes.len() as u64 != entry.size {
        return Err(RegistryError::BlobSize {
            image: name.full.clone(),
            blob: entry.digest.to_string(),
            expected: entry.size,
            actual: m.bytes.len() as u64,
        });
    }
    Ok(())
}

/// Refuses an image with more layers than the `layers` limit, or whose config the manifest says
/// is larger than the `oci` limit, before a byte of either is fetched.
fn within_limits(
    name: &RemoteName,
    config: &Descriptor,
    layers: &[Descriptor],
    limits: &Limits,
) -> Result<(), RegistryError> {
    let most = limits.get(LimitKind::Layers);
    if layers.len() as u64 > most {
        return Err(RegistryError::OverLimit {
            image: name.full.clone(),
            what: format!("its {} layers", layers.len()),
            kind: LimitKind::Layers,
            limit: format!("{most} layers"),
        });
    }
    let largest = limits.get(LimitKind::Oci);
    if config.size > largest {
        return Err(RegistryError::OverLimit {
            image: name.full.clone(),
            what: format!("its config {} of {} bytes", config.digest, config.size),
            kind: LimitKind::Oci,
            limit: show_size(largest),
        });
    }
    Ok(())
}

async fn read_small(path: &Path, limit: u64) -> Result<Vec<u8>, RegistryError> {
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(RegistryError::io(path))?;
    if meta.len() > limit {
        return Err(RegistryError::Manifest(
            cks_iso_reader::oci::ManifestError::BadManifest {
                image: String::new(),
                digest: path.display().to_string(),
                reason: format!("an image config larger than {limit} bytes"),
            },
        ));
    }
    tokio::fs::read(path).await.map_err(RegistryError::io(path))
}
