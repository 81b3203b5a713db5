//! `KUBERNETES_VERSION` given as a minor (`1.33`) or `stable`: resolved once from the release
//! server (through the mirrors, bounded by the `answer` limit), or taken from the lock with
//! `--locked` (which asks upstream nothing), so that the plan, `versions.txt` and the lock all
//! hold the exact release (the front stage, [`super::front`], hands it on typed).

use anyhow::{Context, Result, bail};
use cks_pinning::kube_request::KubeRequest;
use cks_pinning::version::KubeVersion;

use super::lock::Lock;
use crate::fetch::Fetcher;

/// The release server whose `release/stable*.txt` answers name the newest releases.
pub const RELEASE_SERVER: &str = "https://dl.k8s.io";

/// The input that names the version, for errors.
pub(super) const INPUT: &str = "KUBERNETES_VERSION (--kubernetes-version)";

/// How a requested version became a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubePin {
    /// What was asked for (`1.33`, `stable`).
    pub request: KubeRequest,
    /// The release it resolved to.
    pub version: KubeVersion,
    /// Where the answer came from: the URL read, or `the lock`.
    pub source: String,
}

impl KubePin {
    /// One line for the build's output: `kubernetes: 1.33 -> 1.33.13 (from URL)`.
    pub fn line(&self) -> String {
        format!(
            "kubernetes: {} -> {} (from {})",
            self.request, self.version, self.source
        )
    }
}

/// The release a minor or `stable` `request` names (an exact one is not asked for): the lock's (which must answer it), or
/// the release server's answer read with `fetcher` (made when first needed).
pub async fn pin_kubernetes(
    request: KubeRequest,
    lock: Option<&Lock>,
    fetcher: impl FnOnce() -> Result<Fetcher>,
) -> Result<KubePin> {
    let path = request
        .marker_path()
        .context("an exact Kubernetes release is not resolved")?;
    let (version, source) = match lock {
        Some(lock) => (locked_version(&request, lock)?, "the lock".to_string()),
        None => {
            let url = format!("{RELEASE_SERVER}/{path}");
            (read_release(&fetcher()?, &request, &url).await?, url)
        }
    };
    Ok(KubePin {
        request,
        version,
        source,
    })
}

/// The release `request` names on the release server at `url` (a mirror's, when one matches).
pub async fn read_release(
    fetcher: &Fetcher,
    request: &KubeRequest,
    url: &str,
) -> Result<KubeVersion> {
    let (used, body) = fetcher
        .read_answer(url)
        .await
        .with_context(|| format!("resolving Kubernetes {request} from {url}"))?;
    let text = String::from_utf8_lossy(&body);
    request.accept(&text).with_context(|| {
        format!(
            "resolving Kubernetes {request}: {used} did not answer with a release; check the release server or its --mirror, or give KUBERNETES_VERSION as `<major>.<minor>.<patch>`"
        )
    })
}

/// The lock's release, which must answer `request`.
fn locked_version(request: &KubeRequest, lock: &Lock) -> Result<KubeVersion> {
    let recorded = lock
        .inputs
        .kubernetes_version
        .as_deref()
        .context("the lock records no Kubernetes version; write it again with --write-lock")?;
    let version = KubeVersion::parse(recorded)
        .with_context(|| format!("the lock's Kubernetes version {recorded:?}"))?;
    if !request.admits(&version) {
        bail!(
            "{INPUT} asks for {request} but the lock holds Kubernetes {version}; give {version} or write a new lock"
        );
    }
    Ok(version)
}
