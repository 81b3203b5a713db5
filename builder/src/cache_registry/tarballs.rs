//! Finished image tarballs in the cache registry: a tarball is a deterministic function of its
//! format, the image's name, the digest served for it and the platform chosen (the local
//! tarball cache's rule), so a runner that resolved the same manifests takes the tarball another
//! runner wrote instead of fetching the blobs and writing it again.

use std::path::Path;

use super::finished::Finished;
use super::finished::FinishedUpload;
use super::repository::CacheRegistry;
use crate::progress::ProgressSink;
use crate::registry::{CachedTarball, TarballId};

/// The tag and the recorded key of the tarball of `id`.
fn tag_and_key(id: TarballId<'_>) -> (String, String) {
    let key = id.key();
    (key.tag().unwrap_or_default(), key.record_key())
}

impl CacheRegistry {
    /// The tarball of `id` from the cache registry, hashed against the digest it is held
    /// under as it streams in, under a temporary name in `out_dir`; `None` when it holds none
    /// (or a damaged one). Its record is not taken: the caller checks the tarball itself.
    pub async fn fetch_tarball(
        &self,
        id: TarballId<'_>,
        out_dir: &Path,
        progress: &dyn ProgressSink,
    ) -> Option<tempfile::TempPath> {
        if !self.usable() {
            return None;
        }
        let file = tempfile::Builder::new()
            .prefix(".cks-tarball-")
            .tempfile_in(out_dir)
            .ok()?
            .into_temp_path();
        let (tag, key) = tag_and_key(id);
        self.fetch_finished(Finished::Tarball, &tag, &key, &file, progress, None)
            .await?;
        Some(file)
    }

    /// Pushes the tarball of `id` written at `path`, with its record; failures become warnings.
    pub async fn push_tarball(&self, id: TarballId<'_>, path: &Path, record: &CachedTarball) {
        let Ok(text) = serde_json::to_string(record) else {
            return;
        };
        let (tag, key) = tag_and_key(id);
        let upload = FinishedUpload {
            path,
            sha256: &record.sha256,
            size: record.size,
            record: text,
        };
        self.push_finished(Finished::Tarball, &tag, &key, upload)
            .await;
    }
}
