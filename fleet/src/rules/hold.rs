//! A worker's acts on what it holds. Each is taken only while the hold is the worker's own and
//! live by the store's clock; otherwise nothing changes and the worker must stop acting at once.

use super::{ClusterFailure, GateFailure};
use crate::model::{ClusterStatus, FleetRecord, Lease, Phase, StageStatus};

/// Whether a hold was still the worker's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// It was, and the act was taken.
    Yes,
    /// It lapsed or was taken over: nothing changed.
    Lost,
}

/// The cluster's lease when `lease` (owner and claim) still holds it at `now_ms`.
fn held<'r>(
    record: &'r mut FleetRecord,
    cluster: &str,
    lease: &Lease,
    now_ms: u64,
) -> Option<&'r mut crate::model::ClusterProgress> {
    let lease_ms = record.plan.lease_ms;
    let c = record.clusters.get_mut(cluster)?;
    match &c.status {
        ClusterStatus::Active { lease: current }
            if current.owner == lease.owner
                && current.claim == lease.claim
                && current.live(now_ms, lease_ms) =>
        {
            Some(c)
        }
        _ => None,
    }
}

/// Renews the worker's hold on `cluster` to `now_ms` (and `lease` with it).
pub fn renew_cluster(
    record: &mut FleetRecord,
    cluster: &str,
    lease: &mut Lease,
    now_ms: u64,
) -> Held {
    match held(record, cluster, lease, now_ms) {
        Some(c) => {
            lease.heartbeat_ms = now_ms;
            c.status = ClusterStatus::Active {
                lease: lease.clone(),
            };
            Held::Yes
        }
        None => Held::Lost,
    }
}

/// Records that the cluster's actions reached `phase`, renewing the hold.
pub fn set_phase(
    record: &mut FleetRecord,
    cluster: &str,
    lease: &mut Lease,
    phase: Phase,
    now_ms: u64,
) -> Held {
    match held(record, cluster, lease, now_ms) {
        Some(c) => {
            lease.heartbeat_ms = now_ms;
            c.phase = c.phase.max(phase);
            c.status = ClusterStatus::Active {
                lease: lease.clone(),
            };
            Held::Yes
        }
        None => Held::Lost,
    }
}

/// Ends the worker's cluster: done with `Ok(detail)`, failed with `Err(error)`. A failure that
/// brings its stage's failures to the stage's threshold halts the fleet.
pub fn end_cluster(
    record: &mut FleetRecord,
    cluster: &str,
    lease: &Lease,
    outcome: Result<String, ClusterFailure>,
    now_ms: u64,
) -> Held {
    let Some(c) = held(record, cluster, lease, now_ms) else {
        return Held::Lost;
    };
    let stage = c.stage;
    c.ended_ms = Some(now_ms);
    let failed = outcome.is_err();
    c.status = match outcome {
        Ok(detail) => ClusterStatus::Done { detail },
        Err(error) => ClusterStatus::Failed {
            error: error.to_string(),
        },
    };
    if failed {
        let failures = record.failures_in(stage);
        let planned = &record.plan.stages[stage];
        if failures >= planned.halt_after && record.halted.is_none() {
            record.halted = Some(format!(
                "stage {}: {failures} cluster{} failed (it halts the fleet after {})",
                planned.name,
                if failures == 1 { "" } else { "s" },
                planned.halt_after
            ));
        }
    }
    Held::Yes
}

/// Ends the worker's run of stage `stage`'s gates: passed, the stage runs; failed (`Err` with
/// the gate's line), the fleet halts. `Ok(false)`-like renewals are [`Held::Yes`] with
/// `passed: None`: the hold renewed while a gate still runs.
pub fn end_gates(
    record: &mut FleetRecord,
    stage: usize,
    lease: &mut Lease,
    passed: Option<Result<(), GateFailure>>,
    now_ms: u64,
) -> Held {
    let lease_ms = record.plan.lease_ms;
    let Some(progress) = record.stages.get_mut(stage) else {
        return Held::Lost;
    };
    let mine = matches!(&progress.status, StageStatus::Gating { lease: current }
        if current.owner == lease.owner && current.claim == lease.claim && current.live(now_ms, lease_ms));
    if !mine {
        return Held::Lost;
    }
    match passed {
        None => {
            lease.heartbeat_ms = now_ms;
            progress.status = StageStatus::Gating {
                lease: lease.clone(),
            };
        }
        Some(Ok(())) => {
            progress.status = StageStatus::Running;
            progress.started_ms = Some(now_ms);
        }
        Some(Err(line)) => {
            progress.status = StageStatus::Waiting;
            let name = record.plan.stages[stage].name.clone();
            record
                .halted
                .get_or_insert(format!("a gate of stage {name} failed: {line}"));
        }
    }
    Held::Yes
}

/// Cancels the fleet: no new cluster starts; those running reach a safe point. `false` when it
/// had already ended.
pub fn cancel(record: &mut FleetRecord) -> bool {
    if record.ended_ms.is_some() {
        return false;
    }
    record.cancelled = true;
    true
}
