//! The fleet's summary, read from its record: each cluster upgraded, skipped with the reason,
//! failed with the error, or not started because the fleet stopped.

use serde::Serialize;

use crate::model::{ClusterStatus, FleetRecord};

/// How one cluster ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Done.
    Done,
    /// Refused when the fleet was planned.
    Skipped,
    /// Failed.
    Failed,
    /// Not started: the fleet halted or was cancelled first.
    NotStarted,
    /// Still held by a worker (the fleet has not ended).
    Running,
}

/// One cluster's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterLine {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its stage's name (none for a skipped cluster).
    pub stage: Option<String>,
    /// How it ended.
    pub ending: Ending,
    /// What was done, or why not.
    pub detail: String,
}

/// The whole summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// The fleet.
    pub fleet: String,
    /// Every cluster, stage by stage, the skipped ones last.
    pub clusters: Vec<ClusterLine>,
    /// Why the fleet halted, if it did.
    pub halted: Option<String>,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// Whether it ended.
    pub ended: bool,
}

impl Summary {
    /// The summary of `record`.
    pub fn of(record: &FleetRecord) -> Summary {
        let mut clusters = Vec::new();
        for (i, stage) in record.plan.stages.iter().enumerate() {
            for (id, c) in record.stage_clusters(i) {
                let (ending, detail) = match &c.status {
                    ClusterStatus::Done { detail } => (Ending::Done, detail.clone()),
                    ClusterStatus::Failed { error } => (Ending::Failed, error.clone()),
                    ClusterStatus::Active { lease } => {
                        (Ending::Running, format!("held by {}", lease.owner))
                    }
                    ClusterStatus::Pending if record.halted.is_some() => (
                        Ending::NotStarted,
                        "not started: the fleet halted".to_string(),
                    ),
                    ClusterStatus::Pending if record.cancelled => (
                        Ending::NotStarted,
                        "not started: the fleet was cancelled".to_string(),
                    ),
                    ClusterStatus::Pending => (Ending::NotStarted, "not started yet".to_string()),
                };
                clusters.push(ClusterLine {
                    id: id.clone(),
                    name: c.name.clone(),
                    stage: Some(stage.name.clone()),
                    ending,
                    detail,
                });
            }
        }
        for s in &record.plan.skipped {
            clusters.push(ClusterLine {
                id: s.id.clone(),
                name: s.name.clone(),
                stage: None,
                ending: Ending::Skipped,
                detail: s.reason.clone(),
            });
        }
        Summary {
            fleet: record.id.clone(),
            clusters,
            halted: record.halted.clone(),
            cancelled: record.cancelled,
            ended: record.ended_ms.is_some(),
        }
    }

    /// How many clusters ended as `ending`.
    pub fn count(&self, ending: &Ending) -> usize {
        self.clusters.iter().filter(|c| &c.ending == ending).count()
    }
}
