//! The full edit of each pinned manifest: the autoscaler's and the CCM's.

use super::ManifestError;
use super::objects::objects;
use super::placeholders::{count_placeholders, require_placeholders};
use super::pull_policy::set_pull_policy;
use super::rbac::append_extra_rbac;
use super::set_image::set_image;
use crate::image::ImageRef;

/// Pins the autoscaler manifest: sets its one image to `image`, every pull policy to
/// `IfNotPresent`, and appends the extra RBAC. The `--nodes` placeholders must be there before
/// and intact after; the result must hold the input's objects plus the two new ones.
pub fn pin_autoscaler(text: &str, image: &ImageRef) -> Result<String, ManifestError> {
    let placeholders = require_placeholders(text)?;
    let before = objects(text)?;
    let edited = set_image(text, image)?;
    let edited = set_pull_policy(&edited)?;
    let edited = append_extra_rbac(&edited)?;
    let after_placeholders = count_placeholders(&edited)?;
    if after_placeholders != placeholders {
        return Err(ManifestError::PlaceholderLost {
            before: placeholders,
            after: after_placeholders,
        });
    }
    let after = objects(&edited)?;
    if after.get(..before.len()) != Some(before.as_slice()) || after.len() > before.len() + 2 {
        return Err(ManifestError::EditCheck {
            edit: "pinning the autoscaler",
            detail: format!(
                "expected the {} objects of the input followed by the extra RBAC, found {}",
                before.len(),
                after.len()
            ),
        });
    }
    Ok(edited)
}

/// Pins the CCM manifest: sets its one image to `image` and every pull policy to `IfNotPresent`.
pub fn pin_ccm(text: &str, image: &ImageRef) -> Result<String, ManifestError> {
    let edited = set_image(text, image)?;
    set_pull_policy(&edited)
}
