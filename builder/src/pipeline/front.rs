//! The build's front stage: the command line, the environment, the config file and the lock,
//! merged as [`Inputs`], become typed [`Options`] once. Every input but the versions is checked
//! before a server is asked anything; the Kubernetes version is parsed once, a minor or
//! `stable` pinned from the lock or the release server, crictl and CNI left out chosen from
//! their tags, `--etcd-version kubeadm` taken from the lock's plan; the pinned versions go on
//! typed, never back through text. The inputs the lock records say the same releases.

use anyhow::{Context, Result};
use cks_pinning::kube_request::KubeRequest;
use cks_pinning::release::{ReleaseVersion, bare};
use cks_pinning::version::KubeVersion;

use super::kube_pin::{INPUT, pin_kubernetes};
use super::lock::Lock;
use super::options::{EtcdAsked, Inputs, Options, Versions};
use super::tool_pin::pin_tools;
use crate::fetch::{FetchOptions, Fetcher};

/// A build's inputs, resolved.
#[derive(Debug, Clone)]
pub struct Front {
    /// The typed options the build runs with.
    pub options: Options,
    /// The inputs the lock records: as given, with each release pinned here written in.
    pub inputs: Inputs,
}

/// Resolves `inputs` (with the `lock` of a `--locked` build), saying each release it chooses
/// through `say` as it is chosen (`kubernetes: 1.33 -> 1.33.13 (from URL)`).
pub async fn front(inputs: Inputs, lock: Option<&Lock>, say: &dyn Fn(&str)) -> Result<Front> {
    inputs.first_missing()?;
    let text = inputs.kubernetes_version.as_deref().unwrap_or_default();
    // The typed error stays in the chain: the CLI exits 2 for it, as for any bad input.
    let request = KubeRequest::parse(text)
        .map_err(anyhow::Error::new)
        .context(INPUT)?;
    let reach = inputs.reach()?;
    let kubernetes = match request {
        KubeRequest::Exact(version) => Kubernetes::Given(version),
        request => {
            let pin = pin_kubernetes(request, lock, || fetcher(&reach)).await?;
            say(&pin.line());
            Kubernetes::Pinned(pin.version)
        }
    };
    with_kubernetes(inputs, kubernetes, lock, reach, say).await
}

/// How the Kubernetes release of a build was had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kubernetes {
    /// Given exact in the inputs (their text is what the lock records).
    Given(KubeVersion),
    /// Pinned from a minor or `stable` (`cks-iso release` pins one per minor).
    Pinned(KubeVersion),
}

/// Resolves `inputs` for the Kubernetes release `kubernetes`; `reach` is [`Inputs::reach`]'s
/// answer.
pub async fn with_kubernetes(
    mut inputs: Inputs,
    kubernetes: Kubernetes,
    lock: Option<&Lock>,
    reach: FetchOptions,
    say: &dyn Fn(&str),
) -> Result<Front> {
    let kubernetes = match kubernetes {
        Kubernetes::Given(version) => version,
        Kubernetes::Pinned(version) => {
            inputs.kubernetes_version = Some(version.to_string());
            version
        }
    };
    let (crictl, cni) = inputs.tools_given()?;
    let (crictl_given, cni_given) = (crictl.is_some(), cni.is_some());
    let tools = pin_tools(&kubernetes, crictl, cni, || fetcher(&reach)).await?;
    for line in &tools.lines {
        say(line);
    }
    if !crictl_given {
        inputs.crictl_version = Some(tools.crictl.bare().to_string());
    }
    if !cni_given {
        inputs.cni_version = Some(tools.cni.bare().to_string());
    }
    let (etcd, etcd_from_kubeadm) = match inputs.etcd_asked()? {
        EtcdAsked::None => (None, false),
        EtcdAsked::Release(release) => (Some(release), false),
        // A locked build resolves nothing again: the etcd the lock's plan recorded.
        EtcdAsked::FromKubeadm => match lock.and_then(|lock| lock.plan.etcd.as_deref()) {
            Some(recorded) => {
                let release = locked_etcd(recorded)?;
                inputs.etcd_version = Some(release.bare().to_string());
                (Some(release), false)
            }
            None => (None, true),
        },
    };
    let versions = Versions {
        kubernetes,
        crictl: tools.crictl,
        cni: tools.cni,
        etcd,
        etcd_from_kubeadm,
    };
    let options = inputs.clone().resolve_with(versions)?;
    Ok(Front { options, inputs })
}

