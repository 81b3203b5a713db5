//! Setting every `imagePullPolicy` to `IfNotPresent`, so nodes use the images the ISO brings.

use saphyr::MarkedYaml;

use super::document::{Parsed, for_each_entry, scalar_replacement, splice};
use super::error::ManifestError;

/// The pull policy that lets a node use the images imported from the ISO.
pub const IF_NOT_PRESENT: &str = "IfNotPresent";

/// Sets the value of every `imagePullPolicy` key, in every document, to `IfNotPresent`, keeping
/// its quoting (`"Always"` becomes `"IfNotPresent"`). Keys that already say so are left as they
/// are; containers without the key are not given one (`IfNotPresent` is the default for a tagged
/// image other than `latest`).
///
/// ```
/// let manifest = "containers:\n  - image: a:1\n    imagePullPolicy: \"Always\"\n";
/// let edited = cks_pinning::manifest::set_pull_policy(manifest).expect("valid");
/// assert_eq!(edited, "containers:\n  - image: a:1\n    imagePullPolicy: \"IfNotPresent\"\n");
/// ```
pub fn set_pull_policy(text: &str) -> Result<String, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let mut found = Vec::new();
    let mut collect = |key: &str, value: &MarkedYaml<'_>| {
        if key == "imagePullPolicy" {
            found.push(parsed.locate(value));
        }
    };
    for document in parsed.objects() {
        for_each_entry(document, &mut collect);
    }
    let mut edits = Vec::new();
    for policy in &found {
        if policy.value.as_deref() == Some(IF_NOT_PRESENT) {
            continue;
        }
        if policy.value.is_none() {
            return Err(ManifestError::ScalarStyle {
                what: "imagePullPolicy".to_string(),
                line: policy.line,
                source_text: text[policy.range.clone()].to_string(),
            });
        }
        let replacement = scalar_replacement(text, policy, IF_NOT_PRESENT, "imagePullPolicy")?;
        edits.push((policy.range.clone(), replacement));
    }
    Ok(splice(text, edits))
}
