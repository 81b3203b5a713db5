//! The simulated world: VMs, nodes, boot IDs, pods, budgets, etcd members, API servers, the
//! cluster record and a virtual clock, advanced by port calls and sleeps.

use super::spec::Fault;
use crate::engine::safety::quorum;
use crate::model::{ClusterRecord, NodeType, Readiness, ServiceOffering, VmState};
use rand::Rng;
use rand::rngs::StdRng;
use std::collections::BTreeMap;
use std::time::Duration;

/// Seconds after a VM stops before its node goes `Ready=Unknown` (node-monitor grace period).
pub const NODE_GRACE: Duration = Duration::from_secs(40);

/// A simulated Kubernetes node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimNode {
    /// Ready condition.
    pub ready: Readiness,
    /// Reported boot ID.
    pub boot_id: String,
    /// Reported CPUs.
    pub cpu: u32,
    /// Reported memory (KiB).
    pub memory_kib: u64,
    /// `spec.unschedulable`.
    pub unschedulable: bool,
    /// Annotations.
    pub annotations: BTreeMap<String, String>,
}

/// A simulated VM (and its node, unless an external etcd node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimVm {
    /// VM id.
    pub id: String,
    /// Node name.
    pub name: String,
    /// Node type.
    pub node_type: NodeType,
    /// Power state.
    pub state: VmState,
    /// Offering id.
    pub offering: String,
    /// Affinity group ids.
    pub groups: Vec<String>,
    /// Root volume id.
    pub root_id: String,
    /// Root size (GB).
    pub root_gb: u64,
    /// Root disk offering.
    pub root_offering: Option<String>,
    /// The boot ID of the current (or last) boot of the VM.
    pub boot_id: String,
    /// When the current boot finishes (kubelet and etcd up).
    pub boot_done_at: Option<Duration>,
    /// True once the current boot finished.
    pub booted: bool,
    /// When it was last stopped.
    pub stopped_at: Option<Duration>,
    /// Its Kubernetes node (None for external etcd nodes).
    pub node: Option<SimNode>,
    /// True while stopped by the engine and not started again.
    pub engine_stopped: bool,
    /// Boot ID at the engine's last stop, until the engine marks the node done.
    pub stopped_boot: Option<String>,
    /// Number of stops by the engine.
    pub engine_stops: u32,
    /// Down before the engine touched it (stopped in the description): starting it takes
    /// nothing down, so it does not count against the disruption budget until it is done.
    pub external_down: bool,
    /// API server down (control nodes).
    pub api_down: bool,
    /// etcd member unhealthy.
    pub etcd_unhealthy: bool,
    /// etcd member a learner (added, not yet promoted to a voting member).
    pub etcd_learner: bool,
    /// Never Ready after its next boot.
    pub never_ready: bool,
    /// Reports Ready with the old boot ID while down.
    pub stale_ready: bool,
    /// Not matched to its Kubernetes node by discovery ([`crate::ports::Cloud::unmatched`]).
    pub unmatched: bool,
    /// Reports old capacity after its next boot.
    pub stale_capacity: bool,
    /// The VM's IP address.
    pub ip: String,
    /// The name of its etcd member (if it runs one).
    pub member_name: String,
    /// The address in its etcd member's URLs.
    pub member_address: String,
    /// While Stopping (a stop job that timed out), when it is Stopped.
    pub stopping_until: Option<Duration>,
}

/// A simulated pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimPod {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// App label.
    pub app: String,
    /// Node it is bound to (None: pending).
    pub node: Option<String>,
    /// DaemonSet pod.
    pub daemonset: bool,
}

/// A fault still to fire or to count down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmedFault {
    /// The fault.
    pub fault: Fault,
    /// Calls left to fail (count faults).
    pub left: u32,
}

