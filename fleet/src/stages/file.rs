//! The fleet file (TOML): the selection, the actions and the stages, every key known, every
//! value checked before anything acts.
//!
//! ```toml
//! to = "1.33.1"
//! halt_after = 2
//! [select]
//! zone = "zone1"
//! version = "<1.33"
//! [[stage]]
//! name = "canary"
//! clusters = 1
//! soak = "30m"
//! [[stage]]
//! name = "ten-percent"
//! percent = 10
//! parallelism = 2
//! soak = "30m"
//! [[stage]]
//! name = "rest"
//! parallelism = 4
//! ```

use serde::Deserialize;

use crate::select::Selection;

/// Why a fleet file or a stage was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StagesError(pub String);

/// One stage as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    /// Its name (default `stage-N`).
    pub name: Option<String>,
    /// A fixed number of clusters.
    pub clusters: Option<u32>,
    /// A percentage of the selection (rounded up, at least one cluster).
    pub percent: Option<u32>,
    /// Clusters at once (default 1).
    pub parallelism: Option<u32>,
    /// The wait after the stage (`30m`).
    pub soak: Option<String>,
    /// Commands that must pass before the stage starts (after the fleet-wide ones).
    #[serde(default)]
    pub gates: Vec<String>,
    /// Failed clusters in the stage that halt the fleet (default the fleet's `halt_after`).
    pub halt_after: Option<u32>,
}

/// The node settings as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsSpec {
    /// `TYPE=ID`, as `--offering`.
    #[serde(default)]
    pub offering: Vec<String>,
    /// `TYPE=GB`, as `--root-disk-size`.
    #[serde(default, rename = "root-disk-size")]
    pub root_disk_size: Vec<String>,
    /// `TYPE=IDS`, as `--affinity-groups`.
    #[serde(default, rename = "affinity-groups")]
    pub affinity_groups: Vec<String>,
}

/// A whole fleet file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetFile {
    /// The version to upgrade to, as `--to`.
    pub to: Option<String>,
    /// Node settings, as the rollout's flags.
    pub settings: Option<SettingsSpec>,
    /// Which clusters.
    #[serde(default)]
    pub select: Selection,
    /// Failed clusters in a stage that halt the fleet (default 1).
    pub halt_after: Option<u32>,
    /// Gates before every stage.
    #[serde(default)]
    pub gates: Vec<String>,
    /// Maintenance windows, as `--window`.
    #[serde(default)]
    pub windows: Vec<String>,
    /// The stages, in order.
    #[serde(default, rename = "stage")]
    pub stages: Vec<StageSpec>,
}

/// Parses a fleet file's text; `source` names it in errors.
pub fn parse_fleet_file(text: &str, source: &str) -> Result<FleetFile, StagesError> {
    let file: FleetFile = toml::from_str(text).map_err(|e| {
        StagesError(format!(
            "{source}: {}; see README's Fleet section for the keys",
            e.to_string().trim().replace('\n', " ")
        ))
    })?;
    for (i, stage) in file.stages.iter().enumerate() {
        check_stage(stage, i, source)?;
    }
    if file.halt_after == Some(0) {
        return Err(StagesError(format!(
            "{source}: halt_after = 0: expected 1 or more failed clusters (1 halts at the first failure)"
        )));
    }
    Ok(file)
}

/// Checks one stage's values, naming it.
pub fn check_stage(stage: &StageSpec, i: usize, source: &str) -> Result<(), StagesError> {
    let name = stage
        .name
        .clone()
        .unwrap_or_else(|| format!("stage {}", i + 1));
    let at = format!("{source}: stage {name:?}");
    if stage.parallelism == Some(0) {
        return Err(StagesError(format!(
            "{at}: parallelism = 0: expected 1 or more clusters at once"
        )));
    }
    if stage.halt_after == Some(0) {
        return Err(StagesError(format!(
            "{at}: halt_after = 0: expected 1 or more failed clusters"
        )));
    }
    match (stage.clusters, stage.percent) {
        (Some(_), Some(_)) => {
            return Err(StagesError(format!(
                "{at}: both clusters and percent: give one (or neither, for the rest)"
            )));
        }
        (Some(0), _) => {
            return Err(StagesError(format!(
                "{at}: clusters = 0: expected 1 or more (or leave it out for the rest)"
            )));
        }
        (_, Some(p)) if p == 0 || p > 100 => {
            return Err(StagesError(format!(
                "{at}: percent = {p}: expected 1 to 100"
            )));
        }
        _ => {}
    }
    if let Some(soak) = &stage.soak {
        cks_rollout::cli::duration::parse(soak)
            .map_err(|e| StagesError(format!("{at}: soak: {e}")))?;
    }
    Ok(())
}
