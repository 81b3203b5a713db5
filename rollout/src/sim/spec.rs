//! The simulator's cluster description: node types with counts and settings, per-node
//! overrides, pods and budgets, and the faults to inject. Loadable from YAML or JSON.

use crate::model::{AffinityGroup, ClusterState, DiskOffering, ServiceOffering, TypeSettings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn default_id() -> String {
    "cluster-1".to_string()
}
fn default_state() -> ClusterState {
    ClusterState::Running
}
fn default_disk() -> u64 {
    20
}
fn one() -> u32 {
    1
}
fn twenty() -> u64 {
    20
}
fn default_namespace() -> String {
    "default".to_string()
}

/// A simulated cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Cluster id.
    #[serde(default = "default_id")]
    pub id: String,
    /// Cluster name.
    #[serde(default = "default_id")]
    pub name: String,
    /// The cluster's own service offering id.
    pub service_offering: String,
    /// Every service offering of the zone.
    pub offerings: Vec<ServiceOffering>,
    /// Disk offerings.
    #[serde(default)]
    pub disk_offerings: Vec<DiskOffering>,
    /// Affinity groups.
    #[serde(default)]
    pub affinity_groups: Vec<AffinityGroup>,
    /// Control nodes (`c-1`, `c-2`, ...).
    pub control: NodeGroupSpec,
    /// Worker nodes (`w-1`, ...).
    pub workers: NodeGroupSpec,
    /// External etcd nodes (`e-1`, ...); absent: etcd stacked on the control nodes.
    #[serde(default)]
    pub etcd: Option<NodeGroupSpec>,
    /// Stored per-type settings before the call.
    #[serde(default)]
    pub settings: TypeSettings,
    /// Per-node differences from the group.
    #[serde(default)]
    pub nodes: Vec<NodeOverride>,
    /// Workloads.
    #[serde(default)]
    pub pods: Vec<PodSpec>,
    /// PodDisruptionBudgets.
    #[serde(default)]
    pub pdbs: Vec<PdbSpec>,
    /// Faults to inject.
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// The wall-clock time the simulation starts at (RFC 3339, e.g. `2026-12-07T21:30:00+01:00`;
    /// default the Unix epoch), for maintenance windows.
    #[serde(default)]
    pub clock_start: Option<String>,
    /// Nodes where `/var/run/reboot-required` exists (for `run --restart reboot-required`).
    #[serde(default)]
    pub reboot_required: Vec<String>,
    /// What the gate commands answer before which batch (absent: every gate exits 0 at once).
    #[serde(default)]
    pub gates: Vec<super::gates::GateSpec>,
    /// How long CloudStack's jobs take (absent: they finish as they are started).
    #[serde(default)]
    pub jobs: super::jobs::JobDurations,
    /// The cluster's state before the call.
    #[serde(default = "default_state")]
    pub state: ClusterState,
    /// The cluster's Kubernetes version as CloudStack lists it, with its node minimums
    /// (absent: CloudStack lists none, only the fixed minimums apply).
    #[serde(default)]
    pub kubernetes_version: Option<KubernetesVersionSpec>,
    /// The cluster's `autoscalingenabled` (default false).
    #[serde(default)]
    pub autoscaling: bool,
    /// The management server's release, `4.21.0.0` (absent: `listCapabilities` does not say,
    /// which counts as a release with the autoscaler risk).
    #[serde(default)]
    pub cloudstack_version: Option<String>,
}

/// The cluster's Kubernetes version (`listKubernetesSupportedVersions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubernetesVersionSpec {
    /// Version name, e.g. `1.31.4`.
    pub name: String,
    /// `mincpunumber`.
    pub min_cpu: u32,
    /// `minmemory` (MiB).
    pub min_memory_mb: u64,
}

/// The nodes of one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeGroupSpec {
    /// Number of nodes.
    pub count: u32,
    /// Offering id of the nodes (default: the cluster's).
    #[serde(default)]
    pub offering: Option<String>,
    /// Root disk size in GB (default 20).
    #[serde(default = "default_disk")]
    pub root_disk_gb: u64,
    /// Disk offering of the root disks.
    #[serde(default)]
    pub root_disk_offering: Option<String>,
    /// Affinity group ids of the nodes.
    #[serde(default)]
    pub affinity_groups: Vec<String>,
}