/// The whole simulated world.
#[derive(Debug, Clone)]
pub struct World {
    /// Virtual time.
    pub now: Duration,
    /// Port calls so far.
    pub step: u64,
    /// The one random source.
    pub rng: StdRng,
    /// The cluster record.
    pub record: ClusterRecord,
    /// VMs by node name.
    pub vms: BTreeMap<String, SimVm>,
    /// Offerings.
    pub offerings: Vec<ServiceOffering>,
    /// Disk offerings.
    pub disk_offerings: Vec<crate::model::DiskOffering>,
    /// Affinity groups.
    pub groups: Vec<crate::model::AffinityGroup>,
    /// Pods.
    pub pods: Vec<SimPod>,
    /// PDBs.
    pub pdbs: Vec<super::spec::PdbSpec>,
    /// Faults.
    pub faults: Vec<ArmedFault>,
    /// True once the engine process died.
    pub crashed: bool,
    /// The cluster store does not answer: every call to it fails as unavailable.
    pub store_down: bool,
    /// One line per step.
    pub trace: Vec<String>,
    /// The first invariant violation.
    pub violation: Option<super::violation::Violation>,
    /// The engine's acts in the current step, for the invariants.
    pub(crate) acts: Vec<super::act::Act>,
    /// Workers the engine may disrupt at a time.
    pub worker_budget: u32,
    /// The `maxunavailable` asked (the budget follows the worker count).
    pub max_unavailable: u32,
    /// The last phase the engine touched in this run.
    pub phase: Option<NodeType>,
    /// etcd member health as the engine last saw it, and the step it looked.
    pub health_seen: (BTreeMap<String, bool>, u64),
    /// Per control node: whether the engine last saw its API serving, and the step.
    pub api_seen: BTreeMap<String, (bool, u64)>,
    /// The last step at which the world was not healthy.
    pub unhealthy_at: u64,
    /// The step of the store's last `load` (a release begins with one).
    pub last_load_step: u64,
    /// The cluster's state as CloudStack itself reports it (it knows no `Updating`).
    pub cks_state: String,
    /// The cluster's Kubernetes version, when CloudStack lists one.
    pub kubernetes_version: Option<super::spec::KubernetesVersionSpec>,
    /// The cluster's `autoscalingenabled` as CloudStack reports it.
    pub autoscaling: bool,
    /// The management server's release (`listCapabilities`), when it says.
    pub cloudstack_version: Option<crate::model::CloudStackVersion>,
    pub(super) boots: u64,
    /// CloudStack's jobs and how long they take.
    pub jobs: super::jobs::Jobs,
    /// The engine processes (a second one started by a fault) and their acts.
    pub engines: super::processes::Engines,
    /// The gate commands as described, and those running.
    pub gates: super::gates::Gates,
    /// The wall-clock time virtual time 0 stands for (since the Unix epoch).
    pub epoch: Duration,
    /// Nodes where `/var/run/reboot-required` exists (a boot removes it).
    pub reboot_required: std::collections::BTreeSet<String>,
    /// The real database the store calls go to, when the simulation is backed by one.
    pub backing: Option<super::backing::Backing>,
    /// The maintenance windows the rollout was given (none: always open), for
    /// `stop-inside-window`.
    pub windows: Vec<crate::engine::window::Window>,
}

impl World {
    pub(super) fn with_vm(&mut self, node: &str, f: impl FnOnce(&mut SimVm)) {
        if let Some(v) = self.vms.get_mut(node) {
            f(v);
        }
    }

    /// Sum of the VMs' offerings.
    pub fn capacity(&self) -> (u64, u64) {
        self.vms.values().fold((0, 0), |(c, m), v| {
            match self.offerings.iter().find(|o| o.id == v.offering) {
                Some(o) => (c + u64::from(o.cpu_cores), m + o.memory_mb),
                None => (c, m),
            }
        })
    }

    /// Node types whose VMs are etcd members.
    pub fn member_type(&self) -> NodeType {
        if self.record.etcd_count > 0 {
            NodeType::Etcd
        } else {
            NodeType::Control
        }
    }

