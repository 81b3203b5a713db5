//! Image signatures: the cosign signature manifest at `sha256-<hex>.sig` beside the image, and
//! the signature manifests among its OCI referrers (when the registry implements the API), each
//! simple-signing layer fetched and verified against the policy of the image's registry.

use std::collections::BTreeSet;

use cks_signature::image::{
    Descriptor, signature_layers, signature_referrers, signature_tag, verify_image,
};
use cks_signature::{Outcome, SignatureError, TrustedRoot};

use super::outcome::Verdicts;
use super::settings::SignatureSettings;
use crate::registry::{
    Endpoints, PullOptions, PullReport, PulledImage, RegistryClient, RegistryError, RemoteName,
};

/// The most a referrers index may hold.
const REFERRERS_LIMIT: usize = 1 << 20;
/// The most a simple-signing payload may hold.
const PAYLOAD_LIMIT: usize = 64 * 1024;

/// Why the signatures attached to an image could not be fetched.
#[derive(Debug, thiserror::Error)]
enum FetchFailure {
    /// The registry refused or failed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A signature manifest or the image's digest is not readable.
    #[error(transparent)]
    Signature(#[from] SignatureError),
}

/// The simple-signing layers attached to `image`, with their payloads.
async fn layers(
    client: &RegistryClient,
    image: &PulledImage,
) -> Result<Vec<(Descriptor, Vec<u8>)>, FetchFailure> {
    let name = RemoteName::from_image(&image.reference)?;
    let mut manifests = Vec::new();
    let tag = signature_tag(&image.digest)?;
    match client.manifest(&name, &tag).await {
        Ok(found) => manifests.push(found.bytes),
        Err(RegistryError::NotFound { .. }) => {}
        Err(error) => return Err(error.into()),
    }
    let referrers = client
        .referrers(&name, &image.digest, REFERRERS_LIMIT)
        .await?;
    if let Some(index) = referrers {
        // A registry without the API may answer with something else: nothing to add then.
        for descriptor in signature_referrers(&index).unwrap_or_default() {
            let found = client.manifest(&name, &descriptor.digest).await?;
            manifests.push(found.bytes);
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for manifest in manifests {
        let layers = signature_layers(&manifest)?;
        for layer in layers {
            if !seen.insert(layer.digest.clone()) {
                continue;
            }
            let payload = client
                .small_blob(&name, &layer.digest, PAYLOAD_LIMIT)
                .await?;
            out.push((layer, payload));
        }
    }
    Ok(out)
}

/// The verdict from the layers found.
fn verdict(
    image: &PulledImage,
    found: &[(Descriptor, Vec<u8>)],
    root: &TrustedRoot,
    policy: &cks_signature::Policy,
) -> Outcome {
    if found.is_empty() {
        return Outcome::Missing(format!(
            "no cosign signature is attached to {} (no {} tag, no signature referrer)",
            image.digest,
            signature_tag(&image.digest).unwrap_or_default()
        ));
    }
    match verify_image(&image.digest, found, root, policy) {
        Ok(verified) => Outcome::Verified(verified),
        Err(mut errors) => {
            let error = if errors.len() == 1 {
                errors.remove(0)
            } else {
                SignatureError::Missing {
                    detail: format!(
                        "none of its {} signatures verifies: {}",
                        errors.len(),
                        errors
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                }
            };
            Outcome::Refused(error)
        }
    }
}

/// Checks every pulled image whose registry has a policy; notes once the registries without.
pub(super) async fn check(
    report: &PullReport,
    pull: &PullOptions,
    root: &TrustedRoot,
    settings: &SignatureSettings,
    verdicts: &mut Verdicts,
) {
    let mut without_policy = BTreeSet::new();
    let mut to_check = Vec::new();
    for image in &report.images {
        let pinned = image.reference.pinned_to(&image.digest);
        match settings.registries.get(pinned.registry()) {
            Some(policy) => to_check.push((image, pinned.to_string(), policy)),
            None => {
                without_policy.insert(pinned.registry().to_string());
            }
        }
    }
    if !to_check.is_empty() {
        let client = Endpoints::new(&pull.mirrors, &pull.insecure)
            .and_then(|e| RegistryClient::new(e, pull.credentials.clone(), pull.retry.clone()))
            .map(|c| c.with_limits(pull.limits));
        match client {
            Err(error) => {
                for (_, subject, _) in &to_check {
                    verdicts.unreachable(subject, error.to_string());
                }
            }
            Ok(client) => {
                let found = futures_util::future::join_all(
                    to_check.iter().map(|(image, _, _)| layers(&client, image)),
                )
                .await;
                for ((image, subject, policy), found) in to_check.iter().zip(found) {
                    match found {
                        Ok(found) => verdicts.add(subject, verdict(image, &found, root, policy)),
                        Err(error) => verdicts.unreachable(subject, error.to_string()),
                    }
                }
            }
        }
    }
    if !without_policy.is_empty() {
        let registries: Vec<String> = without_policy.into_iter().collect();
        verdicts.note(format!(
            "images of {} are not checked for signatures: no policy for their registry (add [signatures.registries.\"HOST\"] with identity and issuer to the config)",
            registries.join(", ")
        ));
    }
}
