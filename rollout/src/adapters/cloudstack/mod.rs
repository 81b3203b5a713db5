//! The CloudStack side: the engine's Cloud port on the signed client of [`cks_cloudstack`]
//! (re-exported here under the names the rollout has always used), and the record a store
//! imports from a cluster's answer.

pub mod port;
pub mod record;

pub use cks_cloudstack::{
    AffinityGroup, CloudStackClient, CloudStackConfig, CloudStackError, DiskOffering, Secret,
    ServiceOffering, VirtualMachine, Volume, client, config, sign, types,
};
pub use port::CloudStackCloud;
pub use record::imported_record;
