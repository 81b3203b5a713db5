//! The cache registry repository: its address, its client, and what this build saw of it
//! (down, pushes refused, damaged entries, warnings, counts).

use crate::registry::{CredentialStore, Endpoints, RegistryClient, RegistryError, RemoteName};
use crate::retry::RetryPolicy;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::error::CacheRegistryError;
use super::stats::{self, CacheStats, Kind};
use super::warning::CacheWarning;

/// A cache registry repository and what this build saw of it.
#[derive(Debug)]
pub struct CacheRegistry {
    pub(super) url: String,
    pub(super) scheme: String,
    pub(super) name: RemoteName,
    pub(super) client: RegistryClient,
    pub(super) down: AtomicBool,
    pub(super) push_refused: AtomicBool,
    /// The empty config blob every artifact names, pushed once for the build (concurrent
    /// pushes wait for that one upload instead of racing it).
    pub(super) empty_pushed: tokio::sync::OnceCell<()>,
    pub(super) damaged: Mutex<HashSet<String>>,
    pub(super) warnings: Mutex<Vec<CacheWarning>>,
    pub(super) counters: stats::Counters,
}

/// A cache registry shared by the downloader and the puller of one build (equal when it is the
/// same one).
#[derive(Debug, Clone)]
pub struct SharedCacheRegistry(pub Arc<CacheRegistry>);

