//! The network and disk edge of cks-iso: downloads, git tag listing, image pulls, the ISO writer
//! and the `cks-iso` command that wires them to the pure decisions of [`cks_pinning`].
//!
//! Where each behaviour lives:
//!
//! | folder / file | behaviour |
//! |---|---|
//! | [`pipeline`] | `cks-iso build` and `resolve`: options → plan → execution (orders the work; the rules are `cks_pinning`'s) |
//! | [`fetch`] | file downloads: checksums, fallbacks, mirrors, the content cache, resumes |
//! | [`git`] | listing a remote's tags (`git ls-remote`) over http(s), git:// or a local path |
//! | [`registry`] | image pulls: auth, platforms, the blob store, the layout tarballs (and the check of one from a cache) |
//! | [`cache_registry`] | `--cache-registry`: an OCI registry as the build cache CI runners share |
//! | [`store`] | finished ISOs from a cache, each checked before it is used |
//! | [`artifact`] | what a cache entry is keyed by, and the one port to the cache shared between builds |
//! | [`upstream_signatures`] | `--signatures`: the cosign signatures of the Kubernetes binaries and images, fetched and judged |
//! | [`iso`] | the ISO 9660 writer (the reader is [`cks_iso_reader::iso`]'s, re-exported) |
//! | [`inspect`] | `cks-iso verify` and `diff`: what an ISO holds against the node contract ([`cks_iso_reader::inspect`], re-exported) |
//! | [`register`] | `cks-iso register`: the ISO added to CloudStack, or each ISO of a catalog in each zone |
//! | [`published`] | `cks-iso verify DIR`: a release folder's ISOs, sidecars, signatures, SBOMs, catalog and checksum files |
//! | [`cache_dir`] | `cks-iso cache ls` and `prune`: the `--cache-dir` folder's entries, their size and last use, pruned by size and age |
//! | [`catalog`] | `cks-iso catalog`: `catalog.json` and a `SHA256SUMS-X.Y` per minor from the ISOs of a folder |
//! | [`signing`] | `keygen` and `--sign-key`: the release key pair and the `.sig` beside what we publish |
//! | [`atomic`] | small files written whole or not at all |
//! | [`http`] | the one HTTP transport: `send`, retry classification, `Retry-After`, [`http::HttpError`] |
//! | [`requests`] | one build's requests counted by URL at that transport (the summary's `fetched_twice`) |
//! | [`digest`] | every sha256: hashing writer, file and reader digests, cache keys, the checkpoints that check a file again on every core ([`cks_iso_reader::digest`], re-exported) |
//! | [`follow`] | reading a file while a transfer writes it, a check beside the transfer ([`cks_iso_reader::follow`], re-exported) |
//! | [`retry`], [`progress`] | the retry policy and the progress sink the transfers share |
//! | [`redact`] | what never reaches a terminal or file as it came: URL passwords, servers' control characters |
//!
//! A build, planned and carried out (what `cks-iso build` does):
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use std::sync::Arc;
//! use cks_builder::pipeline::{Inputs, Observer, Outcome, Request, build};
//! use cks_builder::progress::NoProgress;
//!
//! struct Quiet;
//! impl Observer for Quiet {
//!     fn phase(&self, _name: &str) {}
//! }
//!
//! let inputs = Inputs {
//!     output_path: Some("out".into()),
//!     kubernetes_version: Some("1.33.13".into()),
//!     cni_version: Some("1.6.2".into()),
//!     crictl_version: Some("1.33.0".into()),
//!     network_yaml: Some("https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml".into()),
//!     dashboard_yaml: Some("https://raw.githubusercontent.com/kubernetes/dashboard/v2.7.0/aio/deploy/recommended.yaml".into()),
//!     build_name: Some("cks-1.33.13".into()),
//!     ..Inputs::default()
//! };
//! let options = inputs.clone().resolve()?;
//! match build(&options, &inputs, Request::default(), Arc::new(NoProgress), &Quiet).await? {
//!     Outcome::Planned(plan) => print!("{}", plan.render()),
//!     Outcome::Built(_, summary) => println!("{} {}", summary.sha256, summary.iso.display()),
//! }
//! # Ok(()) }
//! ```

// The command line is part of the library (so the packaging can render its man page and
// completions) and names this crate as its binary does.
extern crate self as cks_builder;

pub mod artifact;
pub mod atomic;
pub mod cache_dir;
pub mod cache_registry;
pub mod catalog;
#[doc(hidden)]
pub mod cli;
pub mod fetch;
pub mod git;
pub mod http;
pub mod iso;
pub mod pace;
pub mod pipeline;
pub mod progress;
pub mod published;
pub mod redact;
pub mod register;
pub mod registry;
pub mod requests;
pub mod retry;
pub mod signing;
pub mod space;
pub mod store;
pub mod upstream_signatures;

// Reading and checking an ISO, shared with cks-upgrade-hook, at the paths the builder's code uses.
pub use cks_iso_reader::{digest, follow, inspect};
