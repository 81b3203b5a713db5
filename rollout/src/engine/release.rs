//! The end of every rollout, and the state scanner for rollouts whose process died.

use super::error::EngineError;
use super::observe::{Snapshot, observe, observe_cloud};
use super::plan::came_back;
use super::safety::quorum;
use crate::model::{ClusterState, Lease, MemberHealth, NodeType, ROLLOUT_ANNOTATION, VmState};
use crate::ports::Ports;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What `release()` left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseOutcome {
    /// The cluster's state afterwards.
    pub state: ClusterState,
    /// Recorded CPU cores.
    pub cores: u64,
    /// Recorded memory (MiB).
    pub memory_mb: u64,
    /// Recorded last error.
    pub last_error: Option<String>,
    /// Annotated nodes left cordoned (the work left for the next run).
    pub left_cordoned: Vec<String>,
}

/// Total cores and memory of the VMs' actual offerings.
pub fn capacity(snap: &Snapshot) -> (u64, u64) {
    snap.vms.iter().fold((0, 0), |(c, m), vm| {
        match snap.offering(&vm.service_offering_id) {
            Some(o) => (c + u64::from(o.cpu_cores), m + o.memory_mb),
            None => (c, m),
        }
    })
}

/// Why the cluster is not healthy, if it is not (the design's health): a VM not Running, a node
/// not Ready, etcd without a quorum of healthy members, or no API server answering. A node left
/// out of date (a type that cannot lose a node is skipped) is reported in `lasterror`, not made
/// unhealthy. A healthy cluster ends a rollout Running, whatever stopped it.
pub fn unhealthy(snap: &Snapshot) -> Vec<String> {
    let mut out = unhealthy_vms(snap);
    for vm in &snap.vms {
        if vm.state != VmState::Running || vm.node_type == NodeType::Etcd || !snap.nodes_known {
            continue;
        }
        match snap.node(&vm.node_name) {
            Some(n) if n.is_ready() => {}
            _ => out.push(format!("node {} is not Ready", vm.node_name)),
        }
    }
    if !snap.nodes_known {
        out.push("no API server answered".to_string());
    }
    let voting: Vec<_> = snap.members.iter().filter(|m| !m.learner).collect();
    if !voting.is_empty() {
        let healthy = voting
            .iter()
            .filter(|m| m.health == MemberHealth::Healthy)
            .count();
        if healthy < quorum(voting.len()) {
            out.push(format!(
                "etcd has no quorum: {healthy} of {} members healthy",
                voting.len()
            ));
        }
    }
    out
}

/// The part of [`unhealthy`] CloudStack alone shows: a VM not Running.
pub fn unhealthy_vms(snap: &Snapshot) -> Vec<String> {
    snap.vms
        .iter()
        .filter(|vm| vm.state != VmState::Running)
        .map(|vm| format!("VM of {} is {:?}", vm.node_name, vm.state))
        .collect()
}

/// End a rollout that failed with `error` (or succeeded, with `None`); see [`release_with`].
pub fn release(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    error: Option<&str>,
) -> Result<ReleaseOutcome, EngineError> {
    release_with(ports, cluster_id, error, None)
}

/// End a rollout: uncordon annotated nodes that came back (Ready with a new boot ID), leave the
/// rest cordoned, recount capacity, move the cluster to Running if it is healthy (whatever
/// stopped the rollout) and to Alert if not, and record `lasterror` (the rollout's error first,
/// then any step of this release that failed, the unhealthy parts and `notes` such as skipped
/// nodes) or clear it. Every step is tried even when an earlier one fails, so the cluster never
/// stays Updating because of one failed call; only a failed state change is an error (the
/// scanner then takes over and keeps the recorded error). Running it again gives the same result.
pub fn release_with(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    error: Option<&str>,
    notes: Option<&str>,
) -> Result<ReleaseOutcome, EngineError> {
    release_held(ports, cluster_id, None, error, notes)
}

/// The nodes the rollout annotated, in `snap`, back in service: each that came back (Ready
/// with a new boot ID) uncordoned and its annotation removed; the others, and those whose
/// uncordon failed, are returned to say they stay cordoned. Failed calls go to `failed`.
fn back_in_service(
    ports: &mut Ports<'_>,
    snap: &super::observe::Snapshot,
    failed: &mut Vec<String>,
) -> Vec<String> {
    let mut left_cordoned = Vec::new();
    let ep = snap.endpoint_avoiding(&[]);
    for node in snap.nodes.iter() {
        if node.rollout_boot_id().is_none() {
            continue;
        }
        if !came_back(node) {
            left_cordoned.push(node.name.clone());
            continue;
        }
        // Only a node of the rollout's, Ready with a new boot ID, is put back in service.
        debug_assert!(node.is_ready() && node.rollout_boot_id() != Some(node.boot_id.as_str()));
        if node.unschedulable
            && let Err(e) = ports.kube.set_unschedulable(&ep, &node.name, false)
        {
            failed.push(format!("uncordon {}: {e}", node.name));
            left_cordoned.push(node.name.clone());
            continue;
        }
        if let Err(e) = ports
            .kube
            .set_annotation(&ep, &node.name, ROLLOUT_ANNOTATION, None)
        {
            failed.push(format!("remove annotation of {}: {e}", node.name));
        }
    }
    left_cordoned
}

