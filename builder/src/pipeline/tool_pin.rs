//! CRICTL_VERSION and CNI_VERSION when not given: the newest cri-tools release of the Kubernetes
//! minor and the newest CNI plugins release, from their repositories' tags (git ls-remote, through
//! the mirrors, as the autoscaler's tags are read), then pinned into the inputs so that the plan,
//! `versions.txt` and the lock hold them (`--locked` takes the lock's and resolves nothing).
//! ETCD_VERSION `kubeadm` is chosen later, when kubeadm lists its images (`resolve`); here is
//! the line that reports it and the lock's answer for a locked build.

use anyhow::{Context, Result};
use cks_pinning::autoscaler::RemoteTags;
use cks_pinning::kube_request::KubeRequest;
use cks_pinning::release::bare;
use cks_pinning::tool_release::{ETCD_FROM_KUBEADM, newest_release};

use super::kube_pin::probe_fetcher;
use super::lock::Lock;
use super::options::{Inputs, Options};
use super::plan::Plan;
use crate::git::{LsRemoteOptions, ls_remote_tags_with};

/// The repository whose tags name the cri-tools (crictl) releases.
pub const CRI_TOOLS_REPO: &str = "https://github.com/kubernetes-sigs/cri-tools.git";
/// The repository whose tags name the CNI plugins releases.
pub const CNI_PLUGINS_REPO: &str = "https://github.com/containernetworking/plugins.git";

/// Fills in CRICTL_VERSION and CNI_VERSION when `inputs` leave them out (KUBERNETES_VERSION
/// exact by now); one line per version chosen, for the build's output.
pub async fn pin_tools(inputs: &mut Inputs) -> Result<Vec<String>> {
    if inputs.crictl_version.is_some() && inputs.cni_version.is_some() {
        return Ok(Vec::new());
    }
    let Some(Ok(KubeRequest::Exact(kubernetes))) =
        inputs.kubernetes_version.as_deref().map(KubeRequest::parse)
    else {
        // The options name the missing or malformed version.
        return Ok(Vec::new());
    };
    let fetcher = probe_fetcher(inputs, &KubeRequest::Exact(kubernetes))?;
    let reach = LsRemoteOptions {
        client: fetcher.options().client.clone(),
        retry: fetcher.options().retry.clone(),
    };
    let mirrors = fetcher.options().mirrors.clone();
    let wanted = [
        (
            inputs.crictl_version.is_none(),
            CRI_TOOLS_REPO,
            Some((kubernetes.major, kubernetes.minor)),
            "crictl",
        ),
        (
            inputs.cni_version.is_none(),
            CNI_PLUGINS_REPO,
            None,
            "cni-plugins",
        ),
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
    let mut lines = Vec::new();
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
        let value = Some(release.bare().to_string());
        match name {
            "crictl" => inputs.crictl_version = value,
            _ => inputs.cni_version = value,
        }
    }
    Ok(lines)
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

/// With a lock, `--etcd-version kubeadm` takes the etcd the lock's plan recorded: a locked
/// build resolves nothing again.
pub fn etcd_from_lock(inputs: &mut Inputs, lock: Option<&Lock>) {
    let Some(etcd) = lock.and_then(|lock| lock.plan.etcd.as_deref()) else {
        return;
    };
    if inputs.etcd_version.as_deref() == Some(ETCD_FROM_KUBEADM) {
        inputs.etcd_version = Some(bare(etcd).to_string());
    }
}
