//! The artifact store as the downloader sees it, its tiers ([`crate::artifact::Layers`]) asked
//! in one place: the content cache directory, then the shared tier (the cache registry of many
//! CI runners, through the store's port, [`crate::artifact::SharedArtifacts`]), before upstream;
//! a file fetched upstream is kept in both, and a hit that fails its check is refused by its
//! tier, as every kind's is.
//!
//! The tier is a cache, never a source of truth: a file is taken from it only by the digest
//! this build knows independently of it (the lock's pin, or the checksum the publisher
//! publishes, asked of upstream: a small request), never by the digest an entry claims for
//! itself. A file with neither (a manifest without a published checksum) is not taken from it.

use std::path::Path;

use super::cache::CacheEntry;
use super::download::Origin;
use super::error::FetchError;
use super::fetcher::Fetcher;
use super::spec::FileSpec;
use crate::artifact::{ArtifactKey, ChecksumStatus, Kept, Landing, Layer, Note};
use cks_pinning::sources::Checksum;

/// The digest a file must have, known independently of any cache: where it was learnt and the
/// URL of the plan it applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The URL of the plan (a candidate of the spec) the digest is for.
    pub url: String,
    /// The sha256, lower-case hex.
    pub sha256: String,
    /// How it is known: the lock's pin or the publisher's checksum file.
    pub status: ChecksumStatus,
}

impl Fetcher {
    /// The digest `spec` must have, known without any shared cache: the lock's pin, the digest
    /// this host's content cache verified against the publisher when it kept the file, or the
    /// checksum the publisher publishes for the first candidate that has one (a small request
    /// upstream); `None` for a file with no published checksum. A checksum file that fails to
    /// come is an error: the download would fail the same way.
    pub async fn expected_sha256(&self, spec: &FileSpec) -> Result<Option<Expected>, FetchError> {
        if let Checksum::Pinned { sha256 } = &spec.checksum {
            let Some(url) = spec.urls.first() else {
                return Ok(None);
            };
            return Ok(Some(Expected {
                url: url.clone(),
                sha256: sha256.to_ascii_lowercase(),
                status: ChecksumStatus::Verified {
                    source: "pinned".to_string(),
                },
            }));
        }
        // This host's content cache keeps what it verified against the publisher itself.
        if !matches!(spec.checksum, Checksum::None)
            && let Some(cache) = self.store.local()
            && let Some(entry) = cache.lookup(&spec.urls, &spec.checksum)
            && matches!(entry.checksum, ChecksumStatus::Verified { .. })
        {
            return Ok(Some(Expected {
                url: entry.url,
                sha256: entry.sha256,
                status: entry.checksum,
            }));
        }
        let mut last = None;
        for url in &spec.urls {
            match self.expected_digest(spec, url).await {
                Ok(Some((sha256, source))) => {
                    return Ok(Some(Expected {
                        url: url.clone(),
                        sha256,
                        status: ChecksumStatus::Verified { source },
                    }));
                }
                Ok(None) => return Ok(None),
                Err(error @ FetchError::ChecksumFile { .. }) => last = Some(error),
                Err(error) => return Err(error),
            }
        }
        last.map_or(Ok(None), Err)
    }

