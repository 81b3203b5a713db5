//! Finished image tarballs and ISOs in the cache registry: artifacts like the files (an empty
//! config, one layer whose digest is the sha256 of the finished file), found by a tag derived
//! from everything that determines their bytes, each carrying a small record (JSON) of what the
//! build reports about it. Their bytes are checked against the digest as they stream in.

use std::path::Path;

use super::artifact::{Descriptor, Entry, ISO_ARTIFACT, TARBALL_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::follow::Watermark;
use crate::progress::ProgressSink;

/// Which finished thing an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finished {
    /// An image tarball.
    Tarball,
    /// An ISO.
    Iso,
}

impl Finished {
    fn artifact_type(self) -> &'static str {
        match self {
            Finished::Tarball => TARBALL_ARTIFACT,
            Finished::Iso => ISO_ARTIFACT,
        }
    }

    fn media_type(self) -> &'static str {
        match self {
            Finished::Tarball => "application/x-tar",
            Finished::Iso => "application/x-iso9660-image",
        }
    }

    fn kind(self) -> Kind {
        match self {
            Finished::Tarball => Kind::Tarball,
            Finished::Iso => Kind::Iso,
        }
    }
}

/// A finished entry the cache registry served, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedHit {
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub size: u64,
    /// The record pushed with it.
    pub record: String,
    /// The sha256's checkpoints noted as it streamed in.
    pub checkpoints: Vec<crate::digest::chain::Checkpoint>,
}

/// A finished file on disk to push: where it is, its sha256 and size, and its record.
#[derive(Debug, Clone)]
pub struct FinishedUpload<'a> {
    /// The file.
    pub path: &'a Path,
    /// Its sha256, hex (a `sha256:` prefix is allowed).
    pub sha256: &'a str,
    /// Its size.
    pub size: u64,
    /// The record (JSON) pushed with it.
    pub record: String,
}

impl CacheRegistry {
    /// Records that the finished entry this build took for `what` (named `entry`) failed the
    /// check of a written one (`reason`): a miss and one warning; the build makes it and
    /// pushes it again.
    pub fn refused(&self, what: Finished, entry: &str, reason: String) {
        self.counters.missed(what.kind());
        self.counters.unhit(what.kind());
        self.warn(super::warning::CacheWarning::Refused {
            registry: self.url.clone(),
            entry: entry.to_string(),
            reason,
        });
    }

    /// Streams the finished entry tagged `tag`, stored for `key`, into `file`, checking its size
    /// and sha256 (publishing the bytes landed in `mark`, where given); `None` when the registry
    /// holds none, or only a damaged copy (then a warning).
    pub async fn fetch_finished(
        &self,
        what: Finished,
        tag: &str,
        key: &str,
        file: &Path,
        progress: &dyn ProgressSink,
        mark: Option<&Watermark>,
    ) -> Option<FinishedHit> {
        if !self.usable() {
            return None;
        }
        let kind = what.kind();
        let manifest = match self.client.manifest(&self.name, tag).await {
            Ok(manifest) => manifest,
            Err(error) => {
                self.read_failed(kind, key, "", error);
                return None;
            }
        };
        let entry = match Entry::parse(&manifest.bytes, what.artifact_type()) {
            Some(entry) if entry.key == key && entry.record.is_some() => entry,
            _ => {
                self.counters.missed(kind);
                return None;
            }
        };
        let digest = &entry.content.digest;
        progress.on_start(digest, Some(entry.content.size));
        let got = self
            .client
            .blob_to_file_noted(&self.name, digest, entry.content.size, file, progress, mark)
            .await;
        progress.on_done(digest);
        let checkpoints = match got {
            Ok(checkpoints) => checkpoints,
            Err(error) => {
                let _ = tokio::fs::remove_file(file).await;
                self.read_failed(kind, key, digest, error);
                return None;
            }
        };
        self.counters.hit(kind, entry.content.size);
        Some(FinishedHit {
            sha256: digest.trim_start_matches("sha256:").to_string(),
            size: entry.content.size,
            record: entry.record.unwrap_or_default(),
            checkpoints,
        })
    }

    /// Pushes the finished file `upload` under `tag` for `key`; failures become warnings.
    pub async fn push_finished(
        &self,
        what: Finished,
        tag: &str,
        key: &str,
        upload: FinishedUpload<'_>,
    ) {
        if !self.can_push() {
            return;
        }
        let FinishedUpload {
            path,
            sha256,
            size,
            record,
        } = upload;
        let entry = Entry {
            kind: what.artifact_type().into(),
            key: key.to_string(),
            content: Descriptor {
                media_type: what.media_type().into(),
                digest: format!("sha256:{}", sha256.trim_start_matches("sha256:")),
                size,
                annotations: Default::default(),
            },
            checked: None,
            record: Some(record),
        };
        match self.push_entry(tag, &entry, Some(Body::File(path))).await {
            Ok(()) => self.counters.pushed(what.kind()),
            Err(failure) => self.push_failed(failure),
        }
    }
}
