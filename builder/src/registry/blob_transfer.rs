//! A blob streamed into a file: checked for size and digest as its bytes arrive, its sha256 on a
//! thread of its own beside the transfer (with the checkpoints that check the file again on
//! every core), resumed with `Range` after a broken body, and published as it lands for a
//! reader behind the transfer ([`crate::follow`]).

use std::path::Path;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use reqwest::{Response, StatusCode};
use tokio::io::AsyncWriteExt;

use super::client::{RegistryClient, range_start};
use super::endpoint::Endpoint;
use super::error::RegistryError;
use crate::artifact::RemoteName;
use crate::digest::HashThread;
use crate::digest::chain::{Checkpoint, Noted};
use crate::follow::Watermark;
use crate::http::HttpError;
use crate::pace::Guard;
use crate::progress::ProgressSink;

/// One blob being fetched: which blob, the URL it is asked for at, and the file it streams into.
struct BlobTransfer<'a> {
    name: &'a RemoteName,
    endpoint: &'a Endpoint,
    url: &'a str,
    digest: &'a str,
    size: u64,
    file: &'a Path,
    /// Where the bytes landed are published, for a reader behind the transfer.
    mark: Option<&'a Watermark>,
}

/// Chunks a blob's hash thread may have queued before the transfer waits for it.
const HASH_QUEUE: usize = 64;

/// Bytes between two publications of a transfer's progress to a reader behind it.
const PUBLISH_EVERY: u64 = 4 << 20;

impl RegistryClient {
    /// Streams blob `digest` of `name` into `file`, checking size and digest as bytes arrive;
    /// the caller renames the file into place only on `Ok`. A retry after a broken body asks
    /// for the rest with `Range` and goes on with the same sha256 state; a registry that answers
    /// with the whole blob instead restarts it.
    pub async fn blob_to_file(
        &self,
        name: &RemoteName,
        digest: &str,
        size: u64,
        file: &Path,
        progress: &dyn ProgressSink,
    ) -> Result<(), RegistryError> {
        self.blob_to_file_noted(name, digest, size, file, progress, None)
            .await
            .map(drop)
    }

    /// [`Self::blob_to_file`], giving the checkpoints of the sha256 it computed on the way
    /// ([`crate::digest::chain`]), to check the file again later on every core, and publishing
    /// in `mark` (where given) the bytes landed, so the file can be read behind the transfer:
    /// the mark ends complete only once the whole blob is written and its digest checked.
    pub async fn blob_to_file_noted(
        &self,
        name: &RemoteName,
        digest: &str,
        size: u64,
        file: &Path,
        progress: &dyn ProgressSink,
        mark: Option<&Watermark>,
    ) -> Result<Vec<Checkpoint>, RegistryError> {
        let noted = async {
            let endpoint = self.endpoints.resolve(&name.registry)?;
            let url = endpoint.url(&name.repository, "blobs", digest);
            let blob = BlobTransfer {
                name,
                endpoint: &endpoint,
                url: &url,
                digest,
                size,
                file,
                mark,
            };
            self.blob_retried(&blob, progress).await
        }
        .await;
        if let Some(mark) = mark {
            mark.ended(noted.is_ok());
        }
        noted
    }

    /// The transfer of `blob`, retried (each retry going on from the bytes it has).
    async fn blob_retried(
        &self,
        blob: &BlobTransfer<'_>,
        progress: &dyn ProgressSink,
    ) -> Result<Vec<Checkpoint>, RegistryError> {
        let mut retry = 0;
        let mut done = (Noted::new(), 0u64);
        loop {
            match self.blob_attempt(blob, progress, &mut done).await {
                Err(RegistryError::Http { source, .. }) if retry < self.retry.retries => {
                    retry += 1;
                    tracing::debug!(blob = blob.digest, retry, resume_at = done.1, error = %source, "blob transfer failed; retrying");
                    tokio::time::sleep(self.retry.delay(retry, None)).await;
                }
                other => return other,
            }
        }
    }

