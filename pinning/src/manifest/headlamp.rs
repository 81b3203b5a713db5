//! The Headlamp manifest's pin: its one image set to the release's own tag and pulled only
//! when not present (the release manifest names `:latest` and no pull policy, which Kubernetes
//! treats as `Always`, so a node that cannot reach ghcr.io would fail to start it).

use saphyr::MarkedYaml;

use super::document::{Parsed, for_each_entry, get, get_str, items};
use super::error::ManifestError;
use super::objects::objects;
use super::pull_policy::{IF_NOT_PRESENT, set_pull_policy};
use super::set_image::set_image;
use crate::image::ImageRef;

/// Pins the Headlamp manifest: sets its one image to `image` (exactly one `image:` changes),
/// every existing pull policy to `IfNotPresent`, and gives the container a
/// `imagePullPolicy: IfNotPresent` line below its image when it has none. Every other byte is
/// kept; the result must hold the same objects, with the one container pinned.
///
/// ```
/// use cks_pinning::image::ImageRef;
/// let text = "kind: Deployment\napiVersion: apps/v1\nmetadata:\n  name: headlamp\nspec:\n  template:\n    spec:\n      containers:\n        - name: headlamp\n          image: ghcr.io/headlamp-k8s/headlamp:latest\n          args: []\n";
/// let image = ImageRef::parse("ghcr.io/headlamp-k8s/headlamp:v0.40.1").expect("valid");
/// let pinned = cks_pinning::manifest::pin_headlamp(text, &image).expect("one image");
/// assert!(pinned.contains("          image: ghcr.io/headlamp-k8s/headlamp:v0.40.1\n          imagePullPolicy: IfNotPresent\n          args: []\n"));
/// ```
pub fn pin_headlamp(text: &str, image: &ImageRef) -> Result<String, ManifestError> {
    let before = objects(text)?;
    let edited = set_pull_policy(&set_image(text, image)?)?;
    let edited = add_missing_pull_policy(&edited)?;
    if objects(&edited)? != before {
        return Err(ManifestError::EditCheck {
            edit: "pinning Headlamp",
            detail: "the objects of the manifest changed".to_string(),
        });
    }
    let policies = container_policies(&Parsed::parse(&edited)?);
    if policies != [Some(IF_NOT_PRESENT.to_string())] {
        return Err(ManifestError::EditCheck {
            edit: "pinning Headlamp",
            detail: format!("expected one container pulled IfNotPresent, found {policies:?}"),
        });
    }
    Ok(edited)
}

/// Each container's `imagePullPolicy`, in document order.
fn container_policies(parsed: &Parsed<'_>) -> Vec<Option<String>> {
    let mut found = Vec::new();
    let mut collect = |key: &str, value: &MarkedYaml<'_>| {
        if key == "containers" {
            for container in items(value) {
                found.push(get_str(container, "imagePullPolicy").map(str::to_string));
            }
        }
    };
    for document in parsed.objects() {
        for_each_entry(document, &mut collect);
    }
    found
}

/// Inserts `imagePullPolicy: IfNotPresent` below the `image:` line of the one container that
/// has no pull policy, at the image key's indentation.
fn add_missing_pull_policy(text: &str) -> Result<String, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let mut missing = Vec::new();
    let mut collect = |key: &str, value: &MarkedYaml<'_>| {
        if key == "containers" {
            for container in items(value) {
                if get(container, "imagePullPolicy").is_none()
                    && let Some(image) = get(container, "image")
                {
                    missing.push(parsed.locate(image));
                }
            }
        }
    };
    for document in parsed.objects() {
        for_each_entry(document, &mut collect);
    }
    let mut edits = Vec::new();
    for image in missing {
        let line_start = text[..image.range.start].rfind('\n').map_or(0, |i| i + 1);
        let head = &text[line_start..image.range.start];
        let key_column = head
            .rfind("image")
            .ok_or_else(|| ManifestError::ScalarStyle {
                what: "image".to_string(),
                line: image.line,
                source_text: head.to_string(),
            })?;
        if head.contains('{') {
            // A flow mapping gets no line of its own.
            return Err(ManifestError::ScalarStyle {
                what: "image".to_string(),
                line: image.line,
                source_text: head.to_string(),
            });
        }
        let line_end = text[image.range.end..]
            .find('\n')
            .map_or(text.len(), |i| image.range.end + i);
        let indent = " ".repeat(head[..key_column].chars().count());
        edits.push((
            line_end..line_end,
            format!("\n{indent}imagePullPolicy: {IF_NOT_PRESENT}"),
        ));
    }
    Ok(super::document::splice(text, edits))
}
