//! HTTP(S) downloads that never put a broken file in place: streamed to a temporary file beside
//! the destination, hashed on the way, checked against the published checksum, renamed only when
//! complete; retried whole on transient failures; fallbacks on 404; mirrors; a content cache.
//!
//! A caller describes each file with a [`FileSpec`] and hands a list of them to
//! [`Fetcher::fetch_all`], which fetches them in parallel and returns one [`FetchedFile`] (or
//! [`FileError`]) per spec, in the same order:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use cks_builder::fetch::{Checksum, Edit, FetchOptions, Fetcher, FileSpec};
//! let fetcher = Fetcher::new(FetchOptions::default())?;
//! let plan = vec![
//!     FileSpec::new(
//!         "k8s/kubeadm",
//!         "https://dl.k8s.io/release/v1.33.1/bin/linux/amd64/kubeadm",
//!         "/tmp/iso/k8s/kubeadm",
//!     )
//!     .checksum(Checksum::sha256_sidecar()),
//!     FileSpec::new(
//!         "kubelet.service",
//!         "https://raw.githubusercontent.com/kubernetes/release/v0.16.2/cmd/krel/templates/latest/kubelet/kubelet.service",
//!         "/tmp/iso/kubelet.service",
//!     )
//!     .edit(Edit::usr_bin_to_opt_bin()),
//! ];
//! for result in fetcher.fetch_all(&plan).await {
//!     let file = result?;
//!     println!("{} {} from {}", file.sha256, file.name, file.url_used);
//! }
//! # Ok(()) }
//! ```

mod answer;
mod cache;
mod checksum;
mod client;
mod download;
mod error;
mod fetcher;
mod http;
mod local;
pub(crate) mod mirror;
pub mod redirect;
mod resume;
mod shared;
mod spec;

pub use crate::artifact::ChecksumStatus;
pub use cache::{Cache, CacheEntry};
pub use checksum::{ChecksumFileError, is_sha256_hex, published_digest};
pub use cks_pinning::sources::{Checksum, Edit, Replacer};
pub use client::ClientOptions;
pub use error::{FetchError, FileError};
pub use fetcher::{FetchOptions, Fetcher};
pub use mirror::{Login, Mirror, MirrorError, Mirrors};
pub use shared::Expected;
pub use spec::{FetchedFile, FileSpec};
