//! What a worker does next: take over a lapsed hold, run a stage's gates, claim a cluster,
//! wait, or stop; stages move on here as their clusters end and their soak passes.

use cks_rollout::engine::window;
use std::time::Duration;

use crate::model::{ClusterStatus, FleetRecord, Lease, Phase, StageStatus};

/// What the worker should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Act on this cluster, from `phase`, under `lease`.
    Act {
        /// The cluster's id.
        cluster: String,
        /// The worker's new hold.
        lease: Lease,
        /// How far earlier claims got.
        phase: Phase,
        /// True when the hold was another worker's and lapsed.
        takeover: bool,
    },
    /// Run the gates of stage `stage` under `lease`.
    Gate {
        /// The stage's index.
        stage: usize,
        /// The worker's new hold.
        lease: Lease,
    },
    /// Nothing to take now: ask again after this long at the most.
    Wait {
        /// How long.
        ms: u64,
        /// Why.
        why: WaitFor,
    },
    /// The fleet ended: every stage passed, or it halted or was cancelled and nothing runs.
    Finished,
}

/// Why a worker waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitFor {
    /// Other workers hold every cluster that may run now.
    Busy,
    /// A stage soaks.
    Soak {
        /// The stage's index.
        stage: usize,
    },
    /// No window is open.
    Window {
        /// When the next opens (wall ms), if any does.
        opens_ms: Option<u64>,
    },
    /// The fleet stops: clusters still running reach a safe point.
    Stopping,
}

/// How long a worker waits at the most before it asks again.
pub const POLL_MS: u64 = 2_000;

/// What `worker` should do at `now_ms` (the store's clock), changing `record` as it claims.
pub fn next(record: &mut FleetRecord, worker: &str, now_ms: u64) -> Next {
    if record.ended_ms.is_some() {
        return Next::Finished;
    }
    let lease_ms = record.plan.lease_ms;
    let claim = |claims: u32| Lease {
        owner: worker.to_string(),
        heartbeat_ms: now_ms,
        claim: claims + 1,
    };
    // A lapsed hold on a cluster is taken over first, halted or not: the cluster started, and
    // its actions must reach a safe point.
    let lapsed = record
        .clusters
        .iter()
        .find(|(_, c)| matches!(&c.status, ClusterStatus::Active { lease } if !lease.live(now_ms, lease_ms)))
        .map(|(id, _)| id.clone());
    if let Some(id) = lapsed
        && let Some(c) = record.clusters.get_mut(&id)
    {
        let lease = claim(c.claims);
        c.claims += 1;
        c.status = ClusterStatus::Active {
            lease: lease.clone(),
        };
        record.takeovers += 1;
        return Next::Act {
            cluster: id,
            lease,
            phase: c.phase,
            takeover: true,
        };
    }
    let running = record
        .clusters
        .values()
        .filter(|c| matches!(c.status, ClusterStatus::Active { .. }))
        .count();
    if record.stopping() {
        if running > 0 {
            return Next::Wait {
                ms: POLL_MS,
                why: WaitFor::Stopping,
            };
        }
        record.ended_ms = Some(now_ms);
        return Next::Finished;
    }
    loop {
        let Some(stage) = record
            .stages
            .iter()
            .position(|s| s.status != StageStatus::Passed)
        else {
            record.ended_ms = Some(now_ms);
            return Next::Finished;
        };
        let gates = !record.plan.stages[stage].gates.is_empty();
        match record.stages[stage].status.clone() {
            StageStatus::Passed => continue,
            StageStatus::Waiting if gates => {
                let lease = claim(0);
                record.stages[stage].status = StageStatus::Gating {
                    lease: lease.clone(),
                };
                return Next::Gate { stage, lease };
            }
            StageStatus::Waiting => {
                record.stages[stage].status = StageStatus::Running;
                record.stages[stage].started_ms = Some(now_ms);
            }
            StageStatus::Gating { lease } if lease.live(now_ms, lease_ms) => {
                return Next::Wait {
                    ms: POLL_MS.min(lease_ms),
                    why: WaitFor::Busy,
                };
            }
            StageStatus::Gating { lease } => {
                let lease = claim(lease.claim);
                record.stages[stage].status = StageStatus::Gating {
                    lease: lease.clone(),
                };
                record.takeovers += 1;
                return Next::Gate { stage, lease };
            }
            StageStatus::Soaking { until_ms } if now_ms < until_ms => {
                return Next::Wait {
                    ms: (until_ms - now_ms).min(POLL_MS),
                    why: WaitFor::Soak { stage },
                };
            }
            StageStatus::Soaking { .. } => {
                record.stages[stage].status = StageStatus::Passed;
                record.stages[stage].passed_ms = Some(now_ms);
            }
            StageStatus::Running => return running_stage(record, stage, worker, now_ms),
        }
    }
}

/// The rules of a running stage: claim its next pending cluster within its parallelism and an
/// open window; once every cluster ended, soak.
fn running_stage(record: &mut FleetRecord, stage: usize, worker: &str, now_ms: u64) -> Next {
    let planned = &record.plan.stages[stage];
    let (mut active, mut pending) = (0u32, None);
    for (id, c) in record.stage_clusters(stage) {
        match c.status {
            ClusterStatus::Active { .. } => active += 1,
            ClusterStatus::Pending if pending.is_none() => pending = Some(id.clone()),
            _ => {}
        }
    }
    if let Some(id) = pending {
        if active >= planned.parallelism {
            return Next::Wait {
                ms: POLL_MS,
                why: WaitFor::Busy,
            };
        }
        let wall = Duration::from_millis(now_ms);
        if !window::any_open(&record.plan.windows, wall) {
            let opens_ms =
                window::next_open(&record.plan.windows, wall).map(|d| d.as_millis() as u64);
            return Next::Wait {
                ms: opens_ms.map_or(60_000, |at| at.saturating_sub(now_ms).clamp(1, 60_000)),
                why: WaitFor::Window { opens_ms },
            };
        }
        let Some(c) = record.clusters.get_mut(&id) else {
            return Next::Wait {
                ms: POLL_MS,
                why: WaitFor::Busy,
            };
        };
        let lease = Lease {
            owner: worker.to_string(),
            heartbeat_ms: now_ms,
            claim: c.claims + 1,
        };
        c.claims += 1;
        c.started_ms = Some(now_ms);
        c.status = ClusterStatus::Active {
            lease: lease.clone(),
        };
        return Next::Act {
            cluster: id,
            lease,
            phase: c.phase,
            takeover: false,
        };
    }
    if active > 0 {
        return Next::Wait {
            ms: POLL_MS,
            why: WaitFor::Busy,
        };
    }
    // Every cluster of the stage ended (the threshold was checked as each failed).
    let soak_ms = planned.soak_ms;
    let last = stage + 1 == record.stages.len();
    if soak_ms == 0 || last {
        record.stages[stage].status = StageStatus::Passed;
        record.stages[stage].passed_ms = Some(now_ms);
        return next(record, worker, now_ms);
    }
    record.stages[stage].status = StageStatus::Soaking {
        until_ms: now_ms.saturating_add(soak_ms),
    };
    Next::Wait {
        ms: soak_ms.min(POLL_MS),
        why: WaitFor::Soak { stage },
    }
}
