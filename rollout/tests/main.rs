//! The rollout engine's tests: the deterministic simulator driving the core through faults, and the
//! adapters against real etcd, SQLite, `kubectl` and the Python `cs` client.
//!
//! Every test file is a module of this one test binary, so the workspace links a handful of test
//! binaries instead of one per file (each links the whole dependency tree).

mod adapter_support;
mod common;
mod cs_support;
mod discovery_support;
mod kube_support;
mod store_contract;
mod two_processes;
mod unknown_cluster;

mod adapter_cli;
mod adapter_cli_postgres;
mod adapter_cloudstack_client;
mod adapter_cloudstack_cs;
mod adapter_end_to_end;
mod adapter_etcd;
mod adapter_etcd_identity;
mod adapter_failed_stop;
mod adapter_kube_client;
mod adapter_kube_kubectl;
mod adapter_lease_postgres;
mod adapter_many_clusters_postgres;
mod adapter_release_kube;
mod adapter_state_guard;
mod adapter_store;
mod adapter_store_postgres;
mod adapter_store_postgres_tls;
mod answer_bounds;
mod autoscaler_risk;
mod batch_work;
mod cancel;
mod cases;
mod cli_docs;
mod cli_live;
mod cli_simulate;
mod cloudstack_lines;
mod controls;
mod crash;
mod description;
mod discovery_cs;
mod discovery_end_to_end;
mod discovery_errors;
mod discovery_fetched;
mod duration_flags;
mod engine_refusals;
mod events;
mod examples;
mod gate;
mod gate_shown;
mod inactive_offerings;
mod invariant_breakage;
mod invariant_steps;
mod job_looks;
mod lease;
mod lifecycle;
mod project_cluster;
mod property;
mod recheck;
mod release_edges;
mod replan;
mod restart;
mod rollout_order;
mod rollout_steps;
mod rollout_verify;
mod settle;
mod soak;
mod store_lease;
mod update_call;
mod watch;
mod window;
