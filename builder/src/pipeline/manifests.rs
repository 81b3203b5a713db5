//! The plan's manifests once fetched: each root manifest checked to be Kubernetes objects
//! naming images, the autoscaler, CCM and Headlamp manifests pinned to their images, every
//! pull policy set to `IfNotPresent`, and their images merged with kubeadm's into the plan's.

use std::path::Path;

use anyhow::{Context, Result};
use cks_pinning::image::{PlannedImage, plan_images};
use cks_pinning::manifest;

use super::lock::Lock;
use super::plan::HeadlampPin;
use super::releases::Releases;
use super::staging::write_atomically;
use crate::fetch::FetchedFile;

/// The manifests at the ISO root whose pull policies are set to `IfNotPresent` (each that the
/// build bundles).
const ROOT_MANIFESTS: [&str; 7] = [
    "network.yaml",
    "dashboard.yaml",
    "headlamp.yaml",
    "autoscaler.yaml",
    "provider.yaml",
    "manifest.yaml",
    "snapshot-crds.yaml",
];

/// The manifests whose images go into the ISO, after kubeadm's list (each that the build
/// bundles): every root manifest but the snapshot CRDs, which run nothing.
const IMAGE_MANIFESTS: &[&str] = ROOT_MANIFESTS.split_at(6).0;

/// Refuses a root manifest that is not Kubernetes objects, or one that runs a component but
/// names no image (its publisher's file of that name names some: a redirect to a `Secret` or a
/// login page is not it), naming the URL it came from and what it held.
pub fn check_manifests(tree: &Path, fetched: &[FetchedFile]) -> Result<()> {
    for name in ROOT_MANIFESTS {
        let Some(file) = fetched.iter().find(|f| f.name == name) else {
            continue;
        };
        let role = manifest_role(name);
        let text = read(tree, name)?;
        manifest::validate(&text, role).with_context(|| {
            format!(
                "{} (the {name} of the plan) is not a Kubernetes manifest",
                file.url_used
            )
        })?;
    }
    Ok(())
}

/// What the root manifest `name` is for: each but the snapshot CRDs runs containers.
fn manifest_role(name: &str) -> manifest::Role {
    match name {
        "network.yaml" => manifest::Role::Network,
        "dashboard.yaml" => manifest::Role::Workload("dashboard"),
        "headlamp.yaml" => manifest::Role::Workload("Headlamp"),
        "autoscaler.yaml" => manifest::Role::Workload("cluster autoscaler"),
        "provider.yaml" => manifest::Role::Workload("CloudStack CCM"),
        "manifest.yaml" => manifest::Role::Workload("CSI driver"),
        _ => manifest::Role::Other,
    }
}

/// Pins the autoscaler, CCM and Headlamp manifests to their images and sets every root
/// manifest's pull policies to `IfNotPresent`. Each file edited has its entry in `fetched`
/// say the bytes now in the tree (digest and size): what the build records, seals and checks
/// later reads from there, not from the file again.
pub fn pin_manifests(
    tree: &Path,
    releases: &Releases,
    headlamp: Option<&HeadlampPin>,
    fetched: &mut [FetchedFile],
) -> Result<()> {
    let mut edits = Edits { tree, fetched };
    edits.edit("autoscaler.yaml", |text| {
        manifest::pin_autoscaler(text, &releases.autoscaler.image)
    })?;
    edits.edit("provider.yaml", |text| {
        manifest::pin_ccm(text, &releases.ccm.image)
    })?;
    if let Some(headlamp) = headlamp {
        edits.edit(cks_pinning::headlamp::ISO_PATH, |text| {
            manifest::pin_headlamp(text, &headlamp.image)
        })?;
    }
    for name in ROOT_MANIFESTS {
        if tree.join(name).exists() {
            edits.edit(name, manifest::set_pull_policy)?;
        }
    }
    Ok(())
}

/// kubeadm's images and the pinned manifests' images, merged into the plan's images; with a
/// lock, each pinned to the digest the lock recorded.
pub fn image_plan(
    tree: &Path,
    kubeadm: Vec<String>,
    lock: Option<&Lock>,
) -> Result<Vec<PlannedImage>> {
    let mut lists = vec![("kubeadm", kubeadm)];
    for name in IMAGE_MANIFESTS {
        if !tree.join(name).exists() {
            continue;
        }
        let text = read(tree, name)?;
        let images =
            manifest::images(&text).with_context(|| format!("reading the images of {name}"))?;
        lists.push((name, images));
    }
    let mut images = plan_images(&lists)?;
    if let Some(lock) = lock {
        for image in &mut images {
            let reference = image.reference.to_string();
            let digest = lock.image_digest(&reference).with_context(|| {
                format!("the lock has no digest for image {reference}; write it again")
            })?;
            image.digest = Some(digest.clone());
        }
    }
    Ok(images)
}

fn read(tree: &Path, name: &str) -> Result<String> {
    let path = tree.join(name);
    std::fs::read_to_string(&path).with_context(|| format!("reading {name} (is it UTF-8 text?)"))
}

/// The manifests of a tree edited in place, with the files fetched into it.
struct Edits<'a> {
    tree: &'a Path,
    fetched: &'a mut [FetchedFile],
}

impl Edits<'_> {
    /// Applies a text edit to the manifest `name`, in place and atomically; when it changes
    /// the bytes, the file's entry takes their digest and size.
    fn edit<E>(&mut self, name: &str, change: impl Fn(&str) -> Result<String, E>) -> Result<()>
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let text = read(self.tree, name)?;
        let edited = change(&text).with_context(|| format!("editing {name}"))?;
        if edited != text {
            write_atomically(&self.tree.join(name), edited.as_bytes())?;
            if let Some(file) = self.fetched.iter_mut().find(|f| f.name == name) {
                file.sha256 = crate::digest::sha256_hex(edited.as_bytes());
                file.bytes = edited.len() as u64;
            }
        }
        Ok(())
    }
}
