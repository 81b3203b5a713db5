//! The first phase of a build: resolve every version, tag, URL and image reference. Only the
//! manifests, the kubelet units and a kubeadm for the build host (to list the images) are
//! downloaded here; the plan that comes out says everything the second phase will fetch.

use std::path::Path;

use anyhow::{Context, Result, bail};
use cks_pinning::image::ImageRef;
use cks_pinning::manifest;
use cks_pinning::version::KubeVersion;

use super::images::{kubeadm_images, plan_images};
use super::lock::Lock;
use super::options::Options;
use super::plan::Plan;
use super::releases::{Reach, TagSource, resolve_releases};
use super::sources::{self, Source, bare};
use super::staging::{Staging, write_atomically};
use crate::fetch::{FetchedFile, Fetcher};
use cks_pinning::arch::Arch;

/// The plan and the files the first phase already fetched into the tree.
#[derive(Debug)]
pub struct Resolved {
    /// The plan.
    pub plan: Plan,
    /// Files fetched so far, in plan order.
    pub fetched: Vec<FetchedFile>,
}

/// The manifests at the ISO root whose pull policies are set to `IfNotPresent`.
const ROOT_MANIFESTS: [&str; 6] = [
    "network.yaml",
    "dashboard.yaml",
    "autoscaler.yaml",
    "provider.yaml",
    "manifest.yaml",
    "snapshot-crds.yaml",
];

