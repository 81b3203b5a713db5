//! What a finished build reports: the ISO, its digest, what was fetched and from where, the
//! time each phase took, and the warnings.

use serde::Serialize;

use crate::fetch::FetchedFile;

/// What a finished build reports.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The ISO.
    pub iso: std::path::PathBuf,
    /// The ISO was taken, once checked, from a cache (`--cache-dir` or the cache registry)
    /// rather than packed.
    pub reused: bool,
    /// Its `.sha256` sidecar.
    pub sidecar: std::path::PathBuf,
    /// The SBOM beside it, `<iso>.spdx.json` (the same as `sbom.spdx.json` inside).
    pub sbom: std::path::PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its sha256.
    pub sha256: String,
    /// Files in the ISO (images and versions.txt included).
    pub files: usize,
    /// Images bundled.
    pub images: usize,
    /// Images left out for their platform.
    pub skipped_images: Vec<String>,
    /// Bytes received for files (0 for cache hits).
    pub file_bytes_fetched: u64,
    /// Files served from the content cache.
    pub files_from_cache: usize,
    /// Bytes received from registries.
    pub image_bytes_fetched: u64,
    /// Bytes of the distinct blobs the images use.
    pub image_unique_bytes: u64,
    /// The time every timestamp of the ISO carries, seconds since 1970.
    pub built: i64,
    /// Files that came through a mirror (not recorded in the ISO, so that any mirror gives the
    /// same ISO).
    pub mirrored: Vec<MirroredFile>,
    /// Seconds spent in each phase.
    pub phases: Vec<(String, f64)>,
    /// The URLs this build asked for more than once (a retried or resumed transfer counts),
    /// counted where every file, checksum, signature file and git listing is requested
    /// ([`crate::requests`]); 0 when nothing was fetched twice.
    pub fetched_twice: usize,
    /// Warnings for the user.
    pub warnings: Vec<String>,
    /// What the cache registry did, per kind of entry, with `--cache-registry`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_registry: Option<crate::cache_registry::CacheStats>,
    /// Facts said once (sources not signed upstream, images without a signature policy).
    pub notes: Vec<String>,
    /// What became of an ISO already at the output path that the caller asked to keep
    /// ([`super::Request::keep_existing`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub existing: Option<ExistingIso>,
}

/// What became of an ISO already at the output path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ExistingIso {
    /// It is byte for byte what this build writes from what it verified: kept.
    Kept,
    /// It is not (the reason, in one line): replaced by the ISO this build made or took.
    Replaced {
        /// What differs.
        reason: String,
    },
}

/// A file fetched through a mirror: its path in the ISO, its canonical URL and the URL used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MirroredFile {
    /// The path in the ISO.
    pub file: String,
    /// The canonical upstream URL, as `versions.txt` records it.
    pub upstream: String,
    /// The URL the bytes came from (a mirror, or `cache:` for content found by digest).
    pub used: String,
}

/// Every file of `fetched` that came from somewhere else than its canonical URL, by path.
pub fn mirrored_files(fetched: &[FetchedFile]) -> Vec<MirroredFile> {
    let mut out: Vec<MirroredFile> = fetched
        .iter()
        .filter(|f| f.url != f.url_used)
        .map(|f| MirroredFile {
            file: f.name.clone(),
            upstream: f.url.clone(),
            used: f.url_used.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}
