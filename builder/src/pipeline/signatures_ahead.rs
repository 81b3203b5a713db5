//! The images' signature material asked for while their blobs download, so the signature
//! check after the downloads has nothing left to wait for on the link (on a link of 40 ms, three
//! round trips an image: the `.sig` tag, the referrers, the signature layer).

use super::execution::Execution;
use super::plan::Plan;
use crate::registry::{ImageRequest, resolve_digests};
use crate::upstream_signatures::ImagesAhead;

/// The signature material of the plan's images at the digests their references resolve to now
/// (the lock's, or the registry's, read once in this build already for the free-space check);
/// nothing for an image whose digest cannot be learnt (the pull reports why).
pub async fn images_ahead(plan: &Plan, run: &Execution<'_>) -> ImagesAhead {
    let pull = plan.pull_options(&run.pull);
    let unpinned: Vec<ImageRequest> = plan
        .images
        .iter()
        .zip(plan.image_requests())
        .filter(|(image, _)| image.digest.is_none())
        .map(|(_, request)| request)
        .collect();
    let mut resolved = match unpinned.is_empty() {
        true => Vec::new(),
        false => resolve_digests(&unpinned, &pull).await.unwrap_or_default(),
    }
    .into_iter();
    let mut images = Vec::new();
    for image in &plan.images {
        let digest = match &image.digest {
            Some(digest) => Some(digest.clone()),
            None => resolved.next(),
        };
        if let Some(digest) = digest {
            images.push((image.reference.clone(), digest));
        }
    }
    run.signatures.fetch_images_ahead(&images, &pull).await
}
