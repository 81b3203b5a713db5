//! The root `*.yaml` manifests: valid YAML, no `imagePullPolicy: Always`, every image bundled or
//! recorded as skipped, and the autoscaler's placeholders intact. Pure: works on the texts.

use cks_pinning::manifest;
use cks_pinning::versions_txt::VersionsTxt;

use super::finding::{Finding, Problem};
use super::images::accounted_for;

/// The autoscaler template CloudStack fills in per cluster.
pub const AUTOSCALER: &str = "autoscaler.yaml";

/// The 1-based lines that set `imagePullPolicy` to `Always` (plain or quoted, in block style).
pub fn always_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter_map(|(n, line)| {
            let line = line.trim_start().trim_start_matches("- ").trim_start();
            let value = line.strip_prefix("imagePullPolicy:")?;
            let value = value.split(" #").next().unwrap_or_default().trim();
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            (value == "Always").then_some(n + 1)
        })
        .collect()
}

/// Checks the manifest `name` (a root `*.yaml`) with content `text`.
pub fn check(name: &str, text: &str, versions: Option<&VersionsTxt>) -> Vec<Finding> {
    let mut out = Vec::new();
    let lines = always_lines(text);
    if !lines.is_empty() {
        let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
        out.push(Finding::new(
            name,
            Problem::PullPolicy,
            format!(
                "sets imagePullPolicy: Always (line {}); nodes would pull from the internet instead of using the bundled image, so use IfNotPresent",
                lines.join(", ")
            ),
        ));
    }
    match manifest::image_refs(text) {
        Err(err) => out.push(Finding::new(name, Problem::Manifest, err.to_string())),
        Ok(refs) => {
            if let Some(versions) = versions {
                for wanted in refs {
                    if !accounted_for(&wanted, &versions.images, &versions.skipped_images) {
                        out.push(Finding::new(
                            name,
                            Problem::Manifest,
                            format!(
                                "names the image {wanted}, which is neither bundled (`image:`) nor recorded as skipped (`skipped-image:`) in versions.txt"
                            ),
                        ));
                    }
                }
            }
        }
    }
    if name == AUTOSCALER {
        match manifest::require_placeholders(text) {
            Ok(_) => {}
            Err(manifest::ManifestError::Yaml { .. }) => {}
            Err(err) => out.push(Finding::new(name, Problem::Placeholders, err.to_string())),
        }
    }
    out
}
