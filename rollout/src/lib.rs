//! The engine behind a CKS cluster update: per node type offerings, root disk sizes and affinity
//! groups, and a rollout that restarts out-of-date nodes a few at a time, cordoning and draining
//! each, with quorum-safe preflight checks and a resumable, idempotent release.
//!
//! The core is a state machine driven through small traits (cloud, kube, store, clock), so the
//! deterministic simulator in this crate and the real CloudStack and Kubernetes adapters drive the
//! same code.
//!
//! - [`ports`]: the traits (`Cloud`, `Kube`, `Etcd`, `Store`, `Clock`) and [`ports::Ports`].
//! - [`model`]: the data they carry (VMs, offerings, nodes, etcd members, the cluster record).
//! - [`engine`]: the update call ([`engine::update`]), [`engine::plan_update`],
//!   [`engine::release`], the state scanner [`engine::scan`] and the cluster view.
//! - [`sim`]: the deterministic simulator and its invariants.
//! - [`live`]: the commands on a real cluster, found from its id through [`cks_discovery`]
//!   (its kubeconfig, nodes, API servers and SSH addresses).
//!
//! ```
//! use cks_rollout::engine::{self, EngineConfig, NoProgress, UpdateOutcome, UpdateRequest};
//! use cks_rollout::sim::{ClusterSpec, Simulation};
//!
//! let spec: ClusterSpec = serde_norway::from_str(
//!     "service_offering: small\n\
//!      offerings: [{id: small, name: s, cpu_cores: 2, memory_mb: 4096},\n\
//!                  {id: large, name: l, cpu_cores: 4, memory_mb: 8192}]\n\
//!      control: {count: 3}\nworkers: {count: 4}\n",
//! )
//! .expect("a cluster description");
//! let sim = Simulation::new(&spec, 1).expect("simulable");
//! let mut req = UpdateRequest { rollout: true, max_unavailable: Some(2), ..Default::default() };
//! req.node_offerings.insert("worker".into(), "large".into());
//!
//! // What would happen, then do it: any `Ports` (real adapters or the simulator's) will do.
//! let mut handles = sim.ports();
//! let plan = engine::plan_update(&mut handles.ports(), "cluster-1", &req).expect("a plan");
//! assert_eq!(plan.phases[0].batches.len(), 2);
//! let out = engine::update(&mut handles.ports(), "cluster-1", &req, &EngineConfig::default(), &mut NoProgress)
//!     .expect("accepted");
//! let UpdateOutcome::RolledOut(report) = out else { panic!("a rollout") };
//! assert_eq!(report.run.done, ["w-1", "w-2", "w-3", "w-4"]);
//! ```

// The command line is part of the library (so the packaging can render its man page and
// completions) and names this crate as its binary does.
extern crate self as cks_rollout;

pub mod adapters;
#[doc(hidden)]
pub mod cli;
pub mod engine;
pub mod events;
pub mod live;
pub mod model;
pub mod ports;
pub mod sim;
