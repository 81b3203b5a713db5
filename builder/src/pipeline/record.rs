//! `versions.txt`: the record of what the ISO holds, made from the plan, the files fetched and
//! the images pulled (canonical URLs only: which mirror served a file is not recorded here).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cks_pinning::image::ImageRef;
use cks_pinning::release::bare;
use cks_pinning::versions_txt::{FileEntry, SkippedImage, VersionsTxt};

use super::plan::Plan;
use crate::fetch::FetchedFile;
use crate::registry::PullReport;

/// The record of the tree at `tree`, built at `built` (seconds since 1970).
pub fn record(
    plan: &Plan,
    fetched: &[FetchedFile],
    report: &PullReport,
    tree: &Path,
    built: i64,
) -> Result<VersionsTxt> {
    let files = file_entries(fetched, report, tree)?;
    record_of(plan, fetched, report, files, built)
}

/// The record of a tree holding `files` (every file but the generated ones, sorted by path,
/// with their sha256s), built at `built`.
pub fn record_of(
    plan: &Plan,
    fetched: &[FetchedFile],
    report: &PullReport,
    files: Vec<FileEntry>,
    built: i64,
) -> Result<VersionsTxt> {
    Ok(VersionsTxt {
        kubernetes: plan.kubernetes.to_string(),
        cni_plugins: bare(&plan.cni_plugins).to_string(),
        crictl: bare(&plan.crictl).to_string(),
        ccm: bare(&plan.ccm.tag).to_string(),
        csi_driver: bare(&plan.csi_driver).to_string(),
        autoscaler: bare(&plan.autoscaler.version).to_string(),
        autoscaler_tag: plan.autoscaler.tag.clone(),
        etcd: plan.etcd.as_deref().map(|e| bare(e).to_string()),
        headlamp: plan.headlamp.as_ref().map(|h| h.version.bare()),
        arch: plan.arch,
        urls: file_urls(plan, fetched),
        files,
        images: pinned_images(plan, report)?,
        skipped_images: skipped_images(plan, report)?,
        // The signature phase's entries are added by the caller.
        signatures: Vec::new(),
        built: Some(built),
    })
}

/// Each file's canonical URL, then the checksum file its digest was checked against.
fn file_urls(plan: &Plan, fetched: &[FetchedFile]) -> Vec<String> {
    let mut by_path: Vec<&FetchedFile> = fetched.iter().collect();
    by_path.sort_by(|a, b| a.name.cmp(&b.name));
    let mut urls = Vec::new();
    for file in &by_path {
        urls.push(file.url.clone());
        let checksum_url = plan
            .files
            .iter()
            .find(|s| s.iso_path == file.name)
            .and_then(|s| s.checksum_url(&file.url));
        if let Some(url) = checksum_url
            && !urls.contains(&url)
        {
            urls.push(url);
        }
    }
    urls
}

/// Every file of the tree with its sha256. Digests already known are reused: downloads were
/// hashed as they streamed (a manifest edited after its download says the edited bytes),
/// tarballs as they were written.
fn file_entries(
    fetched: &[FetchedFile],
    report: &PullReport,
    tree: &Path,
) -> Result<Vec<FileEntry>> {
    let mut known: BTreeMap<PathBuf, &str> = BTreeMap::new();
    for file in fetched {
        known.insert(file.dest.clone(), file.sha256.as_str());
    }
    for image in &report.images {
        let hex = image
            .tarball_sha256
            .strip_prefix("sha256:")
            .unwrap_or(&image.tarball_sha256);
        known.insert(image.tarball.clone(), hex);
    }
    let mut files = Vec::new();
    for path in tree_files(tree)? {
        let full = tree.join(&path);
        let sha256 = match known.get(&full) {
            Some(hex) => hex.to_string(),
            None => crate::digest::sha256_file(&full)
                .map(|d| d.hex().to_string())
                .with_context(|| format!("reading {}", full.display()))?,
        };
        files.push(FileEntry { path, sha256 });
    }
    Ok(files)
}

/// The plan's reference of an image the puller reports.
pub(super) fn planned<'a>(plan: &'a Plan, reference: &ImageRef) -> Result<&'a ImageRef> {
    plan.images
        .iter()
        .map(|i| &i.reference)
        .find(|r| *r == reference)
        .with_context(|| format!("image {reference} was pulled but is not in the plan"))
}

/// Every pulled image, pinned to the digest the registry served.
fn pinned_images(plan: &Plan, report: &PullReport) -> Result<Vec<ImageRef>> {
    report
        .images
        .iter()
        .map(|i| Ok(planned(plan, &i.reference)?.pinned_to(&i.digest)))
        .collect()
}

/// Every image left out for its platform.
fn skipped_images(plan: &Plan, report: &PullReport) -> Result<Vec<SkippedImage>> {
    report
        .skipped
        .iter()
        .map(|s| {
            Ok(SkippedImage {
                reference: planned(plan, &s.reference)?.clone(),
                platform: s.platform.clone(),
            })
        })
        .collect()
}

/// Every regular file below `tree` (but versions.txt and the SBOM, made from it), as sorted `/`-separated paths.
fn tree_files(tree: &Path) -> Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<()> {
        for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &path, out)?;
            } else if path != cks_pinning::versions_txt::FILE_NAME
                && path != cks_pinning::sbom::FILE_NAME
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(tree, "", &mut out)?;
    out.sort();
    Ok(out)
}
