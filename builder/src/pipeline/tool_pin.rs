//! CRICTL_VERSION and CNI_VERSION when not given: the newest cri-tools release of the Kubernetes
//! minor and the newest CNI plugins release, from their repositories' tags (git ls-remote, through
//! the mirrors, as the autoscaler's tags are read), handed on typed so that the plan,
//! `versions.txt` and the lock hold them (`--locked` takes the lock's and resolves nothing).
//! ETCD_VERSION `kubeadm` is chosen later, when kubeadm lists its images (`resolve`); here is
//! the line that reports it.

use anyhow::{Context, Result};
use cks_pinning::autoscaler::RemoteTags;
use cks_pinning::release::{ReleaseVersion, bare};
use cks_pinning::tool_release::newest_release;
use cks_pinning::version::KubeVersion;

use super::options::Options;
use super::plan::Plan;
use crate::fetch::Fetcher;
use crate::git::{LsRemoteOptions, ls_remote_tags_with};

/// The repository whose tags name the cri-tools (crictl) releases.
pub const CRI_TOOLS_REPO: &str = "https://github.com/kubernetes-sigs/cri-tools.git";
/// The repository whose tags name the CNI plugins releases.
pub const CNI_PLUGINS_REPO: &str = "https://github.com/containernetworking/plugins.git";

/// The crictl and CNI releases of a build, with one line for each one chosen here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// The crictl release.
    pub crictl: ReleaseVersion,
    /// The CNI plugins release.
    pub cni: ReleaseVersion,
    /// `crictl: 1.33.0 (newest at URL)` for each release chosen, for the build's output.
    pub lines: Vec<String>,
}

/// The crictl and CNI releases: each as given, or (left out) the newest of its repository's
/// tags for `kubernetes`' minor, listed with `fetcher` (made when first needed; both listings
/// at once).
pub async fn pin_tools(
    kubernetes: &KubeVersion,
    crictl: Option<ReleaseVersion>,
    cni: Option<ReleaseVersion>,
    fetcher: impl FnOnce() -> Result<Fetcher>,
) -> Result<Tools> {
    if let (Some(crictl), Some(cni)) = (&crictl, &cni) {
        return Ok(Tools {
            crictl: crictl.clone(),
            cni: cni.clone(),
            lines: Vec::new(),
        });
    }
    let fetcher = fetcher()?;
    let reach = LsRemoteOptions {
        client: fetcher.options().client.clone(),
        retry: fetcher.options().retry.clone(),
    };
    let mirrors = fetcher.options().mirrors.clone();
    let wanted = [
        (
            crictl.is_none(),
            CRI_TOOLS_REPO,
            Some((kubernetes.major, kubernetes.minor)),
            "crictl",
        ),
        (cni.is_none(), CNI_PLUGINS_REPO, None, "cni-plugins"),
    ];
    // Both repositories are listed at once: neither answer waits for the other.
    let listings = wanted
        .iter()
        .filter(|(missing, ..)| *missing)
        .map(|&(_, repo, minor, name)| {
            let url = mirrors.rewrite(repo);
            let reach = &reach;
            async move {
                let text = ls_remote_tags_with(&url, reach)
                    .await
                    .with_context(|| format!("listing the {name} release tags at {url}"))?;
                anyhow::Ok((url, text, minor, name))
            }
        });
    let (mut crictl, mut cni, mut lines) = (crictl, cni, Vec::new());
    for (url, text, minor, name) in futures_util::future::try_join_all(listings).await? {
        let tags = RemoteTags::parse(&text)
            .with_context(|| format!("reading the {name} release tags from {url}"))?;
        drop(text);
        let release = newest_release(&tags, minor).with_context(|| match minor {
            Some((major, minor)) => format!(
                "{url} has no {name} release v{major}.{minor}.<patch>; give the version (--crictl-version)"
            ),
            None => format!("{url} has no {name} release v<major>.<minor>.<patch>; give the version (--cni-version)"),
        })?;
        lines.push(format!("{name}: {} (newest at {url})", release.bare()));
        match name {
            "crictl" => crictl = Some(release),
            _ => cni = Some(release),
        }
    }
    Ok(Tools {
        crictl: crictl.context("no crictl release was chosen")?,
        cni: cni.context("no CNI plugins release was chosen")?,
        lines,
    })
}

/// The line that says which etcd kubeadm's image list chose (`--etcd-version kubeadm`), for the
/// build's output; `None` when etcd was given or not asked for.
pub fn kubeadm_etcd_line(options: &Options, plan: &Plan) -> Option<String> {
    let etcd = plan.etcd.as_deref().filter(|_| options.etcd_from_kubeadm)?;
    Some(format!(
        "etcd: {} (the etcd kubeadm {} names in `config images list`)",
        bare(etcd),
        options.kubernetes_version.with_v()
    ))
}
