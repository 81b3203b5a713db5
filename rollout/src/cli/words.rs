//! Values as a person writes them in the text output: step and state names as the events
//! file has them, durations as `--soak` takes them (`10m`), offerings by name, a node's
//! change and the reason it is in the plan in words.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use cks_rollout::engine::outdated::Change;
use cks_rollout::engine::{ScanOutcome, WorkReason, duration_text};
use cks_rollout::model::ServiceOffering;

/// The name a value has in JSON and the events file (`change_offering`, `Running`).
pub fn name<T: Serialize + std::fmt::Debug>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        _ => format!("{value:?}"),
    }
}

/// Milliseconds on the rollout's clock as a duration (`1h18m54s`).
pub fn elapsed(ms: u64) -> String {
    duration_text(Duration::from_millis(ms))
}

/// Service offering names by id; an id it does not know is shown as it is.
#[derive(Debug, Clone, Default)]
pub struct Offerings(BTreeMap<String, String>);

impl Offerings {
    /// The names of `offerings`.
    pub fn new(offerings: &[ServiceOffering]) -> Self {
        Offerings(
            offerings
                .iter()
                .map(|o| (o.id.clone(), o.name.clone()))
                .collect(),
        )
    }

    /// The offering `id`'s name.
    pub fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.0.get(id).map_or(id, String::as_str)
    }
}

/// A change in words: `offering small -> large`, `root disk 20 GB -> 40 GB`.
pub fn change(change: &Change, offerings: &Offerings) -> String {
    let groups = |ids: &[String]| {
        if ids.is_empty() {
            "none".to_string()
        } else {
            ids.join(",")
        }
    };
    match change {
        Change::Offering { from, to } => format!(
            "offering {} -> {}",
            offerings.name(from),
            offerings.name(to)
        ),
        Change::RootDisk { from_gb, to_gb, .. } => {
            format!("root disk {from_gb} GB -> {to_gb} GB")
        }
        Change::AffinityGroups { from, to } => {
            format!("affinity groups {} -> {}", groups(from), groups(to))
        }
    }
}

/// Why a node is in the plan, in words.
pub fn reason(reason: WorkReason) -> &'static str {
    match reason {
        WorkReason::Stopped => "its VM is stopped: first",
        WorkReason::Interrupted => "left by a rollout that stopped: first",
        WorkReason::OutOfDate => "out of date",
        WorkReason::Restart => "restart asked",
    }
}

/// What the state scanner did, in words.
pub fn scan(outcome: &ScanOutcome) -> String {
    match outcome {
        ScanOutcome::NotUpdating => "not Updating: nothing to do".to_string(),
        ScanOutcome::OwnerAlive { owner } => {
            format!("Updating, and its owner {owner} holds the lease: left alone")
        }
        ScanOutcome::MovedToAlert { cores, memory_mb } => format!(
            "moved to Alert (its owner's lease expired), capacity recounted: {cores} cores, {memory_mb} MiB"
        ),
    }
}

#[cfg(test)]
mod tests {
    use cks_rollout::engine::StepKind;
    use cks_rollout::model::ClusterState;

    use super::*;

    #[test]
    fn values_read_as_a_person_writes_them() {
        assert_eq!(name(&StepKind::ChangeOffering), "change_offering");
        assert_eq!(name(&ClusterState::Running), "Running");
        assert_eq!(elapsed(4_734_000), "1h18m54s");
        let offerings = Offerings::new(&[]);
        let c = Change::RootDisk {
            volume_id: "v".into(),
            from_gb: 20,
            to_gb: 40,
        };
        assert_eq!(change(&c, &offerings), "root disk 20 GB -> 40 GB");
    }
}