    /// True when the member on `vm` is healthy.
    pub fn member_healthy(vm: &SimVm) -> bool {
        vm.state == VmState::Running && vm.booted && !vm.etcd_unhealthy
    }

    /// True when etcd has a quorum of healthy members.
    pub fn etcd_quorum(&self) -> bool {
        let t = self.member_type();
        let members: Vec<&SimVm> = self.vms.values().filter(|v| v.node_type == t).collect();
        let healthy = members.iter().filter(|v| Self::member_healthy(v)).count();
        healthy >= quorum(members.len())
    }

    /// True when the API server on control node `name` answers.
    pub fn api_serving(&self, name: &str) -> bool {
        self.vms.get(name).is_some_and(|v| {
            v.node_type == NodeType::Control
                && v.state == VmState::Running
                && v.booted
                && !v.api_down
        })
    }

    /// Member health now, by member name.
    pub fn member_health(&self) -> BTreeMap<String, bool> {
        let t = self.member_type();
        self.vms
            .values()
            .filter(|v| v.node_type == t)
            .map(|v| (v.name.clone(), Self::member_healthy(v)))
            .collect()
    }

    /// Advance virtual time by `d`, applying what happens meanwhile.
    pub fn advance(&mut self, d: Duration) {
        self.now += d;
        self.tick();
    }

    /// Advance by a random duration between `lo` and `hi` seconds.
    pub fn advance_random(&mut self, lo: u64, hi: u64) {
        let s = self.rng.random_range(lo..=hi);
        self.advance(Duration::from_secs(s));
    }

    /// Apply time-driven changes: boots finishing, grace periods expiring, pods scheduling.
    pub fn tick(&mut self) {
        let now = self.now;
        let offerings = &self.offerings;
        for vm in self.vms.values_mut() {
            if vm.state == VmState::Stopping && vm.stopping_until.is_some_and(|t| now >= t) {
                vm.state = VmState::Stopped;
                vm.stopping_until = None;
            }
            match vm.state {
                VmState::Stopped => {
                    if let (Some(at), Some(n)) = (vm.stopped_at, vm.node.as_mut())
                        && now >= at + NODE_GRACE
                        && !vm.stale_ready
                    {
                        n.ready = Readiness::Unknown;
                    }
                }
                VmState::Running if !vm.booted && vm.boot_done_at.is_some_and(|t| now >= t) => {
                    vm.booted = true;
                    if let Some(n) = vm.node.as_mut() {
                        n.boot_id = vm.boot_id.clone();
                        n.ready = if vm.never_ready {
                            Readiness::False
                        } else {
                            Readiness::True
                        };
                        if !vm.stale_capacity
                            && let Some(o) = offerings.iter().find(|o| o.id == vm.offering)
                        {
                            n.cpu = o.cpu_cores;
                            n.memory_kib = reported_memory(o);
                        }
                    }
                }
                _ => {}
            }
        }
        self.schedule_pending();
    }

    /// Start `vm`: a new boot with a new boot ID, finishing after a random delay.
    pub fn boot(&mut self, name: &str) {
        self.boots += 1;
        let delay = Duration::from_secs(self.rng.random_range(20..=90));
        let boots = self.boots;
        let now = self.now;
        self.reboot_required.remove(name);
        self.with_vm(name, |v| {
            v.state = VmState::Running;
            v.boot_id = format!("boot-{name}-{boots}");
            v.booted = false;
            v.boot_done_at = Some(now + delay);
            v.engine_stopped = false;
        });
    }

    /// Stop `vm`.
    pub fn halt(&mut self, name: &str) {
        let now = self.now;
        self.with_vm(name, |v| {
            v.state = VmState::Stopped;
            v.booted = false;
            v.stopped_at = Some(now);
            v.boot_done_at = None;
        });
    }
}

/// The memory capacity a booted node reports for `o` (the kernel keeps 3 %).
pub fn reported_memory(o: &ServiceOffering) -> u64 {
    o.memory_mb * 1024 * 97 / 100
}
