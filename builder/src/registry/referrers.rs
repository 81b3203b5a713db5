//! The small reads image signatures need beyond a pull: an image's OCI referrers
//! (`/v2/<name>/referrers/<digest>`, answered by registries that implement OCI 1.1) and a small
//! blob read into memory with its digest checked.

use std::sync::atomic::Ordering;

use cks_pinning::limits::LimitKind;

use super::client::RegistryClient;
use super::error::RegistryError;
use crate::artifact::RemoteName;
use crate::digest::sha256_hex;

/// The media type of an image index, which the referrers API answers with.
const INDEX: &str = "application/vnd.oci.image.index.v1+json";

impl RegistryClient {
    /// The referrers index of `digest`, or `None` when the registry answers 404 (it does not
    /// implement the API, or there are none).
    pub async fn referrers(
        &self,
        name: &RemoteName,
        digest: &str,
        limit: usize,
    ) -> Result<Option<Vec<u8>>, RegistryError> {
        let endpoint = self.endpoints.resolve(&name.registry)?;
        let url = endpoint.url(&name.repository, "referrers", digest);
        match self.get(name, &endpoint, &url, Some(INDEX)).await {
            Ok(response) => self
                .read(name, &url, response, LimitKind::Oci, limit)
                .await
                .map(Some),
            Err(RegistryError::NotFound { .. }) => Ok(None),
            Err(other) => Err(other),
        }
    }

    /// Blob `digest` of `name` in memory (at most `limit` bytes), checked against its digest.
    pub async fn small_blob(
        &self,
        name: &RemoteName,
        digest: &str,
        limit: usize,
    ) -> Result<Vec<u8>, RegistryError> {
        let endpoint = self.endpoints.resolve(&name.registry)?;
        let url = endpoint.url(&name.repository, "blobs", digest);
        let response = self.get(name, &endpoint, &url, None).await?;
        let bytes = self
            .read(name, &url, response, LimitKind::Checksum, limit)
            .await?;
        let actual = format!("sha256:{}", sha256_hex(&bytes));
        if actual != digest {
            return Err(RegistryError::BlobDigest {
                image: name.full.clone(),
                blob: digest.to_string(),
                actual,
            });
        }
        Ok(bytes)
    }

    /// The body of `response` through the one bounded reader, at most `limit` bytes and at most
    /// the `kind` limit in force.
    async fn read(
        &self,
        name: &RemoteName,
        url: &str,
        response: reqwest::Response,
        kind: LimitKind,
        limit: usize,
    ) -> Result<Vec<u8>, RegistryError> {
        let limit = (limit as u64).min(self.limits.get(kind));
        let bytes = crate::http::read_bounded(response, url, kind, limit, self.pace)
            .await
            .map_err(|source| RegistryError::Http {
                image: name.full.clone(),
                source,
            })?;
        self.fetched
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }
}
