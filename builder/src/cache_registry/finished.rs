//! Finished image tarballs and ISOs in the cache registry: artifacts like the files (an empty
//! config, one layer whose digest is the sha256 of the finished file), found by a tag derived
//! from everything that determines their bytes, each carrying a small record (JSON) of what the
//! build reports about it. Their bytes are checked against the digest as they stream in.

use super::artifact::{Descriptor, Entry, ISO_ARTIFACT, TARBALL_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::{ArtifactKey, Kept, Landing, Note, Taken};

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

impl CacheRegistry {
    /// Records that the entry of `kind` this build took (named `entry`) failed the check of a
    /// written one (`reason`): a miss and one warning; the build makes it and pushes it again.
    pub(super) fn refused_entry(&self, kind: Kind, entry: &str, reason: String) {
        self.counters.missed(kind);
        self.counters.unhit(kind);
        self.warn(super::warning::CacheWarning::Refused {
            registry: self.url.clone(),
            entry: entry.to_string(),
            reason,
        });
    }

    /// Streams the finished entry `key` of `what` into `landing`, checking its size and sha256
    /// (publishing the bytes landed in its mark, where given); `None` when the registry holds
    /// none, or only a damaged copy (then a warning).
    pub(super) async fn take_finished(
        &self,
        what: Finished,
        key: &ArtifactKey,
        landing: Landing<'_>,
    ) -> Option<Taken> {
        let tag = key.tag()?;
        if !self.usable() {
            return None;
        }
        let kind = what.kind();
        let record_key = key.record_key();
        let manifest = match self.client.manifest(&self.name, &tag).await {
            Ok(manifest) => manifest,
            Err(error) => {
                self.read_failed(kind, &record_key, "", error);
                return None;
            }
        };
        let entry = match Entry::parse(&manifest.bytes, what.artifact_type()) {
            Some(entry) if entry.key == record_key && entry.record.is_some() => entry,
            _ => {
                self.counters.missed(kind);
                return None;
            }
        };
        let digest = &entry.content.digest;
        let (file, progress) = (landing.file, landing.progress);
        progress.on_start(digest, Some(entry.content.size));
        let got = self
            .client
            .blob_to_file_noted(
                &self.name,
                digest,
                entry.content.size,
                file,
                progress,
                landing.mark,
            )
            .await;
        progress.on_done(digest);
        let checkpoints = match got {
            Ok(checkpoints) => checkpoints,
            Err(error) => {
                let _ = tokio::fs::remove_file(file).await;
                self.read_failed(kind, &record_key, digest, error);
                return None;
            }
        };
        self.counters.hit(kind, entry.content.size);
        Some(Taken {
            sha256: digest.trim_start_matches("sha256:").to_string(),
            size: entry.content.size,
            source: format!("cache-registry:{}@{digest}", self.url),
            checkpoints,
            note: Note::Record(entry.record.unwrap_or_default()),
        })
    }

    /// Pushes the finished file `kept` of `what` as `key`, with its record; failures become
    /// warnings.
    pub(super) async fn keep_finished(&self, what: Finished, key: &ArtifactKey, kept: Kept<'_>) {
        let (Some(tag), true) = (key.tag(), self.can_push()) else {
            return;
        };
        let record = match kept.note {
            Note::Record(record) => record,
            Note::Checked(_) | Note::Nothing => String::new(),
        };
        let entry = Entry {
            kind: what.artifact_type().into(),
            key: key.record_key(),
            content: Descriptor {
                media_type: what.media_type().into(),
                digest: format!("sha256:{}", kept.sha256.trim_start_matches("sha256:")),
                size: kept.size,
                annotations: Default::default(),
            },
            checked: None,
            record: Some(record),
        };
        match self
            .push_entry(&tag, &entry, Some(Body::File(kept.path)))
            .await
        {
            Ok(()) => self.counters.pushed(what.kind()),
            Err(failure) => self.push_failed(failure),
        }
    }
}