/// `lasterror` after a release: the rollout's `error`, the nodes it left cordoned after that
/// error, the release's `failed` calls, the cluster's health `problems` and the rollout's
/// `notes`, in this order; `None` when there is nothing to say.
fn last_error(
    error: Option<&str>,
    left_cordoned: &[String],
    mut failed: Vec<String>,
    problems: &[String],
    notes: Option<&str>,
) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(e) = error {
        parts.push(e.to_string());
    }
    // What release really did with the rollout's nodes after the error that stopped it: the
    // nodes it leaves cordoned, named (the same on every run of release, so it stays
    // idempotent; the batch's own error claims nothing about cordons).
    if error.is_some() && !left_cordoned.is_empty() {
        parts.push(format!(
            "release left {} cordoned (not back Ready with a new boot ID)",
            left_cordoned.join(", ")
        ));
    }
    parts.append(&mut failed);
    if !problems.is_empty() {
        parts.push(format!("cluster unhealthy: {}", problems.join("; ")));
    }
    if let Some(n) = notes {
        parts.push(n.to_string());
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// [`release_with`] by the rollout that holds `held` (its lease and the lease timeout): the
/// state leaves `Updating` only while the store, in the same transaction, finds that lease
/// still held; a lost lease is an error and the state is left to its new owner.
pub fn release_held(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    held: Option<(&Lease, Duration)>,
    error: Option<&str>,
    notes: Option<&str>,
) -> Result<ReleaseOutcome, EngineError> {
    let mut failed: Vec<String> = Vec::new();
    let (record, snap) = match observe(ports, cluster_id) {
        Ok(snap) => (snap.record.clone(), Some(snap)),
        Err(e) => {
            failed.push(format!("release could not read the cluster: {e}"));
            (
                ports.store.load(cluster_id).map_err(EngineError::store)?,
                None,
            )
        }
    };
    let (mut cores, mut memory_mb) = (record.cores, record.memory_mb);
    let mut left_cordoned = Vec::new();
    let mut problems = Vec::new();
    if let Some(snap) = &snap {
        left_cordoned = back_in_service(ports, snap, &mut failed);
        (cores, memory_mb) = capacity(snap);
        if let Err(e) = ports.store.set_capacity(cluster_id, cores, memory_mb) {
            failed.push(format!("recording capacity: {e}"));
        }
        problems = unhealthy(snap);
    } else {
        problems.push("its state could not be read".to_string());
    }
    let state = if problems.is_empty() {
        ClusterState::Running
    } else {
        ClusterState::Alert
    };
    let last_error = last_error(error, &left_cordoned, failed, &problems, notes);
    let recorded = ports
        .store
        .set_last_error(cluster_id, last_error.as_deref())
        .map_err(EngineError::store);
    let cleared = ports
        .store
        .set_cancel(cluster_id, false)
        .map_err(EngineError::store);
    let current = record.state;
    // A release never leaves the cluster Updating.
    debug_assert_ne!(state, ClusterState::Updating);
    if let Some((lease, timeout)) = held {
        if !ports
            .store
            .end_rollout(cluster_id, lease, timeout, state)
            .map_err(EngineError::store)?
        {
            return Err(EngineError::LeaseLost {
                cluster: cluster_id.to_string(),
                owner: lease.owner.clone(),
            });
        }
    } else if current != state
        && matches!(
            current,
            ClusterState::Updating | ClusterState::Running | ClusterState::Alert
        )
    {
        ports
            .store
            .compare_and_set_state(cluster_id, current, state, None)
            .map_err(EngineError::store)?;
    }
    recorded?;
    cleared?;
    Ok(ReleaseOutcome {
        state,
        cores,
        memory_mb,
        last_error,
        left_cordoned,
    })
}

/// What the state scanner did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ScanOutcome {
    /// The cluster is not Updating.
    NotUpdating,
    /// Its rollout owner renewed its lease recently.
    OwnerAlive {
        /// The owner.
        owner: String,
    },
    /// Moved to Alert with capacity recounted.
    MovedToAlert {
        /// Recorded cores.
        cores: u64,
        /// Recorded memory (MiB).
        memory_mb: u64,
    },
}

/// The state scanner: a cluster left `Updating` by a process that died (its lease not renewed
/// for `lease_timeout`) goes to Alert with its capacity recounted; the nodes are not touched.
pub fn scan(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    lease_timeout: Duration,
) -> Result<ScanOutcome, EngineError> {
    let snap = observe_cloud(ports, cluster_id)?;
    if snap.record.state != ClusterState::Updating {
        return Ok(ScanOutcome::NotUpdating);
    }
    // One compare-and-set on the state, the owner and the heartbeat seen, judged by the store's
    // own clock: a lease renewed since, or still fresh, is left to its owner.
    let (cores, memory_mb) = capacity(&snap);
    if !ports
        .store
        .expire_lease(cluster_id, snap.record.lease.as_ref(), lease_timeout)
        .map_err(EngineError::store)?
    {
        let now = ports.store.load(cluster_id).map_err(EngineError::store)?;
        return Ok(match (now.state, now.lease) {
            (ClusterState::Updating, Some(lease)) => ScanOutcome::OwnerAlive { owner: lease.owner },
            _ => ScanOutcome::NotUpdating,
        });
    }
    ports
        .store
        .set_capacity(cluster_id, cores, memory_mb)
        .map_err(EngineError::store)?;
    let owner = snap
        .record
        .lease
        .as_ref()
        .map(|l| l.owner.clone())
        .unwrap_or_else(|| "unknown".to_string());
    // A more specific error recorded by the rollout (or a partial release) stays first.
    let stopped = format!(
        "the rollout owned by {owner} stopped without finishing; run the rollout again to resume"
    );
    let message = match &snap.record.last_error {
        Some(earlier) if !earlier.is_empty() => format!("{earlier}; {stopped}"),
        _ => stopped,
    };
    ports
        .store
        .set_last_error(cluster_id, Some(&message))
        .map_err(EngineError::store)?;
    Ok(ScanOutcome::MovedToAlert { cores, memory_mb })
}
