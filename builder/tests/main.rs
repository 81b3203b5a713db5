//! The builder's integration tests: downloads, ls-remote, image pulls, ISO packing and reading,
//! inspection and the `cks-iso` CLI, against real components where they run here.
//!
//! Every test file is a module of this one test binary, so the workspace links a handful of test
//! binaries instead of one per file (each links the whole dependency tree).

mod inspect_support;
mod iso_support;
mod pull_common;

mod build_cli;
mod build_dashboard_args;
mod build_dashboard_redirect;
mod build_early_checks;
mod build_error_lines;
mod build_file_size_limit;
mod build_free_space;
mod build_interrupt;
mod build_kube_minor;
mod build_kubeadm_confined;
mod build_mirror_password;
mod build_progress;
mod build_requests;
mod build_signature_flags;
mod build_tmp_dir;
mod cache_cli;
mod catalog_signing;
mod cli_docs;
mod config_keys;
mod demo_program;
mod diff_isos;
mod fetch_cache;
mod fetch_checksums;
mod fetch_faults;
mod fetch_resume;
mod fetch_sources;
mod file_modes;
mod iso_cli;
mod iso_forgeries;
mod iso_large;
mod iso_reader;
mod iso_readers;
mod iso_reproducible;
mod iso_store_behind;
mod limits_attacks;
mod ls_remote;
mod ls_remote_limits;
mod ls_remote_resolve;
mod manifest_attacks;
mod min_rate;
mod output_lock;
mod pull_auth;
mod pull_cache_dir;
mod pull_cli;
mod pull_containerd;
mod pull_cred_helpers;
mod pull_digest_header;
mod pull_docker_archive;
mod pull_failures;
mod pull_limits;
mod pull_resume;
mod pull_tls;
mod readme_commands;
mod readme_flags;
mod register_answer_bound;
mod release_cli;
mod release_flags;
mod release_minors;
mod resolve_cli;
mod show_iso;
mod signature_referrers;
mod stdout_closed;
mod verify_containerd;
mod verify_findings;
mod verify_release_folder;
mod verify_tarballs;
mod verify_xorriso;