    /// One transfer of a blob, from byte `done.1` when the registry answers that range.
    async fn blob_attempt(
        &self,
        blob: &BlobTransfer<'_>,
        progress: &dyn ProgressSink,
        done: &mut (Noted, u64),
    ) -> Result<Vec<Checkpoint>, RegistryError> {
        let &BlobTransfer {
            name,
            endpoint,
            url,
            digest,
            size,
            file,
            mark,
        } = blob;
        let response = self.get_from(name, endpoint, url, None, done.1).await?;
        let resumed = done.1 > 0
            && response.status() == StatusCode::PARTIAL_CONTENT
            && range_start(response.headers()) == Some(done.1);
        if !resumed {
            if done.1 > 0
                && let Some(mark) = mark
            {
                // What a reader behind the transfer saw may now be written over.
                mark.restarted();
            }
            *done = (Noted::new(), 0);
        }
        let mut out = tokio::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(!resumed)
            .open(file)
            .await
            .map_err(RegistryError::io(file))?;
        {
            use tokio::io::AsyncSeekExt;
            out.seek(std::io::SeekFrom::Start(done.1))
                .await
                .map_err(RegistryError::io(file))?;
        }
        let (hasher, received) = done;
        // The sha256 runs on a thread of its own beside the transfer; it goes on from where an
        // interrupted attempt left it.
        let mut hash = HashThread::<bytes::Bytes>::resume(std::mem::take(hasher), HASH_QUEUE)
            .map_err(RegistryError::io(file))?;
        let streamed = self
            .stream_blob(blob, response, &mut out, &mut hash, received, progress)
            .await;
        *hasher = tokio::task::spawn_blocking(move || hash.stop())
            .await
            .map_err(|e| RegistryError::io(file)(std::io::Error::other(e)))?
            .map_err(RegistryError::io(file))?;
        streamed?;
        out.flush().await.map_err(RegistryError::io(file))?;
        if let Some(mark) = mark {
            mark.landed(*received);
        }
        if *received != size {
            return Err(RegistryError::BlobSize {
                image: name.full.clone(),
                blob: digest.to_string(),
                expected: size,
                actual: *received,
            });
        }
        let (digested, checkpoints) = hasher.clone().finish();
        let actual = digested.digest();
        if actual != digest {
            return Err(RegistryError::BlobDigest {
                image: name.full.clone(),
                blob: digest.to_string(),
                actual,
            });
        }
        Ok(checkpoints)
    }

    /// The body of one attempt of a blob transfer into `out`, each chunk handed to `hash` and
    /// counted in `received`.
    async fn stream_blob(
        &self,
        blob: &BlobTransfer<'_>,
        response: Response,
        out: &mut tokio::fs::File,
        hash: &mut HashThread<bytes::Bytes>,
        received: &mut u64,
        progress: &dyn ProgressSink,
    ) -> Result<(), RegistryError> {
        let &BlobTransfer {
            name,
            url,
            digest,
            size,
            file,
            mark,
            ..
        } = blob;
        let mut stream = response.bytes_stream();
        let mut guard = Guard::new(self.pace);
        let failed = |source| RegistryError::Http {
            image: name.full.clone(),
            source,
        };
        while let Some(chunk) = guard
            .read(stream.next())
            .await
            .map_err(|slow| failed(HttpError::slow(url, slow)))?
        {
            let chunk = chunk.map_err(|source| failed(HttpError::from_reqwest(url, &source)))?;
            guard
                .count(chunk.len())
                .map_err(|slow| failed(HttpError::slow(url, slow)))?;
            self.fetched
                .fetch_add(chunk.len() as u64, Ordering::Relaxed);
            if *received + chunk.len() as u64 > size {
                return Err(RegistryError::BlobSize {
                    image: name.full.clone(),
                    blob: digest.to_string(),
                    expected: size,
                    actual: *received + chunk.len() as u64,
                });
            }
            out.write_all(&chunk)
                .await
                .map_err(RegistryError::io(file))?;
            let len = chunk.len() as u64;
            hash.feed(chunk).map_err(RegistryError::io(file))?;
            let before = *received;
            *received += len;
            progress.on_bytes(digest, len);
            if let Some(mark) = mark
                && before / PUBLISH_EVERY != *received / PUBLISH_EVERY
            {
                // The bytes are in the file (readable by a reader behind) once flushed.
                out.flush().await.map_err(RegistryError::io(file))?;
                mark.landed(*received);
            }
        }
        Ok(())
    }
}
