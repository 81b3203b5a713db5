//! The build's SPDX 2.3 SBOM: `sbom.spdx.json` in the tree (so in the ISO) and
//! `<iso>.spdx.json` beside the ISO, the same bytes.
//!
//! The document is derived from the record `versions.txt` is rendered from (one source of
//! truth), plus what only the build knows: each downloaded file's canonical URL and each
//! image's layers, read back from the tarball written into the tree (a digest and a SHA-1 per
//! layer, which SPDX requires of every file; with a cache folder each blob's SHA-1 is taken as
//! it lands and remembered there ([`crate::registry::sha1_memo`]), and [`image_layers`] computes
//! only what is not remembered, once per build, while the signatures are checked). Nothing else
//! goes in, so the same inputs and `SOURCE_DATE_EPOCH` give the same document.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cks_iso_reader::oci::{Manifest, parse_manifest};
use cks_pinning::sbom::{FileSource, ImageDetail, Layer, Sbom, Tool};
use cks_pinning::versions_txt::VersionsTxt;

use super::plan::Plan;
use crate::fetch::FetchedFile;
use crate::registry::PullReport;
use crate::registry::sha1_memo::{recall, remember, sha1_of};

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

/// The layers of every image of `report`, in its order, read from the tarballs: each blob's
/// SHA-1 computed once per build (a base layer many images share, once), or not at all when
/// the memo folder (in the cache folder) knows it.
pub fn image_layers(report: &PullReport, sha1_memo: Option<&Path>) -> Result<Vec<Vec<Layer>>> {
    let mut known = BTreeMap::new();
    report
        .images
        .iter()
        .map(|pulled| {
            layers(
                &pulled.tarball,
                &pulled.platform_digest,
                sha1_memo,
                &mut known,
            )
            .with_context(|| format!("reading the layers of {}", pulled.tarball.display()))
        })
        .collect()
}

/// The SBOM of the plan's ISO, whose tree at `tree` holds what `versions` records, with the
/// layers [`image_layers`] read for each image of `report`.
pub fn document(
    plan: &Plan,
    versions: &VersionsTxt,
    fetched: &[FetchedFile],
    report: &PullReport,
    tree: &Path,
    image_layers: Vec<Vec<Layer>>,
) -> Result<String> {
    let iso = &plan.iso;
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
    if image_layers.len() != report.images.len() {
        anyhow::bail!(
            "the layers of {} image(s) were read for {} image(s) pulled",
            image_layers.len(),
            report.images.len()
        );
    }
    for (pulled, layers) in report.images.iter().zip(image_layers) {
        // Pinned as its `image:` line of versions.txt is.
        let reference = super::record::planned(plan, &pulled.reference)?.pinned_to(&pulled.digest);
        let tarball = pulled
            .tarball
            .strip_prefix(tree)
            .unwrap_or(&pulled.tarball)
            .to_string_lossy()
            .into_owned();
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

/// The layers of the image whose platform manifest is `platform_digest`, in manifest order,
/// from the tarball's `blobs/sha256/` entries: one pass over the tarball, each blob hashed with
/// SHA-1 as it streams by, nothing held but the (small) manifest. Blobs in `known` (hashed
/// earlier in this build, by hex digest) are seeked past, and so are those a memo folder (in the
/// cache folder) knows from an earlier build.
fn layers(
    tarball: &Path,
    platform_digest: &str,
    memo: Option<&Path>,
    known: &mut BTreeMap<String, (String, u64)>,
) -> Result<Vec<Layer>> {
    let manifest_entry = platform_digest
        .strip_prefix("sha256:")
        .map(|hex| format!("blobs/sha256/{hex}"));
    let file = std::fs::File::open(tarball)?;
    let mut archive = tar::Archive::new(std::io::BufReader::with_capacity(1 << 20, file));
    let mut sha1s = std::collections::BTreeMap::new();
    let mut manifest = None;
    for entry in archive.entries_with_seek()? {
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
        let size = entry.size();
        let remembered = known
            .get(&hex)
            .filter(|(_, known_size)| *known_size == size)
            .map(|(sha1, _)| sha1.clone())
            .or_else(|| memo.and_then(|dir| recall(dir, &hex, size)));
        let sha1 = match remembered {
            Some(sha1) => sha1,
            None => {
                let (sha1, _) = sha1_of(&mut entry)?;
                if let Some(dir) = memo {
                    remember(dir, &hex, &sha1, size);
                }
                sha1
            }
        };
        known.insert(hex.clone(), (sha1.clone(), size));
        sha1s.insert(format!("sha256:{hex}"), (sha1, size));
    }
    let manifest = manifest
        .with_context(|| format!("the tarball holds no platform manifest {platform_digest}"))?;
    let image = tarball.display().to_string();
    let (_, parsed) = parse_manifest(&image, platform_digest, None, &manifest)?;
    let Manifest::Image { layers: listed, .. } = parsed else {
        anyhow::bail!("{image}: {platform_digest} is an index, not a platform manifest");
    };
    listed
        .into_iter()
        .map(|layer| {
            let (sha1, size) = sha1s
                .get(&layer.digest.to_string())
                .cloned()
                .with_context(|| format!("layer {} is not in the tarball", layer.digest))?;
            Ok(Layer {
                digest: layer.digest,
                sha1,
                size,
            })
        })
        .collect()
}
