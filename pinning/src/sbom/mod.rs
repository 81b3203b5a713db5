//! The ISO's SPDX 2.3 software bill of materials, derived from the same record as
//! `versions.txt` (one source of truth) plus what only the build knows: which URL each file came
//! from and each image's layers.
//!
//! The document is a pure function of its input: the creation time is the record's `built`
//! time (`SOURCE_DATE_EPOCH`), the namespace is derived from the content, and every list keeps
//! the record's order, so the same input gives the same bytes.
//!
//! ```
//! use cks_pinning::sbom::{Sbom, Tool};
//! use cks_pinning::versions_txt::{FileEntry, VersionsTxt};
//! let versions = VersionsTxt {
//!     kubernetes: "1.33.13".into(), arch: cks_pinning::arch::Arch::Amd64, built: Some(0),
//!     files: vec![FileEntry { path: "cni/cni.tgz".into(), sha256: "0".repeat(64) }],
//!     ..VersionsTxt::default()
//! };
//! let tool = Tool { name: "cks-iso".into(), version: "0.1.0".into(), commit: None };
//! let json = Sbom::new(&versions, "cks.iso", tool).render().expect("renders");
//! assert!(json.contains("\"spdxVersion\": \"SPDX-2.3\""));
//! ```

mod check;
mod document;
mod purl;
mod reader;
mod summary;
mod time;

use thiserror::Error;

use crate::image::ImageRef;
use crate::versions_txt::VersionsTxt;

pub use check::{SbomMismatch, check};
pub use summary::{Component, ImageSummary, Summary, SummaryError, summarize};
pub use time::rfc3339;

/// The file name of the SBOM inside the ISO.
pub const FILE_NAME: &str = "sbom.spdx.json";

/// The program that wrote the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// Its name, e.g. `cks-iso`.
    pub name: String,
    /// Its version, e.g. `0.1.0`.
    pub version: String,
    /// The source commit it was built from, when known.
    pub commit: Option<String>,
}

/// One layer of an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// The blob digest, `sha256:<64 hex>`.
    pub digest: crate::digest::Digest,
    /// The SHA-1 of the same bytes (SPDX requires one for every file), 40 hex digits.
    pub sha1: String,
    /// The size in bytes.
    pub size: u64,
}

/// What the build knows about a bundled image beyond its `image:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageDetail {
    /// The image, pinned by digest as in `versions.txt`.
    pub reference: ImageRef,
    /// The tarball in the ISO holding it, e.g. `docker/pause:3.10.tar`.
    pub tarball: String,
    /// Its layers, in manifest order.
    pub layers: Vec<Layer>,
}

/// Where a file of the ISO was downloaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSource {
    /// The path in the ISO.
    pub path: String,
    /// The canonical (upstream) URL, as in the `url:` lines.
    pub url: String,
}

/// The input of the document.
#[derive(Debug, Clone)]
pub struct Sbom<'a> {
    /// The record `versions.txt` is rendered from.
    pub versions: &'a VersionsTxt,
    /// The ISO's file name, e.g. `cks-1.33.13-x86_64.iso`.
    pub iso_name: String,
    /// The builder.
    pub tool: Tool,
    /// Each downloaded file's URL.
    pub sources: Vec<FileSource>,
    /// Each image's tarball and layers.
    pub images: Vec<ImageDetail>,
}

/// Why a document cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SbomError {
    /// The record has no build time, which the document's creation time comes from.
    #[error(
        "the versions.txt record has no `built:` time; the SBOM's creation time comes from it (set SOURCE_DATE_EPOCH or let the build record its start)"
    )]
    NoBuildTime,
    /// An image detail names an image the record does not hold.
    #[error("image {reference} has layers but is not an `image:` of versions.txt")]
    UnknownImage {
        /// The image.
        reference: String,
    },
    /// A layer digest or checksum is malformed.
    #[error("layer {digest:?} of image {reference}: expected `sha256:<64 hex>` and a 40-hex SHA-1")]
    Layer {
        /// The image.
        reference: String,
        /// The digest given.
        digest: String,
    },
    /// The document could not be serialised.
    #[error("serialising the SBOM: {0}")]
    Json(String),
}

impl<'a> Sbom<'a> {
    /// A document for `versions` with no URLs or layers yet (signatures are the record's own
    /// `signature:` entries, each an annotation of its file or image).
    pub fn new(versions: &'a VersionsTxt, iso_name: &str, tool: Tool) -> Sbom<'a> {
        Sbom {
            versions,
            iso_name: iso_name.to_string(),
            tool,
            sources: Vec::new(),
            images: Vec::new(),
        }
    }

    /// The SPDX 2.3 JSON document, pretty-printed with a final newline.
    pub fn render(&self) -> Result<String, SbomError> {
        let document = document::build(self)?;
        let mut text =
            serde_json::to_string_pretty(&document).map_err(|e| SbomError::Json(e.to_string()))?;
        text.push('\n');
        Ok(text)
    }
}
