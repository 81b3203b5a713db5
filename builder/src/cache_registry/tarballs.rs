//! Finished image tarballs in the cache registry: a tarball is a deterministic function of its
//! format, the image's name, the digest served for it and the platform chosen (the local
//! tarball cache's rule), so a runner that resolved the same manifests takes the tarball another
//! runner wrote instead of fetching the blobs and writing it again.

use std::path::Path;

use super::{Finished, SharedCacheRegistry, tarball_tag};
use crate::progress::ProgressSink;
use crate::registry::{CachedTarball, TARBALL_FORMAT};

/// What identifies one tarball.
#[derive(Debug, Clone, Copy)]
pub struct TarballId<'a> {
    /// The image's full name.
    pub image: &'a str,
    /// The digest its reference resolved to.
    pub digest: &'a str,
    /// The digest of the platform's manifest.
    pub platform_digest: &'a str,
    /// The platform, e.g. `linux/amd64`.
    pub platform: &'a str,
}

impl TarballId<'_> {
    fn key(&self) -> String {
        super::tag::tarball_key(
            TARBALL_FORMAT,
            self.image,
            self.digest,
            self.platform_digest,
            self.platform,
        )
    }

    fn tag(&self) -> String {
        tarball_tag(&self.key())
    }
}

impl SharedCacheRegistry {
    /// The tarball of `id` from the cache registry, verified, under a temporary name in
    /// `out_dir`, with its record; `None` when it holds none (or a damaged or inconsistent one).
    pub async fn fetch_tarball(
        &self,
        id: TarballId<'_>,
        out_dir: &Path,
        progress: &dyn ProgressSink,
    ) -> Option<(tempfile::TempPath, CachedTarball)> {
        if !self.usable() {
            return None;
        }
        let file = tempfile::Builder::new()
            .prefix(".cks-tarball-")
            .tempfile_in(out_dir)
            .ok()?
            .into_temp_path();
        let hit = self
            .fetch_finished(Finished::Tarball, &id.tag(), &id.key(), &file, progress)
            .await?;
        let record: CachedTarball = serde_json::from_str(&hit.record).ok()?;
        let consistent = record.size == hit.size
            && record.sha256.trim_start_matches("sha256:") == hit.sha256
            && record.platform_digest == id.platform_digest
            && record.platform == id.platform;
        consistent.then_some((file, record))
    }

    /// Pushes the tarball of `id` written at `path`, with its record; failures become warnings.
    pub async fn push_tarball(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        self.push_finished(
            Finished::Tarball,
            &id.tag(),
            &id.key(),
            path,
            &record.sha256,
            record.size,
            text,
        )
        .await;
    }
}