/// The downloader the release server and the tags are read with.
fn fetcher(reach: &FetchOptions) -> Result<Fetcher> {
    Ok(Fetcher::new(reach.clone())?)
}

/// The etcd release a lock's plan recorded.
fn locked_etcd(recorded: &str) -> Result<ReleaseVersion> {
    ReleaseVersion::parse(bare(recorded)).map_err(|_| {
        anyhow::anyhow!(
            "the lock's etcd version {recorded:?} is not a release; write the lock again with --write-lock"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact() -> Inputs {
        Inputs {
            output_path: Some("out".into()),
            kubernetes_version: Some("v1.33.13".into()),
            cni_version: Some("1.6.2".into()),
            crictl_version: Some("v1.33.0".into()),
            network_yaml: Some("net.yaml".into()),
            dashboard_yaml: Some("dash.yaml".into()),
            build_name: Some("cks".into()),
            // Nothing listens here: a front stage that asked a server would fail.
            mirrors: vec!["https://dl.k8s.io=http://127.0.0.1:9".into()],
            ..Inputs::default()
        }
    }

    /// Exact releases are read once from their text and handed on typed: nothing is asked of
    /// a server, and the inputs the lock records are the ones given, in their own words.
    #[tokio::test]
    async fn exact_releases_ask_nothing_and_record_the_inputs_as_given() {
        let said = std::sync::Mutex::new(Vec::new());
        let say = |line: &str| said.lock().expect("lines").push(line.to_string());
        let front = front(exact(), None, &say).await.expect("resolved");
        assert_eq!(front.options.kubernetes_version.to_string(), "1.33.13");
        assert_eq!(front.options.crictl_version.bare(), "1.33.0");
        assert_eq!(front.inputs, exact(), "the lock records what was given");
        assert!(said.lock().expect("lines").is_empty(), "nothing was chosen");
    }

    /// Every input but the versions is checked before the release server is read: a bad
    /// build name with a minor fails on the build name, not on a server that does not answer.
    #[tokio::test]
    async fn a_bad_input_fails_before_a_minor_is_resolved() {
        let inputs = Inputs {
            kubernetes_version: Some("1.33".into()),
            build_name: Some("a/b".into()),
            ..exact()
        };
        let error = front(inputs, None, &|_| {})
            .await
            .expect_err("a bad build name");
        assert!(
            format!("{error:#}").contains("bad BUILD_NAME (--build-name) `a/b`"),
            "{error:#}"
        );
    }

    /// `cks-iso release` hands over the release it pinned: the lock records it, and the
    /// version input's text is not read.
    #[tokio::test]
    async fn a_pinned_release_is_recorded_for_the_lock() {
        let inputs = Inputs {
            kubernetes_version: None,
            ..exact()
        };
        let version = KubeVersion::parse("1.32.4").expect("a release");
        let reach = inputs.reach().expect("reach");
        let front = with_kubernetes(inputs, Kubernetes::Pinned(version), None, reach, &|_| {})
            .await
            .expect("resolved");
        assert_eq!(front.options.kubernetes_version, version);
        assert_eq!(front.inputs.kubernetes_version.as_deref(), Some("1.32.4"));
    }

    /// A malformed version names the input, as before anything else.
    #[tokio::test]
    async fn a_malformed_version_names_the_input() {
        let inputs = Inputs {
            kubernetes_version: Some("one.two".into()),
            ..exact()
        };
        let error = front(inputs, None, &|_| {}).await.expect_err("malformed");
        assert!(format!("{error:#}").starts_with(INPUT), "{error:#}");
    }
}
