//! The recipe key of a finished ISO: computed from what determines every byte of it and is
//! known before anything large is fetched: the plan (every version, URL, image reference and
//! the volume id; not the output path), the build time, the sha256 of every file and the digest
//! of every image, and the versions of the builder and its formats.
//!
//! A build that made an ISO keeps it under the key computed from what it verified (in the local
//! `--cache-dir` and in the cache registry, [`keep`]); a later build finds it by the key of what
//! it knows on its own and checks it before use ([`super::iso_reuse`]).
//!
//! A build that writes a lock (`--write-lock`) needs every file's record, so it goes the long
//! way; so does a plan with an image left out for its platform (the puller does not report the
//! digest it saw for one).

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::plan::Plan;
use super::summary::{Summary, mirrored_files};
use crate::artifact::ArtifactKey;
use crate::fetch::FetchedFile;
use crate::iso::Packed;
use crate::registry::{PullReport, TARBALL_FORMAT};
use crate::store::{IsoStore, SealFacts};

/// What a build reports of an ISO without reading it, kept with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsoRecord {
    /// Files in the ISO (images and generated files included).
    pub files: usize,
    /// Images bundled.
    pub images: usize,
    /// Warnings of the pull, the signature checks and the pack.
    pub warnings: Vec<String>,
    /// Notes of the signature checks.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Files written beside the ISO, by the suffix added to the ISO's name, with their text.
    #[serde(default)]
    pub beside: BTreeMap<String, String>,
}

/// An ISO taken from a cache, in place at the plan's path with its sidecar.
#[derive(Debug)]
pub struct Reused {
    /// The ISO.
    pub packed: Packed,
    /// What was kept with it.
    pub record: IsoRecord,
}

/// One planned file as the key names it: ISO path, URL and sha256 of the bytes fetched.
type FileLine = (String, String, String);

/// The recipe key of `plan` built at `built` from `files` and, per planned image in plan
/// order, the digest its reference resolved to.
pub(super) fn recipe_key(
    plan: &Plan,
    built: i64,
    signatures: &str,
    files: &[FileLine],
    images: &[String],
) -> Result<String> {
    let mut plan_value = serde_json::to_value(plan).context("serialising the plan")?;
    if let Some(object) = plan_value.as_object_mut() {
        object.remove("iso");
    }
    let plan_text = plan_value.to_string();
    let built = built.to_string();
    let mut files = files.to_vec();
    files.sort();
    let lines: Vec<String> = files
        .iter()
        .map(|(path, url, sha256)| format!("file {path} {url} {sha256}"))
        .chain(
            plan.images
                .iter()
                .zip(images)
                .map(|(i, digest)| format!("image {} {digest}", i.reference)),
        )
        .collect();
    let mut parts = vec![
        concat!("cks-iso ", env!("CARGO_PKG_VERSION")),
        // The SBOM inside names the builder's commit.
        env!("CKS_GIT_COMMIT"),
        "iso-recipe/1",
        TARBALL_FORMAT,
        "rock-ridge+joliet",
        plan_text.as_str(),
        built.as_str(),
        signatures,
    ];
    parts.extend(lines.iter().map(String::as_str));
    Ok(crate::digest::cache_key(&parts))
}

/// The key from what this build fetched and verified (an image left out for its platform
/// counts as `skipped`: no build that knows its digest comes to that key); `None` when a
/// planned file or image is missing from the record.
pub(super) fn built_key(
    plan: &Plan,
    fetched: &[FetchedFile],
    report: &PullReport,
    built: i64,
    signatures: &str,
) -> Option<ArtifactKey> {
    let files = plan
        .files
        .iter()
        .map(|source| {
            let f = fetched.iter().find(|f| f.name == source.iso_path)?;
            Some((f.name.clone(), f.url.clone(), f.upstream_sha256.clone()))
        })
        .collect::<Option<Vec<FileLine>>>()?;
    let images = plan
        .images
        .iter()
        .map(|planned| {
            if report
                .skipped
                .iter()
                .any(|s| s.reference == planned.reference)
            {
                return Some("skipped".to_string());
            }
            report
                .images
                .iter()
                .find(|i| i.reference == planned.reference)
                .map(|i| i.digest.to_string())
        })
        .collect::<Option<Vec<_>>>()?;
    let recipe = recipe_key(plan, built, signatures, &files, &images).ok()?;
    Some(ArtifactKey::Iso { recipe })
}

