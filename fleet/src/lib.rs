//! A fleet of CKS clusters upgraded and re-set in stages: a canary first, then larger stages,
//! a soak after each, gates before each, and a failure threshold that halts the fleet; several
//! workers, on several machines, share one store, and each cluster is held by one worker at a
//! time.
//!
//! The fleet drives the one-cluster tools (`cks-upgrade-hook upgrade`, `cks-rollout run`); it
//! is not a second engine. Its decisions are pure ([`rules`]) and run by every store; a worker
//! ([`worker`]) is a state machine behind small ports ([`ports`]), driven by the command line
//! with the real adapters ([`adapters`]) and by a deterministic simulator ([`sim`]).
//!
//! - [`model`]: the plan and the record the store keeps.
//! - [`stages`]: the stage file and how the selection is cut into stages.
//! - [`select`]: which clusters a fleet takes, and which it refuses, from CloudStack's facts.

pub mod adapters;
#[doc(hidden)]
pub mod cli;
pub mod model;
pub mod ports;
pub mod rules;
pub mod select;
pub mod sim;
pub mod stages;
pub mod worker;
