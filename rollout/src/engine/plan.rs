//! The rollout plan: phases, batches, per-node changes, skips and preflight verdicts.

use super::observe::Snapshot;
use super::outdated::Change;
use super::preflight::{Verdict, preflight};
use super::safety::{cannot_lose_a_node, cannot_lose_reason, worker_batch_size};
use super::validate::types_of;
use crate::model::{NodeStatus, NodeType, ROLLOUT_ANNOTATION, VmState};
use serde::{Deserialize, Serialize};

/// Why a node is in the plan (and where it goes in its type's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkReason {
    /// Its VM is stopped: it goes first.
    Stopped,
    /// It carries the annotation of a rollout that stopped: it goes first.
    Interrupted,
    /// It differs from its type's settings.
    OutOfDate,
    /// Its settings do not differ, but `run --restart` asked to restart it.
    Restart,
}

/// One node's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodePlan {
    /// Node name.
    pub node: String,
    /// VM id.
    pub vm_id: String,
    /// Why it is here.
    pub reason: WorkReason,
    /// What changes (empty: only a restart or start).
    pub changes: Vec<Change>,
    /// True when someone else cordoned it: no annotation, stays cordoned.
    pub cordoned_by_other: bool,
}

/// One batch: nodes restarted together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// 1-based number over the whole plan.
    pub number: usize,
    /// The nodes.
    pub nodes: Vec<NodePlan>,
    /// Preflight verdict as of the plan's observation.
    pub preflight: Verdict,
}

/// All batches of one node type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    /// Node type.
    pub node_type: NodeType,
    /// True for the nodes left by an earlier run or stopped: their VMs are stopped or they carry
    /// the rollout annotation, so they are already out of service. They are finished (in type
    /// order) before any other node is taken down.
    pub resume: bool,
    /// Its batches, in order.
    pub batches: Vec<Batch>,
}

/// A node left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip {
    /// Node name.
    pub node: String,
    /// Node type.
    pub node_type: NodeType,
    /// Why.
    pub reason: String,
}

/// What a rollout would do, without acting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Cluster id.
    pub cluster_id: String,
    /// Workers restarted at a time.
    pub worker_batch_size: u32,
    /// Annotated nodes that already came back (Ready with a new boot ID): uncordoned first.
    pub finish: Vec<String>,
    /// Phases in order: stopped and interrupted nodes of each type first (`resume`), then etcd,
    /// control, worker; types with no work are left out.
    pub phases: Vec<Phase>,
    /// Nodes skipped.
    pub skipped: Vec<Skip>,
    /// What the update says alongside (an accepted risk, node types that cannot be rolled out).
    #[serde(default)]
    pub notes: Vec<super::note::Note>,
}

impl Plan {
    /// The skip messages joined, for `lasterror`.
    pub fn skip_message(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .skipped
            .iter()
            .map(|s| format!("{} ({}) skipped: {}", s.node, s.node_type, s.reason))
            .collect();
        Some(parts.join("; "))
    }
}

/// The one rule for uncordoning a node the rollout annotated: it came back, Ready with a boot ID
/// other than the one annotated before its restart. A node whose boot ID still equals the
/// annotation is unfinished work, even when Ready (its VM may have been started again before its
/// kubelet posted).
pub fn came_back(node: &NodeStatus) -> bool {
    node.rollout_boot_id()
        .is_some_and(|old| node.is_ready() && node.boot_id != old)
}

/// [`came_back`] for the node named `node` in `snap`.
pub fn is_finished(snap: &Snapshot, node: &str) -> bool {
    snap.node(node).is_some_and(came_back)
}

/// Compute the plan from `snap` (whose record already holds the settings to roll out).
pub fn plan(snap: &Snapshot, max_unavailable: u32) -> Plan {
    plan_with(snap, max_unavailable, &std::collections::BTreeSet::new())
}

