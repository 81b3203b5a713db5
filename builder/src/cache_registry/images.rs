//! Image manifests and blobs in the cache registry: blobs by digest, as the upstream registry
//! serves them; manifests as artifacts found by the tag of `repository@digest` (a tag is never
//! resolved here: [`crate::registry::manifest`]). With the finished tarballs, they are the
//! puller's part of the artifact store's port ([`crate::artifact::SharedArtifacts`]).

use std::path::Path;

use super::artifact::{Descriptor, Entry, MANIFEST_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::ArtifactKey;
use crate::progress::{NoProgress, ProgressSink};
use crate::registry::{FetchedManifest, RemoteName};

/// The largest manifest taken from the cache (as from any registry).
const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

impl CacheRegistry {
    /// Whether the cache holds an entry for the manifest `key` (its tag answers), so a
    /// manifest resolved upstream by tag is not pushed again.
    async fn holds_manifest(&self, key: &ArtifactKey) -> bool {
        if !self.usable() {
            return true;
        }
        let tag = key.tag().unwrap_or_default();
        self.client.manifest(&self.name, &tag).await.is_ok()
    }

    pub(super) async fn cached_manifest(
        &self,
        name: &RemoteName,
        reference: &str,
    ) -> Option<FetchedManifest> {
        let key = manifest_key(name, reference);
        let tag = key.tag().unwrap_or_default();
        if !self.usable() {
            return None;
        }
        let artifact = match self.client.manifest(&self.name, &tag).await {
            Ok(artifact) => artifact,
            Err(error) => {
                self.read_failed(Kind::Manifest, &name.full, "", error);
                return None;
            }
        };
        let entry = Entry::parse(&artifact.bytes, MANIFEST_ARTIFACT)?;
        let digest = entry.content.digest.clone();
        let pinned_elsewhere = reference.starts_with("sha256:") && reference != digest;
        if entry.key != key.record_key()
            || pinned_elsewhere
            || entry.content.size > MAX_MANIFEST_BYTES
        {
            self.counters.missed(Kind::Manifest);
            return None;
        }
        let dir = tempfile::tempdir().ok()?;
        let file = dir.path().join("manifest");
        if let Err(error) = self
            .client
            .blob_to_file(&self.name, &digest, entry.content.size, &file, &NoProgress)
            .await
        {
            self.read_failed(Kind::Manifest, &name.full, &digest, error);
            return None;
        }
        let bytes = tokio::fs::read(&file).await.ok()?;
        self.counters.hit(Kind::Manifest, entry.content.size);
        Some(FetchedManifest {
            bytes,
            digest: cks_pinning::digest::Digest::parse(&digest).ok()?,
            content_type: Some(entry.content.media_type),
        })
    }

    pub(super) async fn push_manifest_entry(
        &self,
        name: &RemoteName,
        fetched: &FetchedManifest,
        unless_held: bool,
    ) {
        let key = manifest_key(name, &fetched.digest);
        if !self.can_push() || (unless_held && self.holds_manifest(&key).await) {
            return;
        }
        let tag = &key.tag().unwrap_or_default();
        let Some(media_type) = fetched.content_type.clone() else {
            return;
        };
        let entry = Entry {
            kind: MANIFEST_ARTIFACT.into(),
            key: key.record_key(),
            content: Descriptor {
                media_type,
                digest: fetched.digest.to_string(),
                size: fetched.bytes.len() as u64,
                annotations: Default::default(),
            },
            checked: None,
            record: None,
        };
        match self
            .push_entry(tag, &entry, Some(Body::Bytes(&fetched.bytes)))
            .await
        {
            Ok(()) => self.counters.pushed(Kind::Manifest),
            Err(failure) => self.push_failed(failure),
        }
    }

    /// Streams blob `digest` of `size` bytes of `image` from the cache into `file`, checking
    /// size and digest; whether it did.
    pub async fn fetch_blob(
        &self,
        image: &str,
        digest: &str,
        size: u64,
        file: &Path,
        progress: &dyn ProgressSink,
    ) -> bool {
        if !self.usable() {
            return false;
        }
        match self
            .client
            .blob_to_file(&self.name, digest, size, file, progress)
            .await
        {
            Ok(()) => {
                self.counters.hit(Kind::Blob, size);
                true
            }
            Err(error) => {
                let _ = tokio::fs::remove_file(file).await;
                self.read_failed(Kind::Blob, image, digest, error);
                false
            }
        }
    }

    /// Pushes the verified blob at `path`; failures become warnings.
    pub async fn push_image_blob(&self, digest: &str, size: u64, path: &Path) {
        if !self.can_push() {
            return;
        }
        let replace = self.was_damaged(digest);
        match self
            .push_blob(digest, size, Body::File(path), replace)
            .await
        {
            Ok(()) => self.counters.pushed(Kind::Blob),
            Err(failure) => self.push_failed(failure),
        }
    }
}

/// The store's one key of the manifest `reference` (a tag or a digest) of `name`'s repository.
fn manifest_key(name: &RemoteName, reference: &str) -> ArtifactKey {
    ArtifactKey::Manifest {
        repository: format!("{}/{}", name.registry, name.repository),
        reference: reference.to_string(),
    }
}
