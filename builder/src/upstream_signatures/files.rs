//! The Kubernetes release binaries: `<url>.sigstore.json` when the release server has one,
//! else `<url>.sig` and `<url>.cert`, each verified from the SHA-256 the download computed.

use cks_pinning::sources::Source;
use cks_pinning::sources::signing::{Signing, signing};
use cks_signature::{Outcome, TrustedRoot, verify_blob_sha256, verify_bundle_sha256};

use std::collections::BTreeMap;
use std::path::Path;

use super::material::SignatureMaterial;
use super::outcome::Verdicts;
use super::settings::SignatureSettings;
use crate::fetch::{FetchError, FetchedFile, Fetcher, FileSpec};

/// The most a `.sig`, `.cert` or `.sigstore.json` may hold.
const MATERIAL_LIMIT: u64 = 1 << 20;

/// The signature material found beside one file.
#[derive(Debug)]
pub(super) struct Material {
    sig: Option<String>,
    cert: Option<String>,
    bundle: Option<String>,
    /// Whether any of it came from a cache (and may be older than upstream's).
    pub(super) cached: bool,
}

/// Why a file's signature material could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    /// A signature file could not be fetched (what the downloader said).
    #[error("{0}")]
    Fetch(String),
    /// A signature file is larger than any signature file.
    #[error("{url} is {bytes} bytes, more than a signature file holds ({MATERIAL_LIMIT})")]
    TooLarge {
        /// Where it came from.
        url: String,
        /// Its size.
        bytes: u64,
    },
    /// A fetched signature file, or the folder for it, could not be read or made.
    #[error("{what} {}: {reason}", path.display())]
    Disk {
        /// `reading` or `creating`.
        what: &'static str,
        /// The file or folder.
        path: std::path::PathBuf,
        /// What the system said.
        reason: String,
    },
    /// Nothing was fetched for the file.
    #[error("no signature material was fetched for {0}")]
    NotFetched(String),
}