/// [`plan`], also restarting the Running nodes named in `restart` whose settings do not differ
/// (`run --restart`), by the same path.
pub fn plan_with(
    snap: &Snapshot,
    max_unavailable: u32,
    restart: &std::collections::BTreeSet<String>,
) -> Plan {
    let record = &snap.record;
    let workers = snap.vms_of(NodeType::Worker).count() as u32;
    let batch_size = worker_batch_size(max_unavailable, workers);
    let mut out = Plan {
        cluster_id: record.id.clone(),
        worker_batch_size: batch_size,
        finish: Vec::new(),
        phases: Vec::new(),
        skipped: Vec::new(),
        notes: Vec::new(),
    };
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for t in types_of(record) {
        let work = work_of_type(snap, t, restart, &mut out);
        let (stopped, running): (Vec<NodePlan>, Vec<NodePlan>) = work
            .into_iter()
            .partition(|w| matches!(w.reason, WorkReason::Stopped | WorkReason::Interrupted));
        if !stopped.is_empty() {
            first.push((t, stopped));
        }
        if !running.is_empty() {
            rest.push((t, running));
        }
    }
    let mut number = 0;
    for (resume, (t, work)) in first
        .into_iter()
        .map(|x| (true, x))
        .chain(rest.into_iter().map(|x| (false, x)))
    {
        let size = if t == NodeType::Worker {
            batch_size as usize
        } else {
            1
        };
        let mut batches = Vec::new();
        for chunk in work.chunks(size) {
            number += 1;
            let names: Vec<String> = chunk.iter().map(|n| n.node.clone()).collect();
            batches.push(Batch {
                number,
                nodes: chunk.to_vec(),
                preflight: preflight(snap, t, &names),
            });
        }
        out.phases.push(Phase {
            node_type: t,
            resume,
            batches,
        });
    }
    debug_assert!(
        keeps_the_rules(&out),
        "a plan breaks the batch rules: {out:?}"
    );
    out
}

/// The nodes of type `t` with work, in their order (stopped, interrupted, out of date, asked
/// to restart; by name within each); those found finished go to `out.finish`, those that
/// cannot be taken now to `out.skipped`.
fn work_of_type(
    snap: &Snapshot,
    t: NodeType,
    restart: &std::collections::BTreeSet<String>,
    out: &mut Plan,
) -> Vec<NodePlan> {
    let record = &snap.record;
    let mut work = Vec::new();
    for vm in snap.vms_of(t) {
        let node = snap.node(&vm.node_name);
        let annotated = node.is_some_and(|n| n.annotations.contains_key(ROLLOUT_ANNOTATION));
        let finished = is_finished(snap, &vm.node_name);
        if finished {
            out.finish.push(vm.node_name.clone());
        }
        let changes = snap.changes_of(vm).to_vec();
        let reason = match &vm.state {
            VmState::Stopped => WorkReason::Stopped,
            _ if annotated && !finished => WorkReason::Interrupted,
            _ if !changes.is_empty() => WorkReason::OutOfDate,
            VmState::Running if restart.contains(&vm.node_name) => WorkReason::Restart,
            _ => continue,
        };
        if !matches!(vm.state, VmState::Running | VmState::Stopped) {
            out.skipped.push(Skip {
                node: vm.node_name.clone(),
                node_type: t,
                reason: format!("VM is {:?}; wait until it is Running or Stopped", vm.state),
            });
            continue;
        }
        if vm.state == VmState::Running && cannot_lose_a_node(record, t) {
            out.skipped.push(Skip {
                node: vm.node_name.clone(),
                node_type: t,
                reason: cannot_lose_reason(record, t),
            });
            continue;
        }
        let cordoned_by_other = node.is_some_and(|n| n.unschedulable && !annotated);
        work.push(NodePlan {
            node: vm.node_name.clone(),
            vm_id: vm.id.clone(),
            reason,
            changes,
            cordoned_by_other,
        });
    }
    work.sort_by(|a, b| (a.reason, &a.node).cmp(&(b.reason, &b.node)));
    work
}

