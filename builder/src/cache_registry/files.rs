//! Downloaded files in the cache registry: found by the tag of their canonical URL, taken only
//! when the entry's digest is the one the downloader knows on its own (the lock's pin or the
//! publisher's checksum: [`crate::fetch::Fetcher::expected_sha256`]), their bytes checked
//! against it as they stream in.

use std::path::Path;

use super::artifact::{Descriptor, Entry, FILE_ARTIFACT};
use super::push::Body;
use super::repository::CacheRegistry;
use super::stats::Kind;
use crate::artifact::file_tag;
use crate::fetch::{Checksum, ChecksumStatus, SharedHit};
use crate::progress::ProgressSink;

impl CacheRegistry {
    /// Streams the first of `urls` the registry holds (and whose record satisfies `checksum`:
    /// a pinned digest must match, a published checksum must have been verified) into `file`,
    /// checking its size and sha256; `None` when it holds none, or only a damaged copy.
    pub async fn fetch_file(
        &self,
        urls: &[String],
        checksum: &Checksum,
        file: &Path,
        progress: &dyn ProgressSink,
    ) -> Option<SharedHit> {
        for url in urls {
            if !self.usable() {
                return None;
            }
            let manifest = match self.client.manifest(&self.name, &file_tag(url)).await {
                Ok(manifest) => manifest,
                Err(error) => {
                    self.read_failed(Kind::File, url, "", error);
                    continue;
                }
            };
            let Some(entry) = Entry::parse(&manifest.bytes, FILE_ARTIFACT) else {
                self.counters.missed(Kind::File);
                continue;
            };
            let sha256 = entry
                .content
                .digest
                .trim_start_matches("sha256:")
                .to_string();
            let status = entry.checked.clone().unwrap_or(ChecksumStatus::Computed);
            let acceptable =
                entry.key == *url && super::claims::accepts(checksum, &sha256, Some(&status));
            if !acceptable {
                self.counters.missed(Kind::File);
                continue;
            }
            let digest = &entry.content.digest;
            progress.on_start(url, Some(entry.content.size));
            let got = self
                .client
                .blob_to_file(&self.name, digest, entry.content.size, file, progress)
                .await;
            if let Err(error) = got {
                self.read_failed(Kind::File, url, digest, error);
                continue;
            }
            self.counters.hit(Kind::File, entry.content.size);
            return Some(SharedHit {
                url: url.clone(),
                url_used: format!("cache-registry:{}@{digest}", self.url),
                sha256,
                bytes: entry.content.size,
                checksum: status,
            });
        }
        None
    }

    /// Pushes the verified file at `path` (`sha256`, `bytes`) for `url`, recording how it was
    /// checked; failures become warnings.
    pub async fn push_file(
        &self,
        url: &str,
        path: &Path,
        sha256: &str,
        bytes: u64,
        checksum: &ChecksumStatus,
    ) {
        if !self.can_push() {
            return;
        }
        // A file the build could not take from here (nothing published to check it against)
        // is pushed only when the registry does not hold these bytes for it already.
        let digest = format!("sha256:{sha256}");
        if let Some(held) = self
            .entry(Kind::File, &file_tag(url), url, FILE_ARTIFACT)
            .await
            && held.key == url
            && held.content.digest == digest
        {
            return;
        }
        let entry = Entry {
            kind: FILE_ARTIFACT.into(),
            key: url.to_string(),
            content: Descriptor {
                media_type: "application/octet-stream".into(),
                digest: format!("sha256:{sha256}"),
                size: bytes,
                annotations: Default::default(),
            },
            checked: Some(checksum.clone()),
            record: None,
        };
        match self
            .push_entry(&file_tag(url), &entry, Some(Body::File(path)))
            .await
        {
            Ok(()) => {
                self.counters.pushed(Kind::File);
            }
            Err(failure) => self.push_failed(failure),
        }
    }
}
