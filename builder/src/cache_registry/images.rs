//! Image manifests and blobs in the cache registry: blobs by digest, as the upstream registry
//! serves them; manifests as artifacts found by the tag of `repository@digest` (a tag is never
//! resolved here: [`crate::registry::manifest`]). With the finished tarballs, they are the
//! puller's part of the artifact store's port ([`crate::artifact::SharedArtifacts`]).

use std::path::Path;

use super::artifact::{Descriptor, Entry, MANIFEST_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::{ArtifactKey, FetchedManifest, Landing, Note, Taken};
use crate::progress::NoProgress;

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

    /// The manifest `key` (by digest), its bytes hashed against that digest as they stream in;
    /// `None` when the registry holds none, or only a damaged copy.
    pub(super) async fn take_manifest(&self, key: &ArtifactKey) -> Option<FetchedManifest> {
        let ArtifactKey::Manifest { reference, .. } = key else {
            return None;
        };
        let tag = key.tag()?;
        let about = key.record_key();
        if !self.usable() {
            return None;
        }
        let artifact = match self.client.manifest(&self.name, &tag).await {
            Ok(artifact) => artifact,
            Err(error) => {
                self.read_failed(Kind::Manifest, &about, "", error);
                return None;
            }
        };
        let entry = Entry::parse(&artifact.bytes, MANIFEST_ARTIFACT)?;
        let digest = entry.content.digest.clone();
        let pinned_elsewhere = reference.starts_with("sha256:") && *reference != digest;
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
            self.read_failed(Kind::Manifest, &about, &digest, error);
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

    /// Pushes the manifest `fetched` (verified against its digest) as `key`; with
    /// `unless_held`, only when the registry does not hold it already. Failures become warnings.
    pub(super) async fn keep_manifest_entry(
        &self,
        key: &ArtifactKey,
        fetched: &FetchedManifest,
        unless_held: bool,
    ) {
        let Some(tag) = &key.tag() else {
            return;
        };
        if !self.can_push() || (unless_held && self.holds_manifest(key).await) {
            return;
        }
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

    /// Streams blob `digest` of `size` bytes into `landing`, checking size and digest; `None`
    /// when the registry holds none, or only a damaged copy.
    pub(super) async fn take_blob(
        &self,
        digest: &str,
        size: u64,
        landing: Landing<'_>,
    ) -> Option<Taken> {
        if !self.usable() {
            return None;
        }
        let file = landing.file;
        match self
            .client
            .blob_to_file(&self.name, digest, size, file, landing.progress)
            .await
        {
            Ok(()) => {
                self.counters.hit(Kind::Blob, size);
                Some(Taken {
                    sha256: digest.trim_start_matches("sha256:").to_string(),
                    size,
                    source: format!("cache-registry:{}@{digest}", self.url),
                    checkpoints: Vec::new(),
                    note: Note::Nothing,
                })
            }
            Err(error) => {
                let _ = tokio::fs::remove_file(file).await;
                self.read_failed(Kind::Blob, landing.about, digest, error);
                None
            }
        }
    }

    /// Pushes the verified blob at `path`; failures become warnings.
    pub(super) async fn keep_blob(&self, digest: &str, size: u64, path: &Path) {
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
