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
mod http;
mod local;
pub(crate) mod mirror;
mod resume;
mod shared;
mod spec;

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

pub use crate::artifact::{ChecksumStatus, SharedHit};
pub use cache::{Cache, CacheEntry};
pub use checksum::{is_sha256_hex, published_digest};
pub use cks_pinning::sources::{Checksum, Edit, Replacer};
pub use client::ClientOptions;
pub use error::{FetchError, FileError};
pub use mirror::{Login, Mirror, MirrorError, Mirrors};
pub use shared::Expected;
pub use spec::{FetchedFile, FileSpec};

use crate::artifact::SharedTier;
use crate::progress::{NoProgress, ProgressSink};
use crate::retry::RetryPolicy;

/// How files are fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchOptions {
    /// Connection settings (timeouts, extra CA certificates).
    pub client: ClientOptions,
    /// How failed attempts are retried.
    #[serde(skip)]
    pub retry: RetryPolicy,
    /// Base-URL rewrites.
    pub mirrors: Mirrors,
    /// The content cache directory, if any.
    pub cache_dir: Option<PathBuf>,
    /// Files fetched at once by [`Fetcher::fetch_all`] (at least 1).
    pub concurrency: usize,
    /// The shared cache registry, asked after the cache directory and before upstream.
    #[serde(skip)]
    pub cache_registry: Option<SharedTier>,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            client: ClientOptions::default(),
            retry: RetryPolicy::default(),
            mirrors: Mirrors::default(),
            cache_dir: None,
            concurrency: 4,
            cache_registry: None,
        }
    }
}

/// Fetches the files of a plan.
pub struct Fetcher {
    client: client::MirrorClient,
    options: FetchOptions,
    cache: Option<Cache>,
    progress: Arc<dyn ProgressSink>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with `options`; fails when a CA file is unusable or the cache directory cannot
    /// be created.
    pub fn new(options: FetchOptions) -> Result<Self, FetchError> {
        let client = client::MirrorClient::new(options.client.build()?, options.mirrors.clone());
        let cache = options.cache_dir.as_deref().map(Cache::open).transpose()?;
        Ok(Fetcher {
            client,
            options,
            cache,
            progress: Arc::new(NoProgress),
        })
    }

    /// Reports progress to `sink` (bytes of every transfer; a retried transfer starts again with
    /// `on_start`).
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = sink;
        self
    }

    /// The options in force.
    pub fn options(&self) -> &FetchOptions {
        &self.options
    }

    /// The HTTP client, for other requests that should share its TLS settings.
    pub fn client(&self) -> &reqwest::Client {
        self.client.http()
    }

    /// Fetches one file.
    pub async fn fetch(&self, spec: &FileSpec) -> Result<FetchedFile, FileError> {
        let result = self.fetch_file(spec).await;
        self.progress.on_done(&spec.name);
        result
    }

    /// Fetches every file, `concurrency` at a time; the results are in the order of `specs`.
    pub async fn fetch_all(&self, specs: &[FileSpec]) -> Vec<Result<FetchedFile, FileError>> {
        // Each download owns a copy of its spec: a closure over `&FileSpec` would make the
        // future lose `Send` where it is boxed (rustc's higher-ranked lifetime limits).
        futures_util::stream::iter(specs.iter().cloned())
            .map(|spec| async move { self.fetch(&spec).await })
            .buffered(self.options.concurrency.max(1))
            .collect()
            .await
    }
}