/// Keeps the ISO this build packed under its recipe key `key`: in the local folder (sealed with
/// `facts`, what the build verified of it) and, when no image was left out, in the cache
/// registry with its `record`.
pub async fn keep(
    store: &IsoStore,
    key: &ArtifactKey,
    report: &PullReport,
    packed: &Packed,
    facts: Option<SealFacts>,
    record: IsoRecord,
) {
    let record = if report.skipped.is_empty() {
        serde_json::to_string(&record).ok()
    } else {
        None
    };
    store.keep(key, packed, facts, record).await;
}

/// The summary of a build that took its ISO from a cache.
pub fn summary(
    plan: &Plan,
    fetched: &[FetchedFile],
    reused: Reused,
    built: i64,
    phases: Vec<(String, f64)>,
) -> Summary {
    let mut warnings = plan.warnings.clone();
    warnings.extend(reused.record.warnings);
    Summary {
        reused: true,
        sbom: super::sbom::beside(&reused.packed.path),
        iso: reused.packed.path,
        sidecar: reused.packed.sidecar,
        size: reused.packed.size,
        sha256: reused.packed.sha256,
        files: reused.record.files,
        images: reused.record.images,
        skipped_images: Vec::new(),
        file_bytes_fetched: fetched
            .iter()
            .filter(|f| !f.from_cache)
            .map(|f| f.bytes)
            .sum(),
        files_from_cache: fetched.iter().filter(|f| f.from_cache).count(),
        image_bytes_fetched: 0,
        image_unique_bytes: 0,
        built,
        mirrored: mirrored_files(fetched),
        phases,
        fetched_twice: 0,
        warnings,
        notes: reused.record.notes,
        cache_registry: None,
        existing: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_ignores_file_order_but_not_digests_or_time() {
        let plan: Plan = serde_json::from_value(serde_json::json!({
            "kubernetes": "1.33.1", "cni_plugins": "v1.7.1", "crictl": "v1.33.0",
            "csi_driver": "v1.0.0", "etcd": null, "arch": "amd64",
            "autoscaler": {"tag": "cluster-autoscaler-1.33.0", "version": "1.33.0",
                           "commit": "c", "image": "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0"},
            "ccm": {"tag": "v1.2.0", "image": "apache/cloudstack-kubernetes-provider:v1.2.0"},
            "files": [], "images": [], "iso": "/out/a.iso", "volume_id": "CKS", "warnings": []
        }))
        .expect("a plan");
        let a = ("a".to_string(), "https://x/a".to_string(), "1".repeat(64));
        let b = ("b".to_string(), "https://x/b".to_string(), "2".repeat(64));
        let key = recipe_key(&plan, 7, "", &[a.clone(), b.clone()], &[]).expect("key");
        assert_eq!(
            key,
            recipe_key(&plan, 7, "", &[b.clone(), a.clone()], &[]).expect("key")
        );
        let mut elsewhere = plan.clone();
        elsewhere.iso = "/other/b.iso".into();
        assert_eq!(
            key,
            recipe_key(&elsewhere, 7, "", &[a.clone(), b.clone()], &[]).expect("key")
        );
        assert_ne!(
            key,
            recipe_key(&plan, 8, "", &[a.clone(), b.clone()], &[]).expect("key")
        );
        let changed = ("b".to_string(), "https://x/b".to_string(), "3".repeat(64));
        assert_ne!(
            key,
            recipe_key(&plan, 7, "", &[a.clone(), changed], &[]).expect("key")
        );
        assert_ne!(
            key,
            recipe_key(&plan, 7, "signatures Off", &[a, b], &[]).expect("key"),
            "how signatures were checked is part of the ISO"
        );
    }
}
