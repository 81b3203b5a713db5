//! The end of every rollout, and the state scanner for rollouts whose process died.

use super::EngineError;
use super::observe::{Snapshot, observe, observe_cloud};
use crate::model::{ClusterState, NodeType, ROLLOUT_ANNOTATION, VmState};
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

/// Why the cluster is not healthy, if it is not: every VM Running, every node Ready.
pub fn unhealthy(snap: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for vm in &snap.vms {
        if vm.state != VmState::Running {
            out.push(format!("VM of {} is {:?}", vm.node_name, vm.state));
            continue;
        }
        if vm.node_type == NodeType::Etcd || !snap.nodes_known {
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
    out
}

/// End a rollout that failed with `error` (or succeeded, with `None`); see [`release_with`].
pub fn release(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    error: Option<&str>,
) -> Result<ReleaseOutcome, EngineError> {
    release_with(ports, cluster_id, error, None)
}

/// End a rollout: uncordon annotated nodes that are Ready with a new boot ID, leave the rest
/// cordoned, recount capacity, move the cluster to Running if it is healthy and the rollout did
/// not fail (`error` is `None`), else Alert, and record `lasterror` (the error, the unhealthy
/// parts, and `notes` such as skipped nodes) or clear it. Running it again gives the same result.
pub fn release_with(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    error: Option<&str>,
    notes: Option<&str>,
) -> Result<ReleaseOutcome, EngineError> {
    let snap = observe(ports, cluster_id)?;
    let ep = snap.endpoint_avoiding(&[]);
    let mut left_cordoned = Vec::new();
    for node in snap.nodes.iter() {
        let Some(old) = node.rollout_boot_id() else {
            continue;
        };
        if node.is_ready() && node.boot_id != old {
            if node.unschedulable {
                ports
                    .kube
                    .set_unschedulable(&ep, &node.name, false)
                    .map_err(|e| EngineError::port("uncordon", e))?;
            }
            ports
                .kube
                .set_annotation(&ep, &node.name, ROLLOUT_ANNOTATION, None)
                .map_err(|e| EngineError::port("remove annotation", e))?;
        } else {
            left_cordoned.push(node.name.clone());
        }
    }
    let (cores, memory_mb) = capacity(&snap);
    ports
        .store
        .set_capacity(cluster_id, cores, memory_mb)
        .map_err(EngineError::store)?;
    let problems = unhealthy(&snap);
    let state = if problems.is_empty() && error.is_none() {
        ClusterState::Running
    } else {
        ClusterState::Alert
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(e) = error {
        parts.push(e.to_string());
    }
    if !problems.is_empty() {
        parts.push(format!("cluster unhealthy: {}", problems.join("; ")));
    }
    if let Some(n) = notes {
        parts.push(n.to_string());
    }
    let last_error = (!parts.is_empty()).then(|| parts.join("; "));
    ports
        .store
        .set_last_error(cluster_id, last_error.as_deref())
        .map_err(EngineError::store)?;
    ports
        .store
        .set_cancel(cluster_id, false)
        .map_err(EngineError::store)?;
    let current = snap.record.state;
    if current != state
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
    let now = ports.clock.now().as_millis() as u64;
    if let Some(lease) = &snap.record.lease
        && now.saturating_sub(lease.heartbeat_ms) < lease_timeout.as_millis() as u64
    {
        return Ok(ScanOutcome::OwnerAlive {
            owner: lease.owner.clone(),
        });
    }
    let (cores, memory_mb) = capacity(&snap);
    if !ports
        .store
        .compare_and_set_state(
            cluster_id,
            ClusterState::Updating,
            ClusterState::Alert,
            None,
        )
        .map_err(EngineError::store)?
    {
        return Ok(ScanOutcome::NotUpdating);
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
    ports
        .store
        .set_last_error(
            cluster_id,
            Some(&format!(
                "the rollout owned by {owner} stopped without finishing; run the rollout again to resume"
            )),
        )
        .map_err(EngineError::store)?;
    Ok(ScanOutcome::MovedToAlert { cores, memory_mb })
}