/// The rules the simulator checks, as a plan must already keep them: one control or etcd node
/// per batch, at most the worker batch size of workers, batches numbered in order, and within
/// the resumed phases and within the others, etcd before control before workers.
fn keeps_the_rules(plan: &Plan) -> bool {
    let rank = |t: NodeType| match t {
        NodeType::Etcd => 0,
        NodeType::Control => 1,
        NodeType::Worker => 2,
    };
    let sizes = plan.phases.iter().all(|p| {
        p.batches.iter().all(|b| match p.node_type {
            NodeType::Worker => b.nodes.len() <= plan.worker_batch_size.max(1) as usize,
            _ => b.nodes.len() == 1,
        })
    });
    let numbered = plan
        .phases
        .iter()
        .flat_map(|p| &p.batches)
        .enumerate()
        .all(|(i, b)| b.number == i + 1);
    let (resumed, others): (Vec<&Phase>, Vec<&Phase>) = plan.phases.iter().partition(|p| p.resume);
    let ordered = [resumed, others].iter().all(|phases| {
        let ranks: Vec<u8> = phases.iter().map(|p| rank(p.node_type)).collect();
        ranks.windows(2).all(|w| w[0] < w[1])
    });
    sizes && numbered && ordered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(number: usize, nodes: &[&str]) -> Batch {
        Batch {
            number,
            nodes: nodes
                .iter()
                .map(|n| NodePlan {
                    node: n.to_string(),
                    vm_id: format!("vm-{n}"),
                    reason: WorkReason::OutOfDate,
                    changes: Vec::new(),
                    cordoned_by_other: false,
                })
                .collect(),
            preflight: Verdict::Pass,
        }
    }

    fn phase(node_type: NodeType, resume: bool, batches: Vec<Batch>) -> Phase {
        Phase {
            node_type,
            resume,
            batches,
        }
    }

    fn plan_of(worker_batch_size: u32, phases: Vec<Phase>) -> Plan {
        Plan {
            cluster_id: "k1".into(),
            worker_batch_size,
            finish: Vec::new(),
            phases,
            skipped: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_plan_keeping_the_batch_rules_passes_the_check() {
        let plan = plan_of(
            2,
            vec![
                phase(NodeType::Worker, true, vec![batch(1, &["w-3"])]),
                phase(NodeType::Etcd, false, vec![batch(2, &["e-1"])]),
                phase(NodeType::Control, false, vec![batch(3, &["c-1"])]),
                phase(
                    NodeType::Worker,
                    false,
                    vec![batch(4, &["w-1", "w-2"]), batch(5, &["w-4"])],
                ),
            ],
        );
        assert!(keeps_the_rules(&plan));
    }

    #[test]
    fn the_plan_check_names_two_control_nodes_too_many_workers_a_gap_or_phases_out_of_order() {
        let two_controls = plan_of(
            1,
            vec![phase(
                NodeType::Control,
                false,
                vec![batch(1, &["c-1", "c-2"])],
            )],
        );
        assert!(!keeps_the_rules(&two_controls));
        let no_etcd_node = plan_of(1, vec![phase(NodeType::Etcd, false, vec![batch(1, &[])])]);
        assert!(!keeps_the_rules(&no_etcd_node));
        let three_workers = plan_of(
            2,
            vec![phase(
                NodeType::Worker,
                false,
                vec![batch(1, &["w-1", "w-2", "w-3"])],
            )],
        );
        assert!(!keeps_the_rules(&three_workers));
        let gap = plan_of(
            1,
            vec![phase(
                NodeType::Worker,
                false,
                vec![batch(1, &["w-1"]), batch(3, &["w-2"])],
            )],
        );
        assert!(!keeps_the_rules(&gap));
        let workers_first = plan_of(
            1,
            vec![
                phase(NodeType::Worker, false, vec![batch(1, &["w-1"])]),
                phase(NodeType::Control, false, vec![batch(2, &["c-1"])]),
            ],
        );
        assert!(!keeps_the_rules(&workers_first));
        let same_type_twice = plan_of(
            1,
            vec![
                phase(NodeType::Control, true, vec![batch(1, &["c-1"])]),
                phase(NodeType::Control, true, vec![batch(2, &["c-2"])]),
            ],
        );
        assert!(!keeps_the_rules(&same_type_twice));
    }
}
