//! The inputs of one build once every one is known and checked.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use cks_pinning::arch::Arch;
use cks_pinning::headlamp::HeadlampVersion;
use cks_pinning::limits::Limits;
use cks_pinning::node_contract::Target;
use cks_pinning::release::ReleaseVersion;
use cks_pinning::version::KubeVersion;

use crate::fetch::Mirrors;
use crate::pace::MinRate;
use crate::upstream_signatures::SignatureSettings;

/// The complete inputs of one build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Options {
    /// Folder the ISO is written to.
    pub output_path: PathBuf,
    /// Kubernetes version.
    pub kubernetes_version: KubeVersion,
    /// CNI plugins version.
    pub cni_version: ReleaseVersion,
    /// crictl version.
    pub crictl_version: ReleaseVersion,
    /// URL or local path of the network manifest.
    pub network_yaml: String,
    /// URL or local path of the dashboard manifest, when the legacy dashboard is bundled.
    pub dashboard_yaml: Option<String>,
    /// The Headlamp release, when Headlamp is bundled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headlamp: Option<HeadlampVersion>,
    /// The CloudStack lines the ISO must fit.
    #[serde(default)]
    pub cloudstack: Target,
    /// The ISO's base name.
    pub build_name: String,
    /// Target architecture.
    pub arch: Arch,
    /// etcd version to bundle, if any.
    pub etcd_version: Option<ReleaseVersion>,
    /// etcd is bundled in the version the release's kubeadm names (`--etcd-version kubeadm`),
    /// learnt when kubeadm lists its images.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub etcd_from_kubeadm: bool,
    /// CloudStack CSI driver release.
    pub csi_version: ReleaseVersion,
    /// Autoscaler release override.
    pub autoscaler_version: Option<String>,
    /// CCM tag override.
    pub ccm_version: Option<String>,
    /// Where the autoscaler's tags are listed.
    pub autoscaler_repo: String,
    /// File download mirrors.
    pub mirrors: Mirrors,
    /// Registry mirrors.
    pub registry_mirrors: Vec<String>,
    /// Plain-HTTP registries.
    pub insecure_registries: Vec<String>,
    /// Extra CA certificates.
    pub ca_file: Option<PathBuf>,
    /// Content cache folder.
    pub cache_dir: Option<PathBuf>,
    /// Shared content cache registry repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_registry: Option<String>,
    /// Transfers at a time.
    pub concurrency: usize,
    /// ISO volume identifier.
    pub volume_id: String,
    /// Fail on images for another platform.
    pub strict_platforms: bool,
    /// Fixed timestamps for the ISO.
    pub source_date_epoch: Option<i64>,
    /// How upstream signatures are checked.
    #[serde(default)]
    pub signatures: SignatureSettings,
    /// How much is read of each kind of input (`--limit`, `[limit]`).
    #[serde(skip)]
    pub limits: Limits,
    /// The fewest bytes every window of a transfer must bring (`--min-rate`).
    #[serde(skip)]
    pub min_rate: MinRate,
}

impl Options {
    /// The downloader's settings.
    pub fn fetch_options(&self) -> crate::fetch::FetchOptions {
        super::checked::fetch_settings(
            self.ca_file.as_deref(),
            self.limits,
            self.min_rate,
            self.mirrors.clone(),
            self.cache_dir.as_deref(),
            self.concurrency,
        )
    }

    /// The ISO's path: `<output>/<build name>-<x86_64|aarch64>.iso`, as the script names it.
    pub fn iso_path(&self) -> PathBuf {
        self.output_path.join(format!(
            "{}-{}.iso",
            self.build_name,
            self.arch.iso_suffix()
        ))
    }
}
