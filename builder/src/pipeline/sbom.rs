//! The build's SPDX 2.3 SBOM: `sbom.spdx.json` in the tree (so in the ISO) and
//! `<iso>.spdx.json` beside the ISO, the same bytes.
//!
//! The document is derived from the record `versions.txt` is rendered from (one source of
//! truth), plus what only the build knows: each downloaded file's canonical URL and each
//! image's layers, read back from the tarball written into the tree (a digest and a SHA-1 per
//! layer, which SPDX requires of every file). Nothing else goes in, so the same inputs and
//! `SOURCE_DATE_EPOCH` give the same document.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cks_pinning::image::ImageRef;
use cks_pinning::sbom::{FileSource, ImageDetail, Layer, Sbom, Tool};
use cks_pinning::versions_txt::VersionsTxt;
use sha1::{Digest as _, Sha1};

use crate::fetch::FetchedFile;
use crate::registry::{PullReport, PulledImage};

pub use cks_pinning::sbom::FILE_NAME;

/// The builder as the SBOM's creator tool, with the commit it was built from.
pub fn tool() -> Tool {
    let commit = env!("CKS_GIT_COMMIT");
    Tool {
        name: "cks-iso".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: (commit != "unknown").then(|| commit.to_string()),
    }
}

/// The SBOM of the ISO `iso`, whose tree at `tree` holds what `versions` records.
pub fn document(
    versions: &VersionsTxt,
    fetched: &[FetchedFile],
    report: &PullReport,
    tree: &Path,
    iso: &Path,
) -> Result<String> {
    let iso_name = iso
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| iso.display().to_string());
    let mut sbom = Sbom::new(versions, &iso_name, tool());
    sbom.sources = fetched
        .iter()
        .map(|f| FileSource {
            path: f.name.clone(),
            url: f.url.clone(),
        })
        .collect();
    for pulled in &report.images {
        let reference = pinned(versions, pulled)?;
        let tarball = pulled
            .tarball
            .strip_prefix(tree)
            .unwrap_or(&pulled.tarball)
            .to_string_lossy()
            .into_owned();
        let layers = layers(&pulled.tarball, &pulled.platform_digest)
            .with_context(|| format!("reading the layers of {}", pulled.tarball.display()))?;
        sbom.images.push(ImageDetail {
            reference,
            tarball,
            layers,
        });
    }
    sbom.render().context("writing the SBOM")
}

/// What the name of the SBOM beside an ISO adds to the ISO's name.
pub const BESIDE_SUFFIX: &str = ".spdx.json";

/// Where the SBOM beside `iso` goes: `<iso>.spdx.json`.
pub fn beside(iso: &Path) -> PathBuf {
    let mut name = iso.as_os_str().to_os_string();
    name.push(BESIDE_SUFFIX);
    PathBuf::from(name)
}

/// The `image:` line of versions.txt for a pulled image.
fn pinned(versions: &VersionsTxt, pulled: &PulledImage) -> Result<ImageRef> {
    versions
        .images
        .iter()
        .find(|i| i.digest() == Some(pulled.digest.as_str()) && same_name(i, &pulled.reference))
        .cloned()
        .with_context(|| {
            format!(
                "image {} ({}) was pulled but is not an image: line of versions.txt",
                pulled.reference, pulled.digest
            )
        })
}

fn same_name(pinned: &ImageRef, reference: &str) -> bool {
    let name = pinned.to_string();
    let bare = name.split('@').next().unwrap_or(&name);
    reference == bare || reference.split('@').next() == Some(bare)
}

/// The layers of the image whose platform manifest is `platform_digest`, in manifest order,
/// from the tarball's `blobs/sha256/` entries: one pass over the tarball, each blob hashed with
/// SHA-1 as it streams by, nothing held but the (small) manifest.
fn layers(tarball: &Path, platform_digest: &str) -> Result<Vec<Layer>> {
    let manifest_entry = platform_digest
        .strip_prefix("sha256:")
        .map(|hex| format!("blobs/sha256/{hex}"));
    let file = std::fs::File::open(tarball)?;
    let mut archive = tar::Archive::new(std::io::BufReader::with_capacity(1 << 20, file));
    let mut sha1s = std::collections::BTreeMap::new();
    let mut manifest = None;
    for entry in archive.entries()? {
        let mut entry = entry?;
        let name = entry.path()?.to_string_lossy().into_owned();
        let Some(hex) = name.strip_prefix("blobs/sha256/").map(str::to_string) else {
            continue;
        };
        if hex.is_empty() {
            continue;
        }
        if Some(&name) == manifest_entry.as_ref() {
            let mut bytes = Vec::new();
            (&mut entry).take(4 << 20).read_to_end(&mut bytes)?;
            manifest = Some(bytes);
            continue;
        }
        let mut hasher = Sha1::new();
        let mut buffer = vec![0u8; 1 << 20];
        let mut size = 0u64;
        loop {
            let n = entry.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            size += n as u64;
        }
        sha1s.insert(
            format!("sha256:{hex}"),
            (hex::encode(hasher.finalize()), size),
        );
    }
    let manifest = manifest
        .with_context(|| format!("the tarball holds no platform manifest {platform_digest}"))?;
    let parsed: serde_json::Value = serde_json::from_slice(&manifest)
        .with_context(|| format!("the platform manifest {platform_digest} is not JSON"))?;
    let listed = parsed["layers"].as_array().cloned().unwrap_or_default();
    listed
        .iter()
        .map(|layer| {
            let digest = layer["digest"].as_str().unwrap_or_default().to_string();
            let (sha1, size) = sha1s
                .get(&digest)
                .cloned()
                .with_context(|| format!("layer {digest} is not in the tarball"))?;
            Ok(Layer { digest, sha1, size })
        })
        .collect()
}
