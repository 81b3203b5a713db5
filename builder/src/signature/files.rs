//! The Kubernetes release binaries: `<url>.sigstore.json` when the release server has one,
//! else `<url>.sig` and `<url>.cert`, each verified from the SHA-256 the download computed.

use cks_pinning::sources::signing::{Signing, signing};
use cks_signature::{Outcome, TrustedRoot, verify_blob_sha256, verify_bundle_sha256};

use super::outcome::Verdicts;
use super::settings::SignatureSettings;
use crate::fetch::{FetchedFile, Fetcher};
use crate::pipeline::Plan;

/// The most a `.sig` or `.cert` may hold.
const SIGNATURE_LIMIT: usize = 64 * 1024;
/// The most a `.sigstore.json` may hold.
const BUNDLE_LIMIT: usize = 1 << 20;

/// The signature material found beside one file.
struct Material {
    sig: Option<String>,
    cert: Option<String>,
    bundle: Option<String>,
}

async fn material(fetcher: &Fetcher, url: &str) -> Result<Material, String> {
    let (sig_url, cert_url, bundle_url) = (
        format!("{url}.sig"),
        format!("{url}.cert"),
        format!("{url}.sigstore.json"),
    );
    let (sig, cert, bundle) = futures_util::join!(
        fetcher.small_text(&sig_url, SIGNATURE_LIMIT),
        fetcher.small_text(&cert_url, SIGNATURE_LIMIT),
        fetcher.small_text(&bundle_url, BUNDLE_LIMIT),
    );
    let text = |r: Result<(String, Option<String>), crate::fetch::FetchError>| {
        r.map(|(_, text)| text).map_err(|e| e.to_string())
    };
    Ok(Material {
        sig: text(sig)?,
        cert: text(cert)?,
        bundle: text(bundle)?,
    })
}

/// The verdict for one file from its material.
fn verify(
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
        (None, None, Some(_)) => return Outcome::Missing(format!("{url}.sig is not there (HTTP 404)")),
        (None, Some(_), None) => {
            return Outcome::Missing(format!("{url}.cert is not there (HTTP 404)"));
        }
    };
    match result {
        Ok(verified) => Outcome::Verified(verified),
        Err(error) => Outcome::Refused(error),
    }
}

/// Checks every Kubernetes binary the build fetched; notes once the release assets that are
/// not signed upstream.
pub(super) async fn check(
    plan: &Plan,
    fetched: &[FetchedFile],
    fetcher: &Fetcher,
    root: &TrustedRoot,
    settings: &SignatureSettings,
    verdicts: &mut Verdicts,
) {
    let mut unsigned = Vec::new();
    let mut signed = Vec::new();
    for source in &plan.files {
        let Some(file) = fetched.iter().find(|f| f.name == source.iso_path) else {
            continue;
        };
        match signing(source) {
            Signing::Kubernetes => signed.push(file),
            Signing::UnsignedRelease => unsigned.push(file.name.clone()),
            Signing::NotApplicable => {}
        }
    }
    let found = futures_util::future::join_all(signed.iter().map(|f| material(fetcher, &f.url))).await;
    for (file, found) in signed.iter().zip(found) {
        let found = match found {
            Ok(found) => found,
            Err(error) => {
                verdicts.unreachable(&file.name, error);
                continue;
            }
        };
        let mut sha256 = [0u8; 32];
        if hex::decode_to_slice(&file.upstream_sha256, &mut sha256).is_err() {
            verdicts.unreachable(
                &file.name,
                format!("its digest {:?} is not a SHA-256", file.upstream_sha256),
            );
            continue;
        }
        verdicts.add(&file.name, verify(&file.url, &sha256, &found, root, settings));
    }
    if !unsigned.is_empty() {
        verdicts.note(format!(
            "not cosign-signed upstream (GitHub release assets), checked against their published checksums only: {}",
            unsigned.join(", ")
        ));
    }
}