/// One node's differences from its group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeOverride {
    /// Node name (`c-1`, `w-3`, `e-2`).
    pub node: String,
    /// Offering id.
    #[serde(default)]
    pub offering: Option<String>,
    /// Root disk size (GB).
    #[serde(default)]
    pub root_disk_gb: Option<u64>,
    /// Affinity group ids.
    #[serde(default)]
    pub affinity_groups: Option<Vec<String>>,
    /// The VM is stopped.
    #[serde(default)]
    pub stopped: bool,
    /// The node is cordoned (by someone else, unless annotated).
    #[serde(default)]
    pub cordoned: bool,
    /// Node annotations (e.g. the rollout annotation of an earlier run).
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// The VM was started again moments ago and its kubelet has not posted yet: the node still
    /// reports Ready with its old boot ID until the boot finishes.
    #[serde(default)]
    pub restarting: bool,
    /// The VM's IP address (default `10.1.0.N`).
    #[serde(default)]
    pub ip: Option<String>,
    /// The name of the etcd member on this node (default: the node name).
    #[serde(default)]
    pub member_name: Option<String>,
    /// The address in the etcd member's URLs (default: the VM's IP address).
    #[serde(default)]
    pub member_address: Option<String>,
    /// Discovery could not match the VM to its Kubernetes node (their addresses differ): an
    /// update that changes its type is refused, the other types still roll out.
    #[serde(default)]
    pub unmatched: bool,
}

/// A workload: `replicas` pods spread over the workers, or a DaemonSet on every node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodSpec {
    /// App label; PDBs select on it.
    pub app: String,
    /// Namespace.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// Number of pods (ignored for a DaemonSet).
    #[serde(default = "one")]
    pub replicas: u32,
    /// One pod per node, left by drains.
    #[serde(default)]
    pub daemonset: bool,
}

/// A PodDisruptionBudget over one app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdbSpec {
    /// Budget name.
    pub name: String,
    /// Namespace.
    #[serde(default = "default_namespace")]
    pub namespace: String,
    /// App it selects.
    pub app: String,
    /// `minAvailable`.
    pub min_available: u32,
}

