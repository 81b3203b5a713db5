//! What CloudStack reports about a cluster's VMs, volumes, offerings and affinity groups.

use cks_discovery::node_type::NodeType;
use serde::{Deserialize, Serialize};

/// The power state of a VM as CloudStack reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VmState {
    /// Running.
    Running,
    /// Stopped.
    Stopped,
    /// Starting (an async start job is in progress).
    Starting,
    /// Stopping (an async stop job is in progress).
    Stopping,
    /// Any other state (Error, Migrating, Destroyed, ...), with CloudStack's name for it.
    Other(String),
}

/// One VM of the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vm {
    /// CloudStack VM id (uuid).
    pub id: String,
    /// CloudStack VM name.
    pub name: String,
    /// The Kubernetes node name of this VM (its hostname); for external etcd nodes, the etcd
    /// member name.
    pub node_name: String,
    /// The node type, from the cluster's VM map.
    pub node_type: NodeType,
    /// Power state.
    pub state: VmState,
    /// Current service offering id.
    pub service_offering_id: String,
    /// Current affinity group ids (including any explicit dedication group).
    pub affinity_group_ids: Vec<String>,
    /// The VM's IP addresses (its NICs): how its etcd member is told apart from the others.
    #[serde(default)]
    pub ip_addresses: Vec<String>,
}

/// Whether a volume is the VM's root disk or a data disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VolumeKind {
    /// The root disk.
    Root,
    /// A data disk.
    DataDisk,
}

/// A volume attached to a VM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volume {
    /// CloudStack volume id.
    pub id: String,
    /// The VM it is attached to.
    pub vm_id: String,
    /// Root or data disk.
    pub kind: VolumeKind,
    /// Size in GB (GiB, as CloudStack's `size` / 2^30).
    pub size_gb: u64,
    /// The disk offering the volume was created from, when known.
    pub disk_offering_id: Option<String>,
}

/// A compute (service) offering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceOffering {
    /// Offering id.
    pub id: String,
    /// Offering name.
    pub name: String,
    /// Number of vCPUs.
    pub cpu_cores: u32,
    /// Memory in MiB.
    pub memory_mb: u64,
    /// True for a custom (dynamic) offering whose CPU and memory are chosen per VM.
    #[serde(default)]
    pub customized: bool,
    /// True for an offering CloudStack marks Inactive: nodes may still run on it, none may
    /// move onto it.
    #[serde(default)]
    pub inactive: bool,
}

/// A disk offering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskOffering {
    /// Offering id.
    pub id: String,
    /// Offering name.
    pub name: String,
    /// Size in GB; 0 for a custom-size offering.
    pub size_gb: u64,
    /// True when the size is chosen per volume (`iscustomized`).
    pub customized: bool,
}

impl DiskOffering {
    /// True when volumes of this offering have a strictly fixed size and cannot be resized.
    pub fn is_fixed_size(&self) -> bool {
        !self.customized && self.size_gb > 0
    }
}

/// The CloudStack affinity group type of explicit dedication, which CKS adds itself.
pub const EXPLICIT_DEDICATION: &str = "ExplicitDedication";

/// An affinity group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AffinityGroup {
    /// Group id.
    pub id: String,
    /// Group name.
    pub name: String,
    /// Group type (`host anti-affinity`, `host affinity`, `ExplicitDedication`, ...).
    pub kind: String,
}

impl AffinityGroup {
    /// True for an explicit dedication group: never compared, never removed, never requested.
    pub fn is_dedication(&self) -> bool {
        self.kind == EXPLICIT_DEDICATION
    }
}

/// The CKS cluster as CloudStack itself reports it (`listKubernetesClusters`): CloudStack knows
/// nothing of a rollout's `Updating`, so its own operations (scale, upgrade, stop) may start
/// meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CksCluster {
    /// Cluster id.
    pub id: String,
    /// CloudStack's state name (`Running`, `Alert`, `Scaling`, `Upgrading`, ...).
    pub state: String,
    /// The ids of the cluster's VMs.
    pub vm_ids: Vec<String>,
    /// The cluster's Kubernetes version id, when listed.
    pub kubernetes_version_id: Option<String>,
    /// The cluster's default service offering (`serviceofferingid`).
    #[serde(default)]
    pub service_offering_id: String,
    /// The cluster's `autoscalingenabled`.
    #[serde(default)]
    pub autoscaling_enabled: bool,
}

impl CksCluster {
    /// True when CloudStack runs no operation of its own on the cluster (Running or Alert).
    pub fn allows_rollout(&self) -> bool {
        matches!(self.state.as_str(), "Running" | "Alert")
    }
}

/// A Kubernetes version CKS supports (`listKubernetesSupportedVersions`), with the smallest node
/// it allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubernetesVersion {
    /// Version id.
    pub id: String,
    /// Version name (`1.31.4`).
    pub name: String,
    /// `mincpunumber`.
    pub min_cpu: u32,
    /// `minmemory` (MiB).
    pub min_memory_mb: u64,
}

/// A CloudStack release, `major.minor` of `cloudstackversion` (`4.21.0.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CloudStackVersion {
    /// The major number (4).
    pub major: u32,
    /// The minor number (21).
    pub minor: u32,
}

impl CloudStackVersion {
    /// The first release whose size-only `scaleKubernetesCluster` fails while a node is off the
    /// cluster's default offering (apache/cloudstack#11994).
    pub const RISKY_SINCE: CloudStackVersion = CloudStackVersion {
        major: 4,
        minor: 21,
    };

    /// Parses `4.21.0.0` (or `4.21.0.0-SNAPSHOT`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split(['.', '-']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(CloudStackVersion { major, minor })
    }
}

impl std::fmt::Display for CloudStackVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