impl PartialEq for SharedCacheRegistry {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SharedCacheRegistry {}

impl std::ops::Deref for SharedCacheRegistry {
    type Target = CacheRegistry;
    fn deref(&self) -> &CacheRegistry {
        &self.0
    }
}

impl CacheRegistry {
    /// The cache registry at `url` (`http(s)://HOST[:PORT]/REPO`); plain HTTP only for a host
    /// named in `insecure`, as for pulls; `credentials` as `docker login` left them (credential
    /// helpers are asked about this host only).
    pub fn open(
        url: &str,
        insecure: &[String],
        ca_files: &[PathBuf],
        mut credentials: CredentialStore,
    ) -> Result<Self, CacheRegistryError> {
        let bad = |reason: &str| CacheRegistryError::BadUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad("there is no scheme"))?;
        if scheme != "http" && scheme != "https" {
            return Err(bad("the scheme must be http or https"));
        }
        let (host, repository) = rest
            .split_once('/')
            .ok_or_else(|| bad("there is no repository path"))?;
        let repository = repository.trim_end_matches('/');
        if host.is_empty() || host.contains('@') || host.contains('?') {
            return Err(bad("the host must be HOST[:PORT], with no user"));
        }
        let valid_repo = !repository.is_empty()
            && repository.split('/').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
            });
        if !valid_repo {
            return Err(bad(
                "the repository must be lowercase path components such as ci/cks-cache",
            ));
        }
        let registry_error = |source: RegistryError| CacheRegistryError::Registry {
            url: url.to_string(),
            source,
        };
        let endpoints = Endpoints::new(&[format!("{host}={scheme}://{host}")], insecure)
            .map_err(registry_error)?;
        endpoints.resolve(host).map_err(registry_error)?;
        credentials.ask_helpers(&[host]).map_err(registry_error)?;
        // One quick retry: a cache that does not answer at once is not worth waiting for.
        let retry = RetryPolicy {
            retries: 1,
            ..RetryPolicy::default()
        };
        let client = RegistryClient::with_ca_files(endpoints, credentials, retry, ca_files)
            .map_err(|source| match source {
                RegistryError::CaFile { source } => CacheRegistryError::Client {
                    url: url.to_string(),
                    source,
                },
                other => registry_error(other),
            })?;
        Ok(CacheRegistry {
            url: url.to_string(),
            scheme: scheme.to_string(),
            name: RemoteName {
                full: format!("{host}/{repository}"),
                registry: host.to_string(),
                repository: repository.to_string(),
                tag: None,
                digest: None,
            },
            client,
            down: AtomicBool::new(false),
            push_refused: AtomicBool::new(false),
            empty_pushed: tokio::sync::OnceCell::new(),
            damaged: Mutex::new(HashSet::new()),
            warnings: Mutex::new(Vec::new()),
            counters: stats::Counters::default(),
        })
    }

    /// [`Self::open`] for a build's `--cache-registry` value, if it has one.
    pub fn for_build(
        url: Option<&str>,
        insecure: &[String],
        ca_files: &[PathBuf],
        credentials: &CredentialStore,
    ) -> Result<Option<SharedCacheRegistry>, CacheRegistryError> {
        url.map(|url| CacheRegistry::open(url, insecure, ca_files, credentials.clone()))
            .transpose()
            .map(|c| c.map(|c| SharedCacheRegistry(Arc::new(c))))
    }

    /// The warnings so far, removed from the registry's list.
    pub fn take_warnings(&self) -> Vec<CacheWarning> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }

    /// What the cache registry did so far, per kind of entry.
    pub fn stats(&self) -> CacheStats {
        self.counters.snapshot()
    }

    pub(super) fn usable(&self) -> bool {
        !self.down.load(Ordering::Relaxed)
    }

    pub(super) fn can_push(&self) -> bool {
        self.usable() && !self.push_refused.load(Ordering::Relaxed)
    }

    pub(super) fn warn(&self, warning: CacheWarning) {
        self.counters.warned();
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    /// Marks the registry down (one warning for the build).
    pub(super) fn went_down(&self, reason: String) {
        if !self.down.swap(true, Ordering::Relaxed) {
            self.warn(CacheWarning::Unreachable {
                registry: self.url.clone(),
                reason,
            });
        }
    }

    /// Records a read that failed: a miss, damage (remembered, so the push replaces it), or the
    /// registry going down.
    pub(super) fn read_failed(&self, kind: Kind, entry: &str, digest: &str, error: RegistryError) {
        self.counters.missed(kind);
        match error {
            RegistryError::NotFound { .. } => {}
            RegistryError::BlobDigest { actual, .. } => {
                self.damaged(entry, digest, format!("its content hashes to {actual}"))
            }
            RegistryError::BlobSize {
                expected, actual, ..
            } => self.damaged(
                entry,
                digest,
                format!("{actual} bytes where {expected} were claimed"),
            ),
            RegistryError::ManifestDigest { actual, .. } => {
                self.damaged(entry, digest, format!("it hashes to {actual}"))
            }
            RegistryError::Http { source, .. } => self.went_down(source.to_string()),
            other => self.went_down(other.to_string()),
        }
    }

    fn damaged(&self, entry: &str, digest: &str, reason: String) {
        if let Ok(mut damaged) = self.damaged.lock() {
            damaged.insert(digest.to_string());
        }
        self.warn(CacheWarning::Damaged {
            registry: self.url.clone(),
            entry: entry.to_string(),
            digest: digest.to_string(),
            reason,
        });
    }

    pub(super) fn was_damaged(&self, digest: &str) -> bool {
        self.damaged.lock().is_ok_and(|d| d.contains(digest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(url: &str, insecure: &[&str]) -> Result<CacheRegistry, CacheRegistryError> {
        let insecure: Vec<String> = insecure.iter().map(|s| s.to_string()).collect();
        CacheRegistry::open(url, &insecure, &[], CredentialStore::default())
    }

    #[test]
    fn a_cache_registry_url_names_host_and_repository() {
        let cache = open("http://127.0.0.1:5000/ci/cks-cache/", &["127.0.0.1:5000"]).expect("ok");
        assert_eq!(cache.name.registry, "127.0.0.1:5000");
        assert_eq!(cache.name.repository, "ci/cks-cache");
        assert!(open("https://registry.ci.example/cks", &[]).is_ok());
    }

    #[test]
    fn bad_cache_registry_urls_are_refused_with_the_expected_form() {
        for url in [
            "registry.ci.example/cks",
            "ftp://registry.ci.example/cks",
            "https://registry.ci.example",
            "https://registry.ci.example/",
            "https://user@registry.ci.example/cks",
            "https://registry.ci.example/CKS",
        ] {
            let error = open(url, &[]).expect_err(url).to_string();
            assert!(
                error.contains("http(s)://HOST[:PORT]/REPO"),
                "{url}: {error}"
            );
        }
        let error = open("http://127.0.0.1:5000/cks", &[]).expect_err("refused");
        assert!(
            error
                .to_string()
                .contains("--insecure-registry 127.0.0.1:5000"),
            "{error}"
        );
    }

    #[test]
    fn an_unusable_ca_file_is_refused() {
        let error = CacheRegistry::open(
            "https://registry.ci.example/cks",
            &[],
            &[PathBuf::from("/nonexistent/ca.pem")],
            CredentialStore::default(),
        )
        .expect_err("refused");
        assert!(error.to_string().contains("/nonexistent/ca.pem"), "{error}");
    }
}
