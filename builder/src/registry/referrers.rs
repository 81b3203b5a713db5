//! The small reads image signatures need beyond a pull: an image's OCI referrers
//! (`/v2/<name>/referrers/<digest>`, answered by registries that implement OCI 1.1) and a small
//! blob read into memory with its digest checked.

use std::sync::atomic::Ordering;

use futures_util::StreamExt;

use super::RegistryError;
use super::client::RegistryClient;
use super::reference::RemoteName;
use crate::digest::sha256_hex;
use crate::http::HttpError;

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
            Ok(response) => self.read(name, &url, response, limit).await.map(Some),
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
        let bytes = self.read(name, &url, response, limit).await?;
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

    async fn read(
        &self,
        name: &RemoteName,
        url: &str,
        response: reqwest::Response,
        limit: usize,
    ) -> Result<Vec<u8>, RegistryError> {
        let mut bytes = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|source| RegistryError::Http {
                image: name.full.clone(),
                source: HttpError::from_reqwest(url, &source),
            })?;
            self.fetched
                .fetch_add(chunk.len() as u64, Ordering::Relaxed);
            bytes.extend_from_slice(&chunk);
            if bytes.len() > limit {
                return Err(RegistryError::BlobSize {
                    image: name.full.clone(),
                    blob: url.to_string(),
                    expected: limit as u64,
                    actual: bytes.len() as u64,
                });
            }
        }
        Ok(bytes)
    }
}
