//! The first phase of a build: resolve every version, tag, URL and image reference. Only the
//! manifests, the kubelet units and a kubeadm for the build host (to list the images) are
//! downloaded here (the other large files may be coming meanwhile: [`head_start_specs`]); the
//! plan that comes out says everything the second phase will fetch.
//!
//! kubeadm runs only once it is verified: its digest against the publisher's checksum (or the
//! lock) as it downloads, then its signature ([`Verifier::check_before_running`]); it runs
//! confined either way, and under `--signatures warn` an unverified one is named in a warning
//! saying how it ran.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use cks_pinning::arch::Arch;
use cks_pinning::image::PlannedImage;
use cks_pinning::release::ReleaseVersion;
use cks_pinning::sources::{Source, urls};
use cks_pinning::tool_release::kubeadm_etcd;

use super::head_start::Go;
use super::kubeadm::kubeadm_images;
use super::lock::Lock;
use super::lookups::{Looked, look_up};
use super::manifests::{check_manifests, image_plan, pin_manifests};
use super::near_end::NearEnd;
use super::options::Options;
use super::plan::{HeadlampPin, Plan};
use super::releases::{Reach, Releases, TagSource, resolve_releases};
use super::sources::{create_parents, file_spec};
use super::staging::Staging;
use crate::fetch::{FetchedFile, Fetcher, FileSpec};
use crate::upstream_signatures::{Cleared, SignatureMaterial, Verifier};

/// The plan and the files the first phase already fetched into the tree.
#[derive(Debug)]
pub struct Resolved {
    /// The plan.
    pub plan: Plan,
    /// Files fetched so far, in plan order.
    pub fetched: Vec<FetchedFile>,
    /// The signature material of every signed file of the plan, for the signature phase.
    pub material: SignatureMaterial,
}

/// Where the ISO keeps kubeadm.
const KUBEADM: &str = "k8s/kubeadm";

/// The large files a build can fetch before its plan is made (see [`super::head_start`]): those
/// whose URLs the inputs alone decide, pinned to the lock's digests with one, their folders in
/// `staging` made. The ISO's kubeadm is not among them: the plan fetches it to list the images.
pub fn head_start_specs(
    options: &Options,
    staging: &Staging,
    lock: Option<&Lock>,
) -> Result<Vec<FileSpec>> {
    let specs: Vec<_> = large_sources(options, lock)?
        .iter()
        .filter(|s| s.iso_path != KUBEADM)
        .map(|s| file_spec(s, staging.tree()))
        .collect();
    create_parents(&specs)?;
    Ok(specs)
}