/// A fault to inject. Steps count port calls from 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// The next `times` stops of this node's VM fail.
    StopFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// The next `times` stop jobs fail (or time out) although the VM goes down: it is Stopped
    /// when read again, or Stopping for a while with `stopping`.
    StopTimesOut {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
        /// The VM is still Stopping when the engine gives up on the job, and Stopped
        /// `stopping_seconds` later.
        #[serde(default)]
        stopping: bool,
        /// With `stopping`, how long the VM stays Stopping after the job timed out (default 20).
        #[serde(default = "twenty")]
        stopping_seconds: u64,
    },
    /// The next `times` looks at a running job fail: as unavailable (the answer did not get
    /// through) with `unavailable`, else with an error of CloudStack's.
    JobLookFails {
        /// How many looks fail.
        #[serde(default = "one")]
        times: u32,
        /// Whether the look fails as unavailable.
        #[serde(default)]
        unavailable: bool,
    },
    /// The next `times` uncordons of this node fail (the API refuses the patch).
    UncordonFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// CloudStack itself moves the cluster to `state` at `at_step` (a scale or upgrade started
    /// outside the rollout); `until_step` ends it.
    CloudStackState {
        /// Step.
        at_step: u64,
        /// CloudStack's state name (`Scaling`, `Upgrading`, ...).
        state: String,
        /// Step it is Running again at.
        #[serde(default)]
        until_step: Option<u64>,
    },
    /// CloudStack adds a worker node at `at_step` (a scale outside the rollout).
    AddWorker {
        /// Step.
        at_step: u64,
    },
    /// The next `times` starts fail.
    StartFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// The next `times` offering changes fail.
    ScaleFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// The next `times` root disk resizes fail.
    ResizeFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// The next `times` affinity group updates fail.
    AffinityFails {
        /// Node.
        node: String,
        /// How many calls fail.
        #[serde(default = "one")]
        times: u32,
    },
    /// After its next boot the node never becomes Ready.
    NeverReady {
        /// Node.
        node: String,
    },
    /// The node keeps reporting Ready with its old boot ID while stopped and booting.
    StaleReady {
        /// Node.
        node: String,
    },
    /// After its next boot the node reports its old CPU and memory capacity.
    StaleCapacity {
        /// Node.
        node: String,
    },
    /// The next `times` evictions under this budget get a 429 whatever the budget allows.
    PdbBlocks {
        /// Budget name.
        pdb: String,
        /// How many evictions are refused.
        #[serde(default = "one")]
        times: u32,
    },
    /// An etcd member is unhealthy from `at_step` (until `until_step`).
    EtcdUnhealthy {
        /// Member (node) name.
        member: String,
        /// First step.
        at_step: u64,
        /// Step it recovers at.
        #[serde(default)]
        until_step: Option<u64>,
    },
    /// A control node's API server is down from `at_step` (until `until_step`).
    ApiDown {
        /// Control node.
        node: String,
        /// First step.
        at_step: u64,
        /// Step it recovers at.
        #[serde(default)]
        until_step: Option<u64>,
    },
    /// The node's kubelet reports NotReady from `at_step` (until `until_step`), its VM still
    /// Running: a workload or the host going bad after the node came back.
    NodeNotReady {
        /// Node.
        node: String,
        /// First step.
        at_step: u64,
        /// Step it is Ready again at.
        #[serde(default)]
        until_step: Option<u64>,
    },
    /// Someone cordons the node at `at_step`.
    OutsideCordon {
        /// Node.
        node: String,
        /// Step.
        at_step: u64,
    },
    /// Someone uncordons the node at `at_step`.
    OutsideUncordon {
        /// Node.
        node: String,
        /// Step.
        at_step: u64,
    },
    /// Storing the settings fails.
    SaveSettingsFails,
    /// An operator asks `cancelrollout=true` at `at_step`: recorded only while the cluster is
    /// Updating, refused (and traced so) otherwise, as the real `cancel` command.
    Cancel {
        /// Step.
        at_step: u64,
    },
    /// Another operation moves the cluster to `state` at `at_step` (e.g. a scale starting).
    SetState {
        /// Step.
        at_step: u64,
        /// The new state.
        state: ClusterState,
    },
    /// Another engine instance takes the rollout lease at `at_step`.
    StealLease {
        /// Step.
        at_step: u64,
    },
    /// A second engine process runs `scan`, then the same update (with an owner of its own),
    /// against the same cluster record once step `at_step` is over, while the first is still
    /// in its call (with `simulate --store`, the second engine's store calls reach the
    /// simulated record only).
    SecondEngine {
        /// Step.
        at_step: u64,
    },
    /// The engine process dies just before call `at_step`.
    Crash {
        /// Step.
        at_step: u64,
    },
}

impl ClusterSpec {
    /// The wall-clock time virtual time 0 stands for.
    pub fn epoch(&self) -> Result<std::time::Duration, super::spec_error::SpecError> {
        let Some(text) = &self.clock_start else {
            return Ok(std::time::Duration::ZERO);
        };
        let bad = || {
            super::spec_error::SpecError(format!(
                "clock_start {text:?} is not an RFC 3339 time after 1970, e.g. 2026-12-07T21:30:00+01:00"
            ))
        };
        let ts: jiff::Timestamp = text.parse().map_err(|_| bad())?;
        u64::try_from(ts.as_millisecond())
            .map(std::time::Duration::from_millis)
            .map_err(|_| bad())
    }
}

impl Fault {
    /// How many calls a counted fault fails (0 for a scheduled one).
    pub(super) fn times(&self) -> u32 {
        match self {
            Fault::StopFails { times, .. }
            | Fault::StopTimesOut { times, .. }
            | Fault::JobLookFails { times, .. }
            | Fault::UncordonFails { times, .. }
            | Fault::StartFails { times, .. }
            | Fault::ScaleFails { times, .. }
            | Fault::ResizeFails { times, .. }
            | Fault::AffinityFails { times, .. }
            | Fault::PdbBlocks { times, .. } => *times,
            Fault::SaveSettingsFails => 1,
            _ => 0,
        }
    }
}
