//! The cache registry as the artifact store's shared tier ([`SharedArtifacts`]): each key's
//! kind to the entries that hold it (files and finished tarballs and ISOs as artifacts under
//! their tag, blobs by digest, manifests as artifacts of `repository@digest`).

use super::finished::Finished;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::{
    ArtifactKey, FetchedManifest, Kept, Landing, PortFuture, SharedArtifacts, Taken,
};

impl SharedArtifacts for CacheRegistry {
    fn take<'a>(
        &'a self,
        key: &'a ArtifactKey,
        landing: Landing<'a>,
    ) -> PortFuture<'a, Option<Taken>> {
        Box::pin(async move {
            let taken = match key {
                ArtifactKey::File { url, sha256 } => self.take_file(url, sha256, landing).await,
                ArtifactKey::Blob { digest, size } => self.take_blob(digest, *size, landing).await,
                ArtifactKey::Tarball { .. } => {
                    self.take_finished(Finished::Tarball, key, landing).await
                }
                ArtifactKey::Iso { .. } => self.take_finished(Finished::Iso, key, landing).await,
                // A manifest is taken into memory ([`SharedArtifacts::manifest`]).
                ArtifactKey::Manifest { .. } => None,
            };
            if taken.is_none()
                && let Some(mark) = landing.mark
            {
                mark.ended(false);
            }
            taken
        })
    }

    fn keep<'a>(&'a self, key: &'a ArtifactKey, kept: Kept<'a>) -> PortFuture<'a, ()> {
        Box::pin(async move {
            match key {
                ArtifactKey::File { url, .. } => self.keep_file(url, kept).await,
                ArtifactKey::Blob { digest, size } => {
                    self.keep_blob(digest, *size, kept.path).await
                }
                ArtifactKey::Tarball { .. } => {
                    self.keep_finished(Finished::Tarball, key, kept).await
                }
                ArtifactKey::Iso { .. } => self.keep_finished(Finished::Iso, key, kept).await,
                // A manifest is kept from memory ([`SharedArtifacts::keep_manifest`]).
                ArtifactKey::Manifest { .. } => {}
            }
        })
    }

    fn manifest<'a>(&'a self, key: &'a ArtifactKey) -> PortFuture<'a, Option<FetchedManifest>> {
        Box::pin(self.take_manifest(key))
    }

    fn keep_manifest<'a>(
        &'a self,
        key: &'a ArtifactKey,
        fetched: &'a FetchedManifest,
        unless_held: bool,
    ) -> PortFuture<'a, ()> {
        Box::pin(self.keep_manifest_entry(key, fetched, unless_held))
    }

    fn refused(&self, key: &ArtifactKey, about: &str, reason: String) {
        self.refused_entry(Kind::of(key), about, reason);
    }
}
