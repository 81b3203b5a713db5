//! The small synchronous traits the engine drives: the only way it reaches the world. Real
//! adapters and the simulator implement them.

mod clock;
mod cloud;
mod error;
mod etcd;
mod hooks;
mod kube;
mod store;

pub use clock::Clock;
pub use cloud::{Cloud, Job, JobCall, JobStatus};
pub use error::{PortError, PortErrorKind, PortResult};
pub use etcd::Etcd;
pub use hooks::{GateCall, GateRun, GateStatus, Hooks, is_dns1123_subdomain};
pub use kube::Kube;
pub use store::Store;

/// The five ports together, as the engine takes them.
pub struct Ports<'a> {
    /// CloudStack.
    pub cloud: &'a mut dyn Cloud,
    /// Kubernetes.
    pub kube: &'a mut dyn Kube,
    /// etcd.
    pub etcd: &'a mut dyn Etcd,
    /// The cluster store.
    pub store: &'a mut dyn Store,
    /// The clock.
    pub clock: &'a mut dyn Clock,
    /// The operator's gate commands (None: no gate can run; a rollout asking for one stops
    /// before its first batch).
    pub hooks: Option<&'a mut dyn Hooks>,
}
