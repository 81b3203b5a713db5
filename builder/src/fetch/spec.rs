//! The plan's view of one file to fetch, and the record of how it was fetched.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use cks_pinning::sources::{Checksum, Edit};

use crate::artifact::ChecksumStatus;

/// One file of a plan: where to get it, how to check it, where to put it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSpec {
    /// A short name for progress and errors (`k8s/kubeadm`).
    pub name: String,
    /// The primary URL first, then fallbacks, tried in order on 404 only. An entry may be a
    /// local path (or `file://` URL) of an existing file, which is copied.
    pub urls: Vec<String>,
    /// How to check the bytes.
    #[serde(default)]
    pub checksum: Checksum,
    /// Where the file goes; its directory must exist.
    pub dest: PathBuf,
    /// An edit applied after the download is verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<Edit>,
}

impl FileSpec {
    /// A file fetched from `url` to `dest`, with no checksum and no edit.
    pub fn new(name: impl Into<String>, url: impl Into<String>, dest: impl Into<PathBuf>) -> Self {
        FileSpec {
            name: name.into(),
            urls: vec![url.into()],
            checksum: Checksum::None,
            dest: dest.into(),
            edit: None,
        }
    }

    /// Adds a fallback URL, tried when the ones before it answer 404.
    pub fn fallback(mut self, url: impl Into<String>) -> Self {
        self.urls.push(url.into());
        self
    }

    /// Sets how the bytes are checked.
    pub fn checksum(mut self, checksum: Checksum) -> Self {
        self.checksum = checksum;
        self
    }

    /// Sets the edit applied after the download.
    pub fn edit(mut self, edit: Edit) -> Self {
        self.edit = Some(edit);
        self
    }
}

/// How one file was fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchedFile {
    /// The file's name in the plan.
    pub name: String,
    /// Where it was written.
    pub dest: PathBuf,
    /// The URL of the plan that supplied it (the primary or a fallback), before mirror rewrites.
    pub url: String,
    /// The URL actually requested (after mirror rewrites), or the local path copied.
    pub url_used: String,
    /// The sha256 of the file as written (after the edit, if any).
    pub sha256: String,
    /// The sha256 of the bytes as fetched (equal to `sha256` without an edit).
    pub upstream_sha256: String,
    /// The size of the file as written.
    pub bytes: u64,
    /// How the upstream digest was checked.
    pub checksum: ChecksumStatus,
    /// True when the bytes came from the content cache and nothing was requested.
    pub from_cache: bool,
    /// Attempts made on `url_used` (0 for a cache hit).
    pub attempts: u32,
}
