//! Setting the image of a manifest that names exactly one container image.

use super::document::{Parsed, scalar_replacement, splice};
use super::error::ManifestError;
use super::images::image_nodes;
use crate::image::ImageRef;

/// Replaces the one container image of `text` with `image`, keeping the value's quoting and
/// every other byte. A manifest with no container image or several is refused: the upstream
/// layout has changed and the pin needs a look.
///
/// ```
/// use cks_pinning::image::ImageRef;
/// let manifest = "spec:\n  containers:\n    - image: apache/x:latest # pinned by cks-iso\n";
/// let image = ImageRef::parse("registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.6").expect("valid");
/// let pinned = cks_pinning::manifest::set_image(manifest, &image).expect("one image");
/// assert_eq!(
///     pinned,
///     "spec:\n  containers:\n    - image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.6 # pinned by cks-iso\n"
/// );
/// ```
pub fn set_image(text: &str, image: &ImageRef) -> Result<String, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let found = image_nodes(&parsed)?;
    let [only] = found.as_slice() else {
        return Err(ManifestError::ImageCount {
            found: found.len(),
            lines: found.iter().map(|image| image.line).collect(),
        });
    };
    let new_value = image.to_string();
    let replacement = scalar_replacement(text, only, &new_value, "image")?;
    let edited = splice(text, vec![(only.range.clone(), replacement)]);
    // The edit must leave a manifest whose one image is the new one.
    let after: Vec<Option<String>> = image_nodes(&Parsed::parse(&edited)?)?
        .into_iter()
        .map(|image| image.value)
        .collect();
    if after != [Some(new_value.clone())] {
        return Err(ManifestError::EditCheck {
            edit: "setting the image",
            detail: format!("expected the one image {new_value}, found {after:?}"),
        });
    }
    Ok(edited)
}
