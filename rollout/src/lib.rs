//! The engine behind a CKS cluster update: per node type offerings, root disk sizes and affinity
//! groups, and a rollout that restarts out-of-date nodes a few at a time, cordoning and draining
//! each, with quorum-safe preflight checks and a resumable, idempotent release.
//!
//! The core is a state machine driven through small traits (cloud, kube, store, clock), so the
//! deterministic simulator in this crate and the real CloudStack and Kubernetes adapters drive the
//! same code.

pub mod adapters;
pub mod engine;
pub mod model;
pub mod ports;
pub mod sim;
