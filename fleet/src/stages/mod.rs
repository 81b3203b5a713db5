//! Stages: the fleet file's `[[stage]]` entries (or the flags' short form) and how the selected
//! clusters are cut into them, in order: a fixed count, a percentage of the selection, or the
//! rest.

mod file;
mod split;

pub use file::{FleetFile, SettingsSpec, StageSpec, StagesError, check_stage, parse_fleet_file};
pub use split::split;