/// Resolves the plan of a build of `options`, fetching the small files into `staging`. With a
/// lock, every tag, commit, file digest and image digest must be what the lock recorded.
pub async fn resolve(
    options: &Options,
    fetcher: &Fetcher,
    staging: &Staging,
    lock: Option<&Lock>,
) -> Result<Resolved> {
    let kubernetes = KubeVersion::parse(&options.kubernetes_version)
        .with_context(|| "KUBERNETES_VERSION (--kubernetes-version)".to_string())?;
    let k = bare(&kubernetes.to_string()).to_string();

    // The autoscaler and CCM releases (a lock's, when rebuilding from one).
    let reach = Reach {
        mirrors: fetcher.options().mirrors.clone(),
        client: fetcher.options().client.clone(),
        retry: fetcher.options().retry.clone(),
    };
    let (autoscaler_override, ccm_override) = match lock {
        Some(lock) => (
            Some(lock.plan.autoscaler.version.clone()),
            Some(lock.plan.ccm.tag.clone()),
        ),
        None => (
            options.autoscaler_version.clone(),
            options.ccm_version.clone(),
        ),
    };
    let releases = resolve_releases(
        &kubernetes,
        &TagSource::Repository(options.autoscaler_repo.clone()),
        &reach,
        autoscaler_override.as_deref(),
        ccm_override.as_deref(),
    )
    .await?;
    if let Some(lock) = lock
        && lock.plan.autoscaler.commit != releases.autoscaler.commit
    {
        bail!(
            "the lock pins {} to commit {}, but {} now points it at {}; the tag moved upstream",
            releases.autoscaler.tag,
            lock.plan.autoscaler.commit,
            reach.mirrors.rewrite(&options.autoscaler_repo),
            releases.autoscaler.commit
        );
    }
    let warnings = releases.warnings.clone();
    let autoscaler_image =
        ImageRef::parse(&releases.autoscaler.image).context("the autoscaler image")?;
    let ccm_image = ImageRef::parse(&releases.ccm.image).context("the CCM image")?;

    // Every file, the small ones first.
    let mut small: Vec<Source> = vec![
        sources::network(&options.network_yaml),
        sources::dashboard(&options.dashboard_yaml),
        sources::autoscaler(&releases.autoscaler.tag),
        sources::provider(&releases.ccm.tag),
    ];
    small.extend(sources::csi(&options.csi_version));
    small.extend(sources::kubelet_units(&k));
    let mut large = sources::kubernetes_binaries(&k, options.arch);
    large.push(sources::cni_plugins(&options.cni_version, options.arch));
    large.push(sources::crictl(&options.crictl_version, options.arch));
    if let Some(etcd) = &options.etcd_version {
        large.push(sources::etcd(etcd, options.arch));
    }
    if let Some(lock) = lock {
        for source in small.iter_mut().chain(large.iter_mut()) {
            let sha256 = lock.file_sha256(&source.iso_path).with_context(|| {
                format!(
                    "the lock has no digest for {}; write it again",
                    source.iso_path
                )
            })?;
            source.pin(sha256);
        }
    }

    // A kubeadm for the build host lists the images; when the host is the target, it is the
    // ISO's own kubeadm, fetched now instead of later.
    let host = Arch::host().context("this build host's architecture has no kubeadm release")?;
    let mut specs: Vec<_> = small.iter().map(|s| s.spec(staging.tree())).collect();
    let kubeadm_path;
    if host == options.arch {
        let index = large
            .iter()
            .position(|s| s.iso_path == "k8s/kubeadm")
            .context("the plan has no kubeadm")?;
        let kubeadm = large.remove(index);
        kubeadm_path = staging.tree().join(&kubeadm.iso_path);
        specs.push(kubeadm.spec(staging.tree()));
        small.push(kubeadm);
    } else {
        let mut host_kubeadm = sources::kubernetes_binary("kubeadm", &k, host);
        host_kubeadm.iso_path = format!("kubeadm-{}", host.go_name());
        kubeadm_path = staging.work().join(&host_kubeadm.iso_path);
        specs.push(host_kubeadm.spec(staging.work()));
    }
    for spec in &specs {
        if let Some(parent) = spec.dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
    }
    let mut fetched = Vec::new();
    for result in fetcher.fetch_all(&specs).await {
        fetched.push(result?);
    }
    // The host kubeadm is not part of the ISO.
    fetched.retain(|f| f.dest.starts_with(staging.tree()));

    // Pin the manifests, then list their images.
    let tree = staging.tree();
    edit(tree, "autoscaler.yaml", |text| {
        manifest::pin_autoscaler(text, &autoscaler_image)
    })?;
    edit(tree, "provider.yaml", |text| {
        manifest::pin_ccm(text, &ccm_image)
    })?;
    for name in ROOT_MANIFESTS {
        edit(tree, name, manifest::set_pull_policy)?;
    }
    let kubeadm_list = kubeadm_images(&kubeadm_path, &k)?;
    let mut lists = vec![("kubeadm", kubeadm_list)];
    for name in [
        "network.yaml",
        "dashboard.yaml",
        "autoscaler.yaml",
        "provider.yaml",
        "manifest.yaml",
    ] {
        let text = read(tree, name)?;
        let images =
            manifest::images(&text).with_context(|| format!("reading the images of {name}"))?;
        lists.push((name, images));
    }
    let mut images = plan_images(&lists)?;
    if let Some(lock) = lock {
        for image in &mut images {
            let digest = lock.image_digest(&image.reference).with_context(|| {
                format!(
                    "the lock has no digest for image {}; write it again",
                    image.reference
                )
            })?;
            image.digest = Some(digest.to_string());
        }
    }

    let mut files = small;
    files.extend(large);
    files.sort_by(|a, b| a.iso_path.cmp(&b.iso_path));
    let plan = Plan {
        kubernetes: k,
        cni_plugins: format!("v{}", bare(&options.cni_version)),
        crictl: format!("v{}", bare(&options.crictl_version)),
        csi_driver: format!("v{}", bare(&options.csi_version)),
        etcd: options
            .etcd_version
            .as_deref()
            .map(|e| format!("v{}", bare(e))),
        arch: options.arch,
        autoscaler: releases.autoscaler,
        ccm: releases.ccm,
        files,
        images,
        iso: options.iso_path(),
        volume_id: options.volume_id.clone(),
        warnings,
    };
    Ok(Resolved { plan, fetched })
}

fn read(tree: &Path, name: &str) -> Result<String> {
    let path = tree.join(name);
    std::fs::read_to_string(&path).with_context(|| format!("reading {name} (is it UTF-8 text?)"))
}

/// Applies a text edit to a manifest of the tree, in place and atomically.
fn edit<E>(tree: &Path, name: &str, change: impl Fn(&str) -> Result<String, E>) -> Result<()>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let text = read(tree, name)?;
    let edited = change(&text).with_context(|| format!("editing {name}"))?;
    if edited != text {
        write_atomically(&tree.join(name), edited.as_bytes())?;
    }
    Ok(())
}
