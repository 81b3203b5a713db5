//! Downloaded files in the cache registry: found by the tag of their canonical URL, taken only
//! when the entry's digest is the one the downloader knows on its own (the lock's pin or the
//! publisher's checksum: [`crate::fetch::Fetcher::expected_sha256`]), their bytes checked
//! against it as they stream in.

use super::artifact::{Descriptor, Entry, FILE_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::file_tag;
use crate::artifact::{ChecksumStatus, Kept, Landing, Note, Taken};

impl CacheRegistry {
    /// Streams the file held for `url` into `landing`, when its entry's digest is `sha256` (the
    /// one the build knows on its own), checking its size and sha256; `None` when the registry
    /// holds none for that digest, or only a damaged copy.
    pub(super) async fn take_file(
        &self,
        url: &str,
        sha256: &str,
        landing: Landing<'_>,
    ) -> Option<Taken> {
        if !self.usable() {
            return None;
        }
        let manifest = match self.client.manifest(&self.name, &file_tag(url)).await {
            Ok(manifest) => manifest,
            Err(error) => {
                self.read_failed(Kind::File, url, "", error);
                return None;
            }
        };
        let Some(entry) = Entry::parse(&manifest.bytes, FILE_ARTIFACT) else {
            self.counters.missed(Kind::File);
            return None;
        };
        let held = entry
            .content
            .digest
            .trim_start_matches("sha256:")
            .to_string();
        if entry.key != url || !held.eq_ignore_ascii_case(sha256) {
            self.counters.missed(Kind::File);
            return None;
        }
        let digest = &entry.content.digest;
        let (file, progress) = (landing.file, landing.progress);
        progress.on_start(url, Some(entry.content.size));
        let got = self
            .client
            .blob_to_file(&self.name, digest, entry.content.size, file, progress)
            .await;
        if let Err(error) = got {
            let _ = tokio::fs::remove_file(file).await;
            self.read_failed(Kind::File, url, digest, error);
            return None;
        }
        self.counters.hit(Kind::File, entry.content.size);
        Some(Taken {
            sha256: held,
            size: entry.content.size,
            source: format!("cache-registry:{}@{digest}", self.url),
            checkpoints: Vec::new(),
            note: Note::Checked(entry.checked.unwrap_or(ChecksumStatus::Computed)),
        })
    }

    /// Pushes the verified file `kept` for `url`, recording how it was checked; failures become
    /// warnings.
    pub(super) async fn keep_file(&self, url: &str, kept: Kept<'_>) {
        if !self.can_push() {
            return;
        }
        // A file the build could not take from here (nothing published to check it against)
        // is pushed only when the registry does not hold these bytes for it already.
        let digest = format!("sha256:{}", kept.sha256.trim_start_matches("sha256:"));
        if let Some(held) = self
            .entry(Kind::File, &file_tag(url), url, FILE_ARTIFACT)
            .await
            && held.key == url
            && held.content.digest == digest
        {
            return;
        }
        let checked = match kept.note {
            Note::Checked(status) => status,
            Note::Record(_) | Note::Nothing => ChecksumStatus::Computed,
        };
        let entry = Entry {
            kind: FILE_ARTIFACT.into(),
            key: url.to_string(),
            content: Descriptor {
                media_type: "application/octet-stream".into(),
                digest,
                size: kept.size,
                annotations: Default::default(),
            },
            checked: Some(checked),
            record: None,
        };
        match self
            .push_entry(&file_tag(url), &entry, Some(Body::File(kept.path)))
            .await
        {
            Ok(()) => self.counters.pushed(Kind::File),
            Err(failure) => self.push_failed(failure),
        }
    }
}
