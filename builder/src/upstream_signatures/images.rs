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
use cks_pinning::digest::Digest;
use cks_pinning::image::ImageRef;

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

/// The simple-signing layers attached to the image `reference` at `digest`, with their
/// payloads.
async fn layers(
    client: &RegistryClient,
    reference: &ImageRef,
    digest: &Digest,
) -> Result<Layers, FetchFailure> {
    let name = RemoteName::from_image(reference)?;
    let mut manifests = Vec::new();
    let tag = signature_tag(digest)?;
    match client.manifest(&name, &tag).await {
        Ok(found) => manifests.push(found.bytes),
        Err(RegistryError::NotFound { .. }) => {}
        Err(error) => return Err(error.into()),
    }
    let referrers = client.referrers(&name, digest, REFERRERS_LIMIT).await?;
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
    found: &Layers,
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

/// The signature layers attached to one image, with their payloads.
type Layers = Vec<(Descriptor, Vec<u8>)>;

/// Images' signature layers fetched while their blobs were still on the way (the same
/// requests the check makes, made earlier), by the reference and digest they were fetched for.
/// Nothing here is verified: the check verifies what it takes from here as what it fetches.
#[derive(Debug, Default)]
pub struct ImagesAhead(Vec<(ImageRef, Digest, Layers)>);

impl ImagesAhead {
    /// The layers fetched for `reference` at `digest`, taken out.
    fn take(&mut self, reference: &ImageRef, digest: &Digest) -> Option<Layers> {
        let at = self
            .0
            .iter()
            .position(|(r, d, _)| r == reference && d == digest)?;
        Some(self.0.swap_remove(at).2)
    }
}

/// The registry client the signature checks fetch with.
fn client(pull: &PullOptions) -> Result<RegistryClient, RegistryError> {
    Endpoints::new(&pull.mirrors, &pull.insecure)
        .and_then(|e| RegistryClient::new(e, pull.credentials.clone(), pull.retry.clone()))
        .map(|c| c.with_limits(pull.limits))
}

/// Fetches the signature layers of each of `images` (reference and digest) whose registry has
/// a policy; what fails is left for the check to fetch again.
pub(super) async fn fetch_ahead(
    images: &[(ImageRef, Digest)],
    pull: &PullOptions,
    settings: &SignatureSettings,
) -> ImagesAhead {
    let images: Vec<_> = images
        .iter()
        .filter(|(reference, digest)| {
            settings
                .registries
                .contains_key(reference.pinned_to(digest).registry())
        })
        .collect();
    let Ok(client) = client(pull) else {
        return ImagesAhead::default();
    };
    let found = futures_util::future::join_all(
        images
            .iter()
            .map(|(reference, digest)| layers(&client, reference, digest)),
    )
    .await;
    ImagesAhead(
        images
            .into_iter()
            .zip(found)
            .filter_map(|((reference, digest), found)| {
                Some((reference.clone(), digest.clone(), found.ok()?))
            })
            .collect(),
    )
}

/// Checks every pulled image whose registry has a policy (with the layers `ahead` holds for it,
/// or fetched now); notes once the registries without.
pub(super) async fn check(
    report: &PullReport,
    pull: &PullOptions,
    root: &TrustedRoot,
    settings: &SignatureSettings,
    mut ahead: ImagesAhead,
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
        match client(pull) {
            Err(error) => {
                for (_, subject, _) in &to_check {
                    verdicts.unreachable(subject, error.to_string());
                }
            }
            Ok(client) => {
                let taken: Vec<_> = to_check
                    .iter()
                    .map(|(image, _, _)| ahead.take(&image.reference, &image.digest))
                    .collect();
                let found = futures_util::future::join_all(to_check.iter().zip(taken).map(
                    |((image, _, _), taken)| async {
                        match taken {
                            Some(layers) => Ok(layers),
                            None => layers(&client, &image.reference, &image.digest).await,
                        }
                    },
                ))
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
