//! The versions a build bundles, typed: read from the inputs' text when they are exact
//! releases ([`Inputs::resolve`]), or pinned by the front stage (a minor, `stable`, a version
//! left out) and handed over typed ([`Inputs::resolve_with`]).

use cks_pinning::release::ReleaseVersion;
use cks_pinning::tool_release::ETCD_FROM_KUBEADM;
use cks_pinning::version::KubeVersion;

use super::checked::need;
use super::{Inputs, OptionsError, release_version};

/// The versions of one build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    /// The Kubernetes release.
    pub kubernetes: KubeVersion,
    /// The crictl release.
    pub crictl: ReleaseVersion,
    /// The CNI plugins release.
    pub cni: ReleaseVersion,
    /// The etcd release to bundle, when one is given.
    pub etcd: Option<ReleaseVersion>,
    /// etcd is the one kubeadm names (`--etcd-version kubeadm`), learnt from its image list.
    pub etcd_from_kubeadm: bool,
}

/// What `--etcd-version` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EtcdAsked {
    /// No etcd.
    None,
    /// The one kubeadm names (`kubeadm`).
    FromKubeadm,
    /// This release.
    Release(ReleaseVersion),
}

impl Inputs {
    /// `--etcd-version` read once.
    pub fn etcd_asked(&self) -> Result<EtcdAsked, OptionsError> {
        match self.etcd_version.as_deref().filter(|v| !v.is_empty()) {
            None => Ok(EtcdAsked::None),
            Some(ETCD_FROM_KUBEADM) => Ok(EtcdAsked::FromKubeadm),
            Some(text) => Ok(EtcdAsked::Release(release_version(
                text.to_string(),
                "ETCD_VERSION (--etcd-version)",
            )?)),
        }
    }

    /// The crictl and CNI releases given (each `None` when left out).
    pub fn tools_given(
        &self,
    ) -> Result<(Option<ReleaseVersion>, Option<ReleaseVersion>), OptionsError> {
        let read = |value: &Option<String>, input: &str| {
            value
                .clone()
                .map(|text| release_version(text, input))
                .transpose()
        };
        Ok((
            read(&self.crictl_version, "CRICTL_VERSION (--crictl-version)")?,
            read(&self.cni_version, "CNI_VERSION (--cni-version)")?,
        ))
    }

    /// The versions as exact releases in the inputs' text, each required.
    pub(super) fn exact_versions(&self) -> Result<Versions, OptionsError> {
        let text = need(
            self.kubernetes_version.clone(),
            "KUBERNETES_VERSION (--kubernetes-version)",
            "1.33.13",
        )?;
        let kubernetes = KubeVersion::parse(&text).map_err(|e| OptionsError::Invalid {
            input: "KUBERNETES_VERSION (--kubernetes-version)".into(),
            value: text.clone(),
            expected: e.to_string(),
        })?;
        let cni = release_version(
            need(
                self.cni_version.clone(),
                "CNI_VERSION (--cni-version)",
                "1.6.2",
            )?,
            "CNI_VERSION (--cni-version)",
        )?;
        let crictl = release_version(
            need(
                self.crictl_version.clone(),
                "CRICTL_VERSION (--crictl-version)",
                "1.33.0",
            )?,
            "CRICTL_VERSION (--crictl-version)",
        )?;
        let etcd = self.etcd_asked()?;
        Ok(Versions {
            kubernetes,
            crictl,
            cni,
            etcd_from_kubeadm: etcd == EtcdAsked::FromKubeadm,
            etcd: match etcd {
                EtcdAsked::Release(release) => Some(release),
                _ => None,
            },
        })
    }
}