/// One signature file fetched like any download (mirrors, retries, the content cache and the
/// cache registry: the material is checked cryptographically, so a cached copy is as good as
/// upstream's) into `dir`; `None` on 404.
async fn side_file(
    fetcher: &Fetcher,
    name: &str,
    url: String,
    dir: &Path,
) -> Result<Option<(String, bool)>, MaterialError> {
    let file_name = url.rsplit('/').next().unwrap_or("signature").to_string();
    let spec = FileSpec::new(format!("{name} ({file_name})"), url, dir.join(&file_name));
    let fetched = match fetcher.fetch(&spec).await {
        Ok(fetched) => fetched,
        Err(error) if matches!(error.error, FetchError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(MaterialError::Fetch(error.to_string())),
    };
    if fetched.bytes > MATERIAL_LIMIT {
        return Err(MaterialError::TooLarge {
            url: fetched.url,
            bytes: fetched.bytes,
        });
    }
    std::fs::read_to_string(&fetched.dest)
        .map(|text| Some((text, fetched.from_cache)))
        .map_err(|e| MaterialError::Disk {
            what: "reading",
            path: fetched.dest.clone(),
            reason: e.to_string(),
        })
}

pub(super) async fn material(
    fetcher: &Fetcher,
    file: &FetchedFile,
    scratch: &Path,
) -> Result<Material, MaterialError> {
    material_at(fetcher, &file.name, &file.url, scratch).await
}

/// [`material`] for the file named `name` whose canonical URL is `url`, before it is fetched.
pub(super) async fn material_at(
    fetcher: &Fetcher,
    name: &str,
    url: &str,
    scratch: &Path,
) -> Result<Material, MaterialError> {
    let dir = scratch.join(name.replace('/', "_"));
    std::fs::create_dir_all(&dir).map_err(|e| MaterialError::Disk {
        what: "creating",
        path: dir.clone(),
        reason: e.to_string(),
    })?;
    let (sig, cert, bundle) = futures_util::join!(
        side_file(fetcher, name, format!("{url}.sig"), &dir),
        side_file(fetcher, name, format!("{url}.cert"), &dir),
        side_file(fetcher, name, format!("{url}.sigstore.json"), &dir),
    );
    let (sig, cert, bundle) = (sig?, cert?, bundle?);
    let cached = [&sig, &cert, &bundle]
        .iter()
        .any(|found| found.as_ref().is_some_and(|(_, cached)| *cached));
    let text = |found: Option<(String, bool)>| found.map(|(text, _)| text);
    Ok(Material {
        sig: text(sig),
        cert: text(cert),
        bundle: text(bundle),
        cached,
    })
}

/// The verdict for one file from its material.
pub(super) fn verify(
    url: &str,
    sha256: &[u8; 32],
    found: &Material,
    root: &TrustedRoot,
    settings: &SignatureSettings,
) -> Outcome {
    let policy = &settings.kubernetes;
    let result = match (&found.bundle, &found.sig, &found.cert) {
        (Some(bundle), _, _) => verify_bundle_sha256(sha256, bundle, root, policy),
        (None, Some(sig), Some(cert)) => {
            verify_blob_sha256(sha256, sig.as_bytes(), cert.as_bytes(), None, root, policy)
        }
        (None, None, None) => {
            return Outcome::Missing(format!(
                "{url}.sig, {url}.cert and {url}.sigstore.json are not there (HTTP 404)"
            ));
        }
        (None, None, Some(_)) => {
            return Outcome::Missing(format!("{url}.sig is not there (HTTP 404)"));
        }
        (None, Some(_), None) => {
            return Outcome::Missing(format!("{url}.cert is not there (HTTP 404)"));
        }
    };
    match result {
        Ok(verified) => Outcome::Verified(verified),
        Err(error) => Outcome::Refused(error),
    }
}

/// Checks every Kubernetes binary the build fetched, with the material `prefetched` holds
/// for it (fetched for those it does not); notes once the release assets that are not signed
/// upstream.
#[allow(clippy::too_many_arguments)]
pub(super) async fn check(
    sources: &[Source],
    fetched: &[FetchedFile],
    prefetched: &SignatureMaterial,
    fetcher: &Fetcher,
    scratch: &Path,
    root: &TrustedRoot,
    settings: &SignatureSettings,
    verdicts: &mut Verdicts,
) {
    let mut unsigned = Vec::new();
    let mut signed = Vec::new();
    for source in sources {
        let Some(file) = fetched.iter().find(|f| f.name == source.iso_path) else {
            continue;
        };
        match signing(source) {
            Signing::Kubernetes => signed.push(file),
            Signing::UnsignedRelease => unsigned.push(file.name.clone()),
            Signing::NotApplicable => {}
        }
    }
    // The material the plan fetched is checked as it came; only a file it did not fetch
    // material for (one that came from a fallback URL) has its material fetched now.
    let missing: Vec<&FetchedFile> = signed
        .iter()
        .copied()
        .filter(|f| !prefetched.holds(&f.url))
        .collect();
    let late =
        futures_util::future::join_all(missing.iter().map(|f| material(fetcher, f, scratch))).await;
    let late: BTreeMap<&str, Result<Material, MaterialError>> =
        missing.iter().map(|f| f.url.as_str()).zip(late).collect();
    // Material from a cache that does not verify is fetched again from upstream (past the
    // cache registry, into the content cache), which may have replaced it.
    let mut uncached: Option<Fetcher> = None;
    for file in &signed {
        let found = match prefetched
            .get(&file.url)
            .or_else(|| late.get(file.url.as_str()))
        {
            Some(Ok(found)) => Ok(found),
            Some(Err(error)) => Err(error.clone()),
            None => Err(MaterialError::NotFetched(file.url.clone())),
        };
        let mut sha256 = [0u8; 32];
        if hex::decode_to_slice(&file.upstream_sha256, &mut sha256).is_err() {
            verdicts.unreachable(
                &file.name,
                format!("its digest {:?} is not a SHA-256", file.upstream_sha256),
            );
            continue;
        }
        let mut outcome = found.map(|m| {
            let outcome = verify(&file.url, &sha256, m, root, settings);
            (outcome, m.cached)
        });
        if let Ok((ref verdict, true)) = outcome
            && !matches!(verdict, Outcome::Verified(_))
        {
            for suffix in [".sig", ".cert", ".sigstore.json"] {
                fetcher.forget_cached(&format!("{}{suffix}", file.url));
            }
            if uncached.is_none() {
                let options = crate::fetch::FetchOptions {
                    cache_registry: None,
                    ..fetcher.options().clone()
                };
                uncached = Fetcher::new(options).ok();
            }
            if let Some(upstream) = &uncached {
                outcome = material(upstream, file, &scratch.join("upstream"))
                    .await
                    .map(|m| (verify(&file.url, &sha256, &m, root, settings), false));
            }
        }
        match outcome {
            Ok((outcome, _)) => verdicts.add(&file.name, outcome),
            Err(error) => verdicts.unreachable(&file.name, error.to_string()),
        }
    }
    if !unsigned.is_empty() {
        verdicts.note(format!(
            "not cosign-signed upstream (GitHub release assets), checked against their published checksums only: {}",
            unsigned.join(", ")
        ));
    }
}
