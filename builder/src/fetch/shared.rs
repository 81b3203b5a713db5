//! The shared tier the downloader asks after its cache directory and before upstream (the
//! cache registry of many CI runners), through the artifact store's port
//! ([`crate::store::SharedArtifacts`]): find a file by its URLs and write it to a path,
//! verified; keep a verified file for the next build.
//!
//! The tier is a cache, never a source of truth: a file is taken from it only by the digest
//! this build knows independently of it (the lock's pin, or the checksum the publisher
//! publishes, asked of upstream: a small request), never by the digest an entry claims for
//! itself. A file with neither (a manifest without a published checksum) is not taken from it.

use std::path::Path;

use super::{Checksum, ChecksumStatus, FetchError, Fetcher, FileSpec};

/// A file the shared tier served, verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedHit {
    /// The canonical URL it was stored for.
    pub url: String,
    /// Where the bytes came from, as the build report's `url_used`.
    pub url_used: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// Its size.
    pub bytes: u64,
    /// How it was checked when first fetched from upstream.
    pub checksum: ChecksumStatus,
}

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
    /// The digest `spec` must have, known without any cache: the lock's pin, or the checksum
    /// the publisher publishes for the first candidate that has one (a small request
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

    /// `spec` from the shared tier, written to a temporary file in `dir`, when the tier holds
    /// it with the digest [`Self::expected_sha256`] gives; `None` otherwise (the download then
    /// goes upstream, which reports any error of its own).
    pub(super) async fn take_from_shared_tier(
        &self,
        spec: &FileSpec,
        dir: &Path,
        dest_name: &str,
    ) -> Option<(super::http::Downloaded, SharedHit)> {
        let tier = self.options.cache_registry.as_ref()?;
        let expected = self.expected_sha256(spec).await.ok()??;
        let pinned = Checksum::Pinned {
            sha256: expected.sha256.clone(),
        };
        let urls = match &spec.checksum {
            // A lock's pin holds for every candidate.
            Checksum::Pinned { .. } => spec.urls.clone(),
            _ => vec![expected.url.clone()],
        };
        let temp = super::http::temp_in(dir, dest_name).ok()?;
        let mut hit = tier
            .0
            .fetch_file(&urls, &pinned, temp.path(), &*self.progress)
            .await?;
        if !hit.sha256.eq_ignore_ascii_case(&expected.sha256) {
            return None;
        }
        // How the file is checked is this build's knowledge, not the entry's claim.
        hit.checksum = expected.status;
        let got = super::http::Downloaded {
            temp,
            sha256: hit.sha256.clone(),
            bytes: hit.bytes,
        };
        Some((got, hit))
    }
}