    /// `spec` from the store, written to a temporary file in `dir`, with where it came from:
    /// the content cache (its pinned or verified entry, hashed again), else the shared tier
    /// ([`Self::take_from_shared_tier`], then kept in the content cache); `None` when neither
    /// holds it. An error names the URL it is for.
    pub(super) async fn take_from_store(
        &self,
        spec: &FileSpec,
        dir: &Path,
        dest_name: &str,
    ) -> Result<Option<(super::http::Downloaded, Origin)>, (String, FetchError)> {
        if let Some(cache) = self.store.local()
            && let Some(entry) = cache.lookup(&spec.urls, &spec.checksum)
        {
            let got = cache
                .restore(&entry, dir, dest_name, &*self.progress, &spec.name)
                .await
                .map_err(|e| (entry.url.clone(), e))?;
            if got.sha256 == entry.sha256 {
                return Ok(Some((got, cached(entry))));
            }
            let reason = "it does not hash to the digest it was kept with";
            self.store.refuse(
                Layer::Local,
                &entry.key(),
                &entry.url,
                got.temp.path(),
                reason,
            );
        }
        let Some((got, entry)) = self.take_from_shared_tier(spec, dir, dest_name).await else {
            return Ok(None);
        };
        if let Some(cache) = self.store.local() {
            let _ = cache.insert(got.temp.path(), &entry).await;
        }
        Ok(Some((got, cached(entry))))
    }

    /// Keeps the file `got` fetched from `url` (through `used`) and checked as `checksum` in
    /// the content cache (an error if it cannot) and the shared tier (its failures are its own
    /// warnings).
    pub(super) async fn keep_in_store(
        &self,
        url: &str,
        used: &str,
        got: &super::http::Downloaded,
        checksum: &ChecksumStatus,
    ) -> Result<(), FetchError> {
        if let Some(cache) = self.store.local() {
            let entry = CacheEntry {
                url: url.to_string(),
                url_used: used.to_string(),
                sha256: got.sha256.clone(),
                bytes: got.bytes,
                checksum: checksum.clone(),
            };
            cache.insert(got.temp.path(), &entry).await?;
        }
        let key = ArtifactKey::File {
            url: url.to_string(),
            sha256: got.sha256.clone(),
        };
        let kept = Kept {
            path: got.temp.path(),
            sha256: &got.sha256,
            size: got.bytes,
            note: Note::Checked(checksum.clone()),
        };
        self.store.keep_shared(&key, kept).await;
        Ok(())
    }

    /// `spec` from the shared tier, written to a temporary file in `dir`, when the tier holds
    /// it with the digest [`Self::expected_sha256`] gives; `None` otherwise (the download then
    /// goes upstream, which reports any error of its own).
    async fn take_from_shared_tier(
        &self,
        spec: &FileSpec,
        dir: &Path,
        dest_name: &str,
    ) -> Option<(super::http::Downloaded, CacheEntry)> {
        if !self.store.has_shared() {
            return None;
        }
        let expected = self.expected_sha256(spec).await.ok()??;
        let urls = match &spec.checksum {
            // A lock's pin holds for every candidate.
            Checksum::Pinned { .. } => spec.urls.clone(),
            _ => vec![expected.url.clone()],
        };
        let temp = super::http::temp_in(dir, dest_name).ok()?;
        for url in urls {
            let key = ArtifactKey::File {
                url: url.clone(),
                sha256: expected.sha256.clone(),
            };
            let landing = Landing {
                file: temp.path(),
                about: &url,
                progress: &*self.progress,
                mark: None,
            };
            let Some(taken) = self.store.take_shared(&key, landing).await else {
                continue;
            };
            if !taken.sha256.eq_ignore_ascii_case(&expected.sha256) {
                let reason = format!("it holds sha256 {}", taken.sha256);
                self.store
                    .refuse(Layer::Shared, &key, &url, temp.path(), &reason);
                continue;
            }
            let entry = CacheEntry {
                url,
                url_used: taken.source,
                sha256: taken.sha256,
                bytes: taken.size,
                // How the file is checked is this build's knowledge, not the entry's claim.
                checksum: expected.status,
            };
            let got = super::http::Downloaded {
                temp,
                sha256: entry.sha256.clone(),
                bytes: entry.bytes,
            };
            return Some((got, entry));
        }
        None
    }
}

/// Where a file taken from the store came from, as the build report gives it.
fn cached(entry: CacheEntry) -> Origin {
    Origin {
        url: entry.url,
        url_used: entry.url_used,
        checksum: entry.checksum,
        from_cache: true,
        attempts: 0,
    }
}
