//! The upgrade hook against real sshd nodes on loopback (some with their own containerd) and the
//! CloudStack fake.
//!
//! Every test file is a module of this one test binary, so the workspace links a handful of test
//! binaries instead of one per file (each links the whole dependency tree).

mod common;

mod cli_docs;
mod cloudstack_lines;
mod command_cli;
mod duration_flags;
mod preload_cut_off;
mod preload_iso;
mod preload_nodes;
mod preload_refusals;
mod redeploy_from_cluster_id;
mod redeploy_over_ssh;
mod ssh_failures;
mod terminal_safety;
mod upgrade_cluster;
mod upgrade_with_preload;
