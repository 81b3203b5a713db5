//! The Kubernetes release binaries: `<url>.sigstore.json` when the release server has one,
//! else `<url>.sig` and `<url>.cert`, each verified from the SHA-256 the download computed.

use cks_pinning::sources::Source;
use cks_pinning::sources::signing::{Signing, signing};
use cks_signature::{Outcome, TrustedRoot, verify_blob_sha256, verify_bundle_sha256};

use std::collections::BTreeMap;
use std::path::Path;

use super::material::{Material, MaterialError, SignatureMaterial, material};
use super::outcome::Verdicts;
use super::settings::SignatureSettings;
use crate::fetch::{FetchedFile, Fetcher};

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