/// Resolves the plan of a build of `options`, fetching the small files into `staging`. With a
/// lock, every tag, commit, file digest and image digest must be what the lock recorded. The
/// signature material of every Kubernetes binary is fetched here too (kubeadm's is checked
/// before it runs) and handed on in [`Resolved::material`]. `go`, when there is a head start,
/// is told once kubeadm is in.
pub async fn resolve(
    options: &Options,
    fetcher: &Fetcher,
    staging: &Staging,
    lock: Option<&Lock>,
    signatures: &Verifier,
    go: Option<Go>,
) -> Result<Resolved> {
    let mut large = large_sources(options, lock)?;
    let kubeadm = HostKubeadm::choose(&mut large, options, staging)?;
    let scratch = staging.work().join("signatures");
    // Everything the inputs alone name is asked for at once: the tags, the small files that
    // need no tag, every binary's signature material (kubeadm's first) and kubeadm itself.
    let signed = signatures.signed(
        &std::iter::once(kubeadm.source.clone())
            .chain(large.iter().cloned())
            .collect::<Vec<_>>(),
    );
    let early = small_sources(options, None, lock)?;
    let early_specs: Vec<_> = early.iter().map(|s| file_spec(s, staging.tree())).collect();
    create_parents(&early_specs)?;
    let lookups = look_up(fetcher, &early_specs, &signed, &scratch);
    // The manifests that name a release wait for the tags.
    let releases_and_late = async {
        let releases = choose_releases(options, fetcher, lock).await?;
        let late: Vec<_> = small_sources(options, Some(&releases), lock)?
            .into_iter()
            .filter(|s| !early.iter().any(|e| e.iso_path == s.iso_path))
            .collect();
        let fetched = fetch_small_files(&late, fetcher, staging).await?;
        anyhow::Ok((releases, fetched))
    };
    // The largest file of this phase: the head start waits for it, so it has the link, and
    // goes when it is near its end (its new connections fill the link as kubeadm's last bytes
    // arrive), or at its end.
    let kubeadm_file = async {
        create_parents(std::slice::from_ref(&kubeadm.spec))?;
        let near_end = NearEnd::new(&kubeadm.spec.name, go);
        let file = fetcher
            .also_telling(near_end.clone())
            .fetch(&kubeadm.spec)
            .await;
        near_end.now();
        anyhow::Ok(file?)
    };
    // Boxed: the plan's future stays small (a build's future lives on the caller's stack).
    let (looked, (releases, late_fetched), kubeadm_file) = tokio::try_join!(
        Box::pin(async { anyhow::Ok(lookups.await?) }),
        Box::pin(releases_and_late),
        Box::pin(kubeadm_file)
    )?;
    let Looked {
        files: mut fetched_by_name,
        mut material,
    } = looked;
    fetched_by_name.extend(late_fetched);
    // The small files in the plan's order (the tags' manifests among the others).
    let mut small = small_sources(options, Some(&releases), lock)?;
    let mut fetched = Vec::new();
    for source in &small {
        if let Some(index) = fetched_by_name
            .iter()
            .position(|f| f.name == source.iso_path)
        {
            fetched.push(fetched_by_name.swap_remove(index));
        }
    }
    let cleared = Box::pin(signatures.check_before_running(
        &kubeadm.source,
        &kubeadm_file,
        &mut material,
        fetcher,
        &scratch,
    ))
    .await?;
    let kubeadm_url = kubeadm_file.url_used.clone();
    if let Some(source) = kubeadm.in_tree {
        // The ISO's own kubeadm: fetched with the small files, not later.
        small.push(source);
        fetched.push(kubeadm_file);
    }
    let headlamp = headlamp_pin(options)?;
    // Checking and editing the manifests and running kubeadm block: off the async path, so
    // nothing (Ctrl-C included) waits on them.
    let (tree, kubeadm_path) = (staging.tree().to_path_buf(), kubeadm.path.clone());
    let (planning, owned_lock, pin) = (options.clone(), lock.cloned(), headlamp.clone());
    let (hold, work) = (staging.hold(), staging.work().to_path_buf());
    let (releases, images, fetched, etcd, how) = tokio::task::spawn_blocking(move || {
        let _hold = hold;
        let mut fetched = fetched;
        check_manifests(&tree, &fetched)?;
        pin_manifests(&tree, &releases, pin.as_ref(), &mut fetched)?;
        let listed = kubeadm_images(&kubeadm_path, &planning.kubernetes_version, &work)?;
        let etcd = kubeadm_etcd_choice(&planning, &listed.images)?;
        let images = image_plan(&tree, listed.images, owned_lock.as_ref())?;
        anyhow::Ok((releases, images, fetched, etcd, listed.how))
    })
    .await
    .context("the planning task stopped")??;
    if let Some(etcd) = &etcd {
        let mut source = vec![urls::etcd(etcd, options.arch)];
        pin_to_lock(&mut source, lock)?;
        large.extend(source);
    }
    let mut plan = assemble(options, releases, small, large, images);
    if etcd.is_some() {
        plan.etcd = etcd.map(|e| e.tag());
    }
    plan.headlamp = headlamp;
    // Why it is unverified is the signature phase's own warning on the file; this one says
    // that it ran, and how.
    if let Cleared::Unverified { .. } = cleared {
        plan.warnings.push(format!(
            "kubeadm ({kubeadm_url}) ran unverified to list the images, {how}"
        ));
    }
    Ok(Resolved {
        plan,
        fetched,
        material,
    })
}

