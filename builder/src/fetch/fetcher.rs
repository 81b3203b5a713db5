//! The fetcher: how files are fetched ([`FetchOptions`]) and the one client, cache and progress
//! sink every download of a plan goes through.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::cache::Cache;
use super::client::{ClientOptions, MirrorClient};
use super::error::{FetchError, FileError};
use super::mirror::Mirrors;
use super::spec::{FetchedFile, FileSpec};
use crate::artifact::{Layers, SharedTier};
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
    pub(super) client: MirrorClient,
    pub(super) options: FetchOptions,
    /// The artifact store's tiers for files: the content cache and the shared tier.
    pub(super) store: Layers<Cache>,
    pub(super) progress: Arc<dyn ProgressSink>,
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
        let client = MirrorClient::new(options.client.build()?, options.mirrors.clone());
        let cache = options.cache_dir.as_deref().map(Cache::open).transpose()?;
        let store = Layers::over(cache, options.cache_registry.clone());
        Ok(Fetcher {
            client,
            options,
            store,
            progress: Arc::new(NoProgress),
        })
    }

    /// Reports progress to `sink` (bytes of every transfer; a retried transfer starts again with
    /// `on_start`).
    pub fn with_progress(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.progress = sink;
        self
    }

    /// The same fetcher (client, mirrors, cache), telling `watch` of its transfers' progress
    /// too, beside the sink in force: for a caller that acts on one transfer's progress.
    pub fn also_telling(&self, watch: Arc<dyn ProgressSink>) -> Fetcher {
        Fetcher {
            client: self.client.clone(),
            options: self.options.clone(),
            store: self.store.clone(),
            progress: Arc::new(crate::progress::Tee(self.progress.clone(), watch)),
        }
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

    /// Drops the content cache's entry of `url`, so the next fetch asks upstream (material
    /// that upstream may have replaced, such as a signature that no longer verifies).
    pub fn forget_cached(&self, url: &str) {
        if let Some(cache) = self.store.local() {
            cache.forget(url);
        }
    }
}
