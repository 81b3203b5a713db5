//! The data the fleet's rules, its workers and its store share: the plan fixed when the fleet is
//! created ([`FleetPlan`]), and the record every worker changes in the store ([`FleetRecord`]).

mod plan;
mod record;

pub use plan::{Actions, FleetPlan, NodeSettings, PlannedStage, SkippedCluster, TargetVersion};
pub use record::{
    ClusterProgress, ClusterStatus, FleetRecord, Lease, Phase, StageProgress, StageStatus,
};