/// The autoscaler and CCM releases (a lock's, when rebuilding from one, whose tag must still
/// point at the commit it recorded).
async fn choose_releases(
    options: &Options,
    fetcher: &Fetcher,
    lock: Option<&Lock>,
) -> Result<Releases> {
    let reach = Reach {
        mirrors: fetcher.options().mirrors.clone(),
        client: fetcher.options().client.clone(),
        retry: fetcher.options().retry.clone(),
    };
    // With a cache registry, a lock's releases are taken as it recorded them: the lock is the
    // record, and upstream is not asked (a build from a lock asks upstream for nothing).
    if let Some(lock) = lock
        && options.cache_registry.is_some()
    {
        return Ok(Releases {
            autoscaler: lock.plan.autoscaler.clone(),
            ccm: lock.plan.ccm.clone(),
            warnings: lock.plan.warnings.clone(),
        });
    }
    let (autoscaler, ccm) = match lock {
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
        &options.kubernetes_version,
        &TagSource::Repository(options.autoscaler_repo.clone()),
        &reach,
        autoscaler.as_deref(),
        ccm.as_deref(),
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
    Ok(releases)
}

/// The small files of the ISO (fetched while planning): the manifests and the kubelet units;
/// with a lock, each pinned to the digest the lock recorded. Without the `releases`, those
/// whose URL names none (the autoscaler's and CCM's manifests are left out).
fn small_sources(
    options: &Options,
    releases: Option<&Releases>,
    lock: Option<&Lock>,
) -> Result<Vec<Source>> {
    let mut small: Vec<Source> = vec![urls::network(&options.network_yaml)];
    small.extend(options.dashboard_yaml.as_deref().map(urls::dashboard));
    small.extend(options.headlamp.as_ref().map(urls::headlamp));
    if let Some(releases) = releases {
        small.push(urls::autoscaler(&releases.autoscaler.tag));
        small.push(urls::provider(&releases.ccm.tag));
    }
    small.extend(urls::csi(&options.csi_version));
    small.extend(urls::kubelet_units(&options.kubernetes_version));
    pin_to_lock(&mut small, lock)?;
    Ok(small)
}

/// The large files of the ISO (the binaries and tarballs, fetched after planning); with a
/// lock, each pinned to the digest the lock recorded.
fn large_sources(options: &Options, lock: Option<&Lock>) -> Result<Vec<Source>> {
    let mut large = urls::kubernetes_binaries(&options.kubernetes_version, options.arch);
    large.push(urls::cni_plugins(&options.cni_version, options.arch));
    large.push(urls::crictl(&options.crictl_version, options.arch));
    if let Some(etcd) = &options.etcd_version {
        large.push(urls::etcd(etcd, options.arch));
    }
    pin_to_lock(&mut large, lock)?;
    Ok(large)
}

fn pin_to_lock(sources: &mut [Source], lock: Option<&Lock>) -> Result<()> {
    let Some(lock) = lock else {
        return Ok(());
    };
    for source in sources {
        let sha256 = lock.file_sha256(&source.iso_path).with_context(|| {
            format!(
                "the lock has no digest for {}; write it again",
                source.iso_path
            )
        })?;
        source.pin(sha256);
    }
    Ok(())
}

/// The kubeadm that lists the images: when the build host is the target, the ISO's own
/// (taken out of the large files, to be fetched while planning); otherwise one for the host,
/// outside the tree.
struct HostKubeadm {
    spec: FileSpec,
    path: PathBuf,
    /// Where it comes from.
    source: Source,
    /// The ISO's kubeadm, when it is the one.
    in_tree: Option<Source>,
}

impl HostKubeadm {
    fn choose(large: &mut Vec<Source>, options: &Options, staging: &Staging) -> Result<Self> {
        let host = Arch::host().context("this build host's architecture has no kubeadm release")?;
        if host == options.arch {
            let index = large
                .iter()
                .position(|s| s.iso_path == KUBEADM)
                .context("the plan has no kubeadm")?;
            let kubeadm = large.remove(index);
            return Ok(Self {
                spec: file_spec(&kubeadm, staging.tree()),
                path: staging.tree().join(&kubeadm.iso_path),
                source: kubeadm.clone(),
                in_tree: Some(kubeadm),
            });
        }
        let mut host_kubeadm =
            urls::kubernetes_binary("kubeadm", &options.kubernetes_version, host);
        host_kubeadm.iso_path = format!("kubeadm-{}", host.go_name());
        Ok(Self {
            spec: file_spec(&host_kubeadm, staging.work()),
            path: staging.work().join(&host_kubeadm.iso_path),
            source: host_kubeadm,
            in_tree: None,
        })
    }
}

/// Fetches the small files into the tree.
async fn fetch_small_files(
    small: &[Source],
    fetcher: &Fetcher,
    staging: &Staging,
) -> Result<Vec<FetchedFile>> {
    let specs: Vec<_> = small.iter().map(|s| file_spec(s, staging.tree())).collect();
    create_parents(&specs)?;
    let mut fetched = Vec::new();
    for result in fetcher.fetch_all(&specs).await {
        fetched.push(result?);
    }
    Ok(fetched)
}

/// The Headlamp release's pin: its manifest URL and its own image tag.
fn headlamp_pin(options: &Options) -> Result<Option<HeadlampPin>> {
    let Some(version) = &options.headlamp else {
        return Ok(None);
    };
    Ok(Some(HeadlampPin {
        url: version.manifest_url(),
        image: version.image().context("naming the Headlamp image")?,
        version: version.clone(),
    }))
}

/// The etcd release to bundle when it is asked for as the one kubeadm uses (`--etcd-version
/// kubeadm`): the `etcd:<version>-<n>` of kubeadm's image list.
fn kubeadm_etcd_choice(options: &Options, listed: &[String]) -> Result<Option<ReleaseVersion>> {
    if !options.etcd_from_kubeadm {
        return Ok(None);
    }
    match kubeadm_etcd(listed) {
        Some(etcd) => Ok(Some(etcd)),
        None => bail!(
            "kubeadm {} names no etcd image (etcd:<version>-<n>) in `config images list`, so \
             ETCD_VERSION kubeadm has no version to take; give one (--etcd-version 3.5.21)",
            options.kubernetes_version.with_v()
        ),
    }
}

/// The plan: the releases, every file in ISO path order, the images.
fn assemble(
    options: &Options,
    releases: Releases,
    small: Vec<Source>,
    large: Vec<Source>,
    images: Vec<PlannedImage>,
) -> Plan {
    let mut all = small;
    all.extend(large);
    all.sort_by(|a, b| a.iso_path.cmp(&b.iso_path));
    Plan {
        kubernetes: options.kubernetes_version,
        cni_plugins: options.cni_version.tag(),
        crictl: options.crictl_version.tag(),
        csi_driver: options.csi_version.tag(),
        etcd: options.etcd_version.as_ref().map(|e| e.tag()),
        arch: options.arch,
        autoscaler: releases.autoscaler,
        ccm: releases.ccm,
        headlamp: None,
        cloudstack: options.cloudstack,
        files: all,
        images,
        iso: options.iso_path(),
        volume_id: options.volume_id.clone(),
        warnings: releases.warnings,
    }
}
