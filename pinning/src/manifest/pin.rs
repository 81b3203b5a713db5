//! The full edit of each pinned manifest: the autoscaler's and the CCM's.

use super::error::ManifestError;
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
    if !kept_then_appended(&before, &after) {
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

/// The extra RBAC's objects: a ClusterRole and its ClusterRoleBinding.
const EXTRA_RBAC_OBJECTS: usize = 2;

/// Whether `after` holds the objects of `before`, in order, followed by at most the extra
/// RBAC's.
fn kept_then_appended<T: PartialEq>(before: &[T], after: &[T]) -> bool {
    after.get(..before.len()) == Some(before) && after.len() <= before.len() + EXTRA_RBAC_OBJECTS
}

/// Pins the CCM manifest: sets its one image to `image` and every pull policy to `IfNotPresent`.
pub fn pin_ccm(text: &str, image: &ImageRef) -> Result<String, ManifestError> {
    let edited = set_image(text, image)?;
    set_pull_policy(&edited)
}

#[cfg(test)]
mod tests {
    use super::kept_then_appended;

    #[test]
    fn the_input_objects_must_lead_and_at_most_two_follow() {
        assert!(kept_then_appended(&[1, 2, 3], &[1, 2, 3]));
        assert!(kept_then_appended(&[1, 2, 3], &[1, 2, 3, 8, 9]));
        assert!(!kept_then_appended(&[1, 2, 3], &[1, 2, 3, 7, 8, 9]));
        assert!(!kept_then_appended(&[1, 2, 3], &[1, 3, 2, 8, 9]));
        assert!(!kept_then_appended(&[1, 2, 3], &[1, 2]));
    }
}
