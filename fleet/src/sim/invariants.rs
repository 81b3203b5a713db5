//! The fleet's invariants, checked after every simulated step and at the end:
//!
//! - `stage-parallelism`: never more clusters of a stage in progress than it allows;
//! - `one-worker-per-cluster`: no cluster acted on by two live workers at once;
//! - `upgraded-once`: no cluster's upgrade started twice;
//! - `stage-order`: no cluster starts before every earlier stage passed (soak and threshold);
//! - `halted-starts-nothing`: once halted or cancelled, no new cluster starts;
//! - `summary-complete` (at the end): every cluster ends in a state the summary reports, a
//!   done cluster is on the target version, the fleet ended.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::cloud::SimCloud;
use crate::model::{ClusterStatus, FleetRecord, StageStatus};
use crate::worker::{Ending, Summary};

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Its name.
    pub invariant: &'static str,
    /// The step it broke at (0: at the end).
    pub step: u64,
    /// What happened.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant {} broken at step {}: {}",
            self.invariant, self.step, self.detail
        )
    }
}

/// The checker, with what it saw so far.
pub struct Checker {
    target: Option<semver::Version>,
    started: BTreeSet<String>,
    stopping: bool,
    /// What broke.
    pub violations: Vec<Violation>,
}

impl Checker {
    /// A checker for a fleet upgrading to `target`.
    pub fn new(target: Option<semver::Version>) -> Self {
        Checker {
            target,
            started: BTreeSet::new(),
            stopping: false,
            violations: Vec::new(),
        }
    }

    fn broke(&mut self, invariant: &'static str, step: u64, detail: String) {
        if !self.violations.iter().any(|v| v.invariant == invariant) {
            self.violations.push(Violation {
                invariant,
                step,
                detail,
            });
        }
    }

    /// Checks after step `step`; `acting` pairs each live worker with the cluster it acts on.
    pub fn after_step(
        &mut self,
        step: u64,
        record: &FleetRecord,
        cloud: &SimCloud,
        acting: &[(String, String)],
    ) {
        for (i, planned) in record.plan.stages.iter().enumerate() {
            let active = record
                .stage_clusters(i)
                .filter(|(_, c)| matches!(c.status, ClusterStatus::Active { .. }))
                .count() as u32;
            if active > planned.parallelism {
                self.broke(
                    "stage-parallelism",
                    step,
                    format!(
                        "stage {}: {active} clusters in progress, parallelism {}",
                        planned.name, planned.parallelism
                    ),
                );
            }
        }
        let mut by_cluster: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (worker, cluster) in acting {
            by_cluster.entry(cluster).or_default().push(worker);
        }
        for (cluster, workers) in by_cluster {
            if workers.len() > 1 {
                self.broke(
                    "one-worker-per-cluster",
                    step,
                    format!("{cluster} acted on by {}", workers.join(" and ")),
                );
            }
        }
        for (id, c) in &cloud.clusters {
            if c.upgrades > 1 {
                self.broke(
                    "upgraded-once",
                    step,
                    format!("{id}: {} upgrade jobs started", c.upgrades),
                );
            }
        }
        for (id, c) in &record.clusters {
            if c.started_ms.is_none() || self.started.contains(id) {
                continue;
            }
            self.started.insert(id.clone());
            if self.stopping {
                self.broke(
                    "halted-starts-nothing",
                    step,
                    format!("{id} started after the fleet stopped"),
                );
            }
            if let Some(i) = (0..c.stage).find(|i| record.stages[*i].status != StageStatus::Passed)
            {
                self.broke(
                    "stage-order",
                    step,
                    format!(
                        "{id} of stage {} started before stage {} passed",
                        record.plan.stages[c.stage].name, record.plan.stages[i].name
                    ),
                );
            }
            let soaked = (0..c.stage).all(|i| {
                let passed = record.stages[i].passed_ms.unwrap_or(u64::MAX);
                let ended = record
                    .stage_clusters(i)
                    .filter_map(|(_, x)| x.ended_ms)
                    .max()
                    .unwrap_or(0);
                passed >= ended + record.plan.stages[i].soak_ms || i + 1 == record.stages.len()
            });
            if !soaked {
                self.broke(
                    "stage-order",
                    step,
                    format!("{id} started before an earlier stage's soak ended"),
                );
            }
        }
        self.stopping = record.stopping();
    }

    /// Checks the end.
    pub fn at_end(&mut self, record: &FleetRecord, cloud: &SimCloud) {
        let summary = Summary::of(record);
        if record.ended_ms.is_none() {
            self.broke("summary-complete", 0, "the fleet did not end".into());
        }
        let listed: BTreeSet<&str> = summary.clusters.iter().map(|c| c.id.as_str()).collect();
        for id in record.clusters.keys() {
            if !listed.contains(id.as_str()) {
                self.broke(
                    "summary-complete",
                    0,
                    format!("{id} is missing from the summary"),
                );
            }
        }
        for line in &summary.clusters {
            match line.ending {
                Ending::Running => self.broke(
                    "summary-complete",
                    0,
                    format!("{} still running at the end", line.id),
                ),
                Ending::Done => {
                    if let (Some(t), Some(c)) = (&self.target, cloud.clusters.get(&line.id))
                        && c.version != *t
                    {
                        self.broke(
                            "summary-complete",
                            0,
                            format!("{} reported done but runs {}", line.id, c.version),
                        );
                    }
                }
                Ending::Failed if line.detail.is_empty() => self.broke(
                    "summary-complete",
                    0,
                    format!("{} failed without a reason", line.id),
                ),
                Ending::NotStarted if !record.stopping() => self.broke(
                    "summary-complete",
                    0,
                    format!("{} never started though the fleet did not stop", line.id),
                ),
                _ => {}
            }
        }
    }
}
