//! Pulling a list of images into tarballs: check the requests, ask the credential helpers, pull
//! each image (`pull_image`: blobs fetched once per build), then name every tarball at once.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use futures_util::{StreamExt, TryStreamExt};

use super::auth::CredentialStore;
use super::client::RegistryClient;
use super::endpoint::Endpoints;
use super::error::RegistryError;
use super::pull_image::pull_one;
use super::pull_types::{ImageRequest, Outcome, PullOptions, PullReport};
use super::store::BlobStore;
use crate::artifact::RemoteName;
use crate::progress::ProgressSink;

/// Images in progress at once for each blob transfer allowed at once.
const IMAGES_PER_TRANSFER: usize = 4;

/// Pulls every request into `out_dir/<tarball_name>`. Fails on the first error, and then writes
/// no tarball at all; on success every tarball is complete.
pub async fn pull_images(
    requests: &[ImageRequest],
    out_dir: &Path,
    options: &PullOptions,
    progress: &dyn ProgressSink,
) -> Result<PullReport, RegistryError> {
    let (client, names) = pull_client(requests, options).await?;
    std::fs::create_dir_all(out_dir).map_err(RegistryError::io(out_dir))?;
    let temp;
    let blob_dir = match &options.blob_dir {
        Some(dir) => dir.clone(),
        None => {
            temp = tempfile::Builder::new()
                .prefix(".cks-blobs-")
                .tempdir_in(out_dir)
                .map_err(RegistryError::io(out_dir))?;
            temp.path().to_path_buf()
        }
    };
    let store = BlobStore::new(&blob_dir, options.concurrency)?
        .with_shared(options.shared.clone())
        .with_sha1_memo(options.sha1_memo.clone());
    // Images are resolved (manifests, configs: small requests, each waiting a round trip)
    // several times `concurrency` at once, in any order, so their chains of requests overlap;
    // the store keeps the large transfers at `concurrency`.
    let (client, store) = (&client, &store);
    let mut outcomes: Vec<(usize, Outcome)> =
        futures_util::stream::iter(requests.iter().zip(&names).enumerate())
            .map(|(index, (request, name))| async move {
                pull_one(client, store, name, request, out_dir, options, progress)
                    .await
                    .map(|outcome| (index, outcome))
            })
            .buffer_unordered(options.concurrency.max(1) * IMAGES_PER_TRANSFER)
            .try_collect()
            .await?;
    outcomes.sort_by_key(|(index, _)| *index);
    let mut report = name_tarballs(outcomes.into_iter().map(|(_, o)| o).collect())?;
    let stats = store.stats();
    report.bytes_fetched = client.bytes_fetched();
    report.unique_bytes = stats.unique_bytes;
    report.blobs_fetched = stats.blobs_fetched;
    report.blobs_reused = stats.blobs_reused;
    Ok(report)
}

/// The client a pull of `requests` under `options` talks through (its endpoints, credentials,
/// retries, CAs, limits and `--min-rate`), and each request's checked name.
pub(super) async fn pull_client(
    requests: &[ImageRequest],
    options: &PullOptions,
) -> Result<(RegistryClient, Vec<RemoteName>), RegistryError> {
    let endpoints = Endpoints::new(&options.mirrors, &options.insecure)?;
    let names = checked_names(requests, &endpoints)?;
    let credentials = credentials_for(&names, &endpoints, options).await?;
    let client = RegistryClient::with_ca_files(
        endpoints,
        credentials,
        options.retry.clone(),
        &options.ca_files,
    )?
    .with_limits(options.limits)
    .with_min_rate(options.min_rate)
    .with_memo(options.manifests.clone());
    Ok((client, names))
}

/// Each request's reference, parsed, with a plain tarball name and a registry the endpoints
/// allow.
pub(super) fn checked_names(
    requests: &[ImageRequest],
    endpoints: &Endpoints,
) -> Result<Vec<RemoteName>, RegistryError> {
    requests
        .iter()
        .map(|r| {
            if r.tarball_name.is_empty()
                || r.tarball_name.contains('/')
                || r.tarball_name.starts_with('.')
            {
                return Err(RegistryError::BadReference {
                    reference: r.reference.to_string(),
                    reason: format!(
                        "tarball name `{}` must be a plain file name",
                        r.tarball_name
                    ),
                });
            }
            let name = RemoteName::from_image(&r.reference)?;
            endpoints.resolve(&name.registry)?;
            Ok(name)
        })
        .collect()
}

/// The pull's credentials: the given ones, and the credential helpers' answers about the
/// registries and mirrors this pull contacts (and no other: credentials go only to the host
/// contacted). The helpers are programs that may wait for a keyring: they run on a blocking
/// thread, so nothing (Ctrl-C included) waits on them.
pub(super) async fn credentials_for(
    names: &[RemoteName],
    endpoints: &Endpoints,
    options: &PullOptions,
) -> Result<CredentialStore, RegistryError> {
    let mut credentials = options.credentials.clone();
    let mut hosts = Vec::new();
    for name in names {
        hosts.push(endpoints.resolve(&name.registry)?.host);
    }
    tokio::task::spawn_blocking(move || {
        let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
        credentials.ask_helpers(&hosts).map(|()| credentials)
    })
    .await
    .map_err(|e| RegistryError::CredentialHelper {
        program: "docker-credential-*".to_string(),
        registry: "the registries of this pull".to_string(),
        reason: super::credential_error::HelperFailure::Stopped(e),
    })?
}

/// The report of every outcome, in request order; only once every tarball is complete do they
/// get their names, so a failed pull leaves none.
fn name_tarballs(outcomes: Vec<Outcome>) -> Result<PullReport, RegistryError> {
    let mut report = PullReport::default();
    let mut written = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Pulled(image, file) => {
                report.bytes_written += image.tarball_size;
                written.push((file, image.tarball.clone()));
                report.images.push(image);
            }
            Outcome::Skipped(skipped, warning) => {
                report.skipped.push(skipped);
                report.warnings.push(warning);
            }
        }
    }
    for (file, dest) in written {
        // Readable by all, as `ctr image import` on another account and the ISO need.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))
            .map_err(RegistryError::io(&dest))?;
        file.persist(&dest)
            .map_err(|e| RegistryError::io(&dest)(e.error))?;
    }
    Ok(report)
}
