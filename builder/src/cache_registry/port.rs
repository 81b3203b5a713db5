//! The cache registry as the artifact store's shared tier ([`SharedArtifacts`]): its files,
//! manifests, blobs, finished tarballs and ISOs.

use std::path::Path;

use super::finished::Finished;
use super::finished::FinishedUpload;
use super::repository::CacheRegistry;
use crate::artifact::{
    ArtifactKey, CachedTarball, ChecksumStatus, FetchedManifest, FinishedFile, PortFuture,
    RemoteName, SharedArtifacts, SharedHit, TarballId,
};
use crate::fetch::Checksum;
use crate::follow::Watermark;
use crate::progress::ProgressSink;

impl SharedArtifacts for CacheRegistry {
    fn fetch_file<'a>(
        &'a self,
        urls: &'a [String],
        checksum: &'a Checksum,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, Option<SharedHit>> {
        Box::pin(CacheRegistry::fetch_file(
            self, urls, checksum, file, progress,
        ))
    }

    fn push_file<'a>(
        &'a self,
        url: &'a str,
        path: &'a Path,
        sha256: &'a str,
        bytes: u64,
        checksum: &'a ChecksumStatus,
    ) -> PortFuture<'a, ()> {
        Box::pin(CacheRegistry::push_file(
            self, url, path, sha256, bytes, checksum,
        ))
    }

    fn manifest<'a>(
        &'a self,
        name: &'a RemoteName,
        digest: &'a str,
    ) -> PortFuture<'a, Option<FetchedManifest>> {
        Box::pin(self.cached_manifest(name, digest))
    }

    fn push_manifest<'a>(
        &'a self,
        name: &'a RemoteName,
        fetched: &'a FetchedManifest,
        unless_held: bool,
    ) -> PortFuture<'a, ()> {
        Box::pin(self.push_manifest_entry(name, fetched, unless_held))
    }

    fn blob<'a>(
        &'a self,
        image: &'a str,
        digest: &'a str,
        size: u64,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, bool> {
        Box::pin(self.fetch_blob(image, digest, size, file, progress))
    }

    fn push_blob<'a>(&'a self, digest: &'a str, size: u64, path: &'a Path) -> PortFuture<'a, ()> {
        Box::pin(self.push_image_blob(digest, size, path))
    }

    fn tarball<'a>(
        &'a self,
        id: TarballId<'a>,
        out_dir: &'a Path,
        progress: &'a dyn ProgressSink,
    ) -> PortFuture<'a, Option<tempfile::TempPath>> {
        Box::pin(self.fetch_tarball(id, out_dir, progress))
    }

    fn push_tarball<'a>(
        &'a self,
        id: TarballId<'a>,
        path: &'a Path,
        record: &'a CachedTarball,
    ) -> PortFuture<'a, ()> {
        Box::pin(CacheRegistry::push_tarball(self, id, path, record))
    }

    fn iso<'a>(
        &'a self,
        key: &'a ArtifactKey,
        file: &'a Path,
        progress: &'a dyn ProgressSink,
        mark: &'a Watermark,
    ) -> PortFuture<'a, Option<FinishedFile>> {
        Box::pin(async move {
            let hit = match key.tag() {
                Some(tag) => {
                    let record = key.record_key();
                    self.fetch_finished(Finished::Iso, &tag, &record, file, progress, Some(mark))
                        .await
                }
                None => None,
            };
            if hit.is_none() {
                mark.ended(false);
            }
            let hit = hit?;
            Some(FinishedFile {
                sha256: hit.sha256,
                size: hit.size,
                checkpoints: hit.checkpoints,
            })
        })
    }

    fn push_iso<'a>(
        &'a self,
        key: &'a ArtifactKey,
        path: &'a Path,
        file: FinishedFile,
        record: String,
    ) -> PortFuture<'a, ()> {
        Box::pin(async move {
            let Some(tag) = key.tag() else {
                return;
            };
            let upload = FinishedUpload {
                path,
                sha256: &file.sha256,
                size: file.size,
                record,
            };
            self.push_finished(Finished::Iso, &tag, &key.record_key(), upload)
                .await;
        })
    }

    fn refused_tarball(&self, image: &str, reason: String) {
        self.refused(Finished::Tarball, image, reason);
    }

    fn refused_iso(&self, key: &ArtifactKey, reason: String) {
        self.refused(Finished::Iso, &format!("ISO {}", key.record_key()), reason);
    }
}
