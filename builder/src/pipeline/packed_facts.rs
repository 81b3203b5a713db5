//! What a build verified of the ISO it packed, as the seal the local store keeps beside it
//! ([`crate::store::Seal`]): each planned file's sha256 as the ISO check compares it, and each
//! image tarball's facts as the pull reported them. A later build that finds the ISO proves its
//! bytes unchanged on every core and compares these findings instead of hashing every file
//! again.

use std::path::Path;

use cks_pinning::sbom::Layer;

use super::plan::Plan;
use crate::fetch::FetchedFile;
use crate::registry::{PullReport, RemoteName, TarballFacts};
use crate::store::{SealFacts, SealedImage};

/// The findings to seal the ISO packed from `tree` with; `None` when a planned file or image is
/// not among what the build verified (nothing is sealed then: the next build checks it whole).
/// Each file's digest is the one its entry says of the bytes in the tree (a manifest edited
/// after its download says the edited bytes): nothing is hashed again.
pub fn packed_facts(
    plan: &Plan,
    tree: &Path,
    fetched: &[FetchedFile],
    report: &PullReport,
    layers: &[Vec<Layer>],
) -> Option<SealFacts> {
    let mut facts = SealFacts::default();
    for source in &plan.files {
        let file = fetched.iter().find(|f| f.name == source.iso_path)?;
        facts
            .files
            .insert(source.iso_path.clone(), file.sha256.clone());
    }
    for planned in &plan.images {
        let (index, pulled) = report
            .images
            .iter()
            .enumerate()
            .find(|(_, i)| i.reference == planned.reference)?;
        let rel = pulled.tarball.strip_prefix(tree).ok()?.to_string_lossy();
        let name = RemoteName::parse(&planned.reference.to_string()).ok()?.full;
        let image = SealedImage {
            name,
            digest: pulled.digest.to_string(),
            facts: TarballFacts {
                media_type: pulled.media_type.clone(),
                platform_digest: pulled.platform_digest.clone(),
                platform: pulled.platform.clone(),
                size: pulled.tarball_size,
                sha256: pulled.tarball_sha256.clone(),
                blobs: pulled.blobs.clone(),
                layers: layers.get(index)?.clone(),
            },
        };
        facts.images.insert(rel.into_owned(), image);
    }
    Some(facts)
}
