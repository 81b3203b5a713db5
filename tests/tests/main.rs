//! End-to-end builds of the CKS ISO against the real registry, git servers and readers.
//!
//! Every test file is a module of this one test binary, so the workspace links a handful of test
//! binaries instead of one per file (each links the whole dependency tree).

mod attacks;
mod build_arm64_and_lock;
mod build_cache;
mod build_cache_registry;
mod build_dashboards;
mod build_faults;
mod build_mirrors;
mod build_real_components;
mod build_sbom;
mod build_signatures;
mod node_replay;
mod register_catalog;
mod register_catalog_refusals;
mod register_fit;
mod register_iso;
mod register_iso_trust;
mod register_lines;
