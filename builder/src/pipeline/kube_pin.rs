//! `KUBERNETES_VERSION` given as a minor (`1.33`) or `stable`: resolved once from the release
//! server (through the mirrors, bounded by the `answer` limit), or taken from the lock with
//! `--locked` (which asks upstream nothing), then pinned into the inputs so that the plan,
//! `versions.txt` and the lock all hold the exact release.

use anyhow::{Context, Result, bail};
use cks_pinning::kube_request::KubeRequest;
use cks_pinning::version::KubeVersion;

use super::lock::Lock;
use super::options::Inputs;
use super::run::fetch_options;
use crate::fetch::Fetcher;

/// The release server whose `release/stable*.txt` answers name the newest releases.
pub const RELEASE_SERVER: &str = "https://dl.k8s.io";

/// The input that names the version, for errors.
const INPUT: &str = "KUBERNETES_VERSION (--kubernetes-version)";

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

/// Resolves `inputs`' Kubernetes version when it is a minor or `stable` and writes the exact
/// release back into `inputs`; `None` when it was exact (or not given: the options say so).
pub async fn pin_kubernetes(inputs: &mut Inputs, lock: Option<&Lock>) -> Result<Option<KubePin>> {
    let Some(text) = inputs.kubernetes_version.clone() else {
        return Ok(None);
    };
    // The typed error stays in the chain: the CLI exits 2 for it, as for any bad input.
    let request = KubeRequest::parse(&text)
        .map_err(anyhow::Error::new)
        .context(INPUT)?;
    let Some(path) = request.marker_path() else {
        return Ok(None);
    };
    let (version, source) = match lock {
        Some(lock) => (locked_version(&request, lock)?, "the lock".to_string()),
        None => {
            let fetcher = probe_fetcher(inputs, &request)?;
            let url = format!("{RELEASE_SERVER}/{path}");
            (read_release(&fetcher, &request, &url).await?, url)
        }
    };
    inputs.kubernetes_version = Some(version.to_string());
    Ok(Some(KubePin {
        request,
        version,
        source,
    }))
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

/// A fetcher with the build's mirrors, CA files and limits (the other inputs checked as they
/// will be for the build itself; crictl and CNI, chosen after the Kubernetes release when left
/// out, need not be given yet).
pub fn probe_fetcher(inputs: &Inputs, request: &KubeRequest) -> Result<Fetcher> {
    let mut probe = inputs.clone();
    // Any exact release stands in while the other inputs are read.
    let stand_in = match request {
        KubeRequest::Minor { major, minor } => format!("{major}.{minor}.0"),
        _ => "1.0.0".to_string(),
    };
    probe.kubernetes_version = Some(stand_in);
    probe
        .crictl_version
        .get_or_insert_with(|| "1.0.0".to_string());
    probe.cni_version.get_or_insert_with(|| "1.0.0".to_string());
    let options = probe.resolve()?;
    Ok(Fetcher::new(fetch_options(&options)?)?)
}
