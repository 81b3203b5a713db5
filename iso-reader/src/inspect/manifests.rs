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
    let role = if name == "network.yaml" {
        manifest::Role::Network
    } else {
        manifest::Role::Other
    };
    if let Err(err) = manifest::validate(text, role) {
        out.push(Finding::new(name, Problem::Manifest, err.to_string()));
        return out;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_always_plain_quoted_and_in_a_list_item_but_not_if_not_present() {
        let text = "a:\n  imagePullPolicy: Always\n- imagePullPolicy: \"Always\" # c\nb:\n  imagePullPolicy: IfNotPresent\n";
        assert_eq!(always_lines(text), [2, 3]);
    }

    #[test]
    fn an_autoscaler_without_placeholders_is_a_finding() {
        let text = "apiVersion: v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0\n          command:\n            - --nodes=1:3:abc\n";
        let found = check(AUTOSCALER, text, None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].problem, Problem::Placeholders);
        let kept = text.replace("1:3:abc", "<min>:<max>:<cluster-id>");
        assert_eq!(check(AUTOSCALER, &kept, None), []);
    }

    #[test]
    fn an_image_neither_bundled_nor_skipped_is_named() {
        let text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - image: busybox:1.36\n";
        let mut versions = VersionsTxt::default();
        let found = check("network.yaml", text, Some(&versions));
        assert_eq!(found.len(), 1);
        assert!(found[0].detail.contains("docker.io/library/busybox:1.36"));
        versions.images.push(
            cks_pinning::image::ImageRef::parse(&format!(
                "docker.io/library/busybox:1.36@sha256:{}",
                "a".repeat(64)
            ))
            .expect("valid"),
        );
        assert_eq!(check("network.yaml", text, Some(&versions)), []);
    }

    fn pull_policy_lines(path: &std::path::Path) {
        let text = std::fs::read_to_string(path).expect("read manifest");
        let lines = always_lines(&text);
        assert!(!lines.is_empty(), "{} sets Always", path.display());
        for line in &lines {
            let source = text.lines().nth(line - 1).expect("line");
            assert!(source.contains("imagePullPolicy"), "{source}");
        }
        let pinned = manifest::set_pull_policy(&text).expect("edits");
        assert_eq!(always_lines(&pinned), Vec::<usize>::new());
        let found = check("dashboard.yaml", &text, None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].problem, Problem::PullPolicy);
        assert_eq!(check("dashboard.yaml", &pinned, None), []);
    }

    #[test]
    fn the_dashboard_manifest_sets_always_until_the_build_pins_it() {
        pull_policy_lines(&cks_fixtures::shared::data("manifests/dashboard.yaml"));
    }

    #[test]
    fn the_upstream_dashboard_manifest_sets_always_until_the_build_pins_it() {
        let Some(path) = cks_fixtures::shared::upstream("dashboard/recommended-v2.7.0.yaml") else {
            return;
        };
        pull_policy_lines(&path);
    }

    #[test]
    fn the_upstream_autoscaler_example_keeps_its_placeholders() {
        let Some(path) =
            cks_fixtures::shared::upstream("autoscaler/cluster-autoscaler-1.33.6.yaml")
        else {
            return;
        };
        let text = std::fs::read_to_string(path).expect("read manifest");
        assert_eq!(check(AUTOSCALER, &text, None), []);
        let lost = text.replace("<min>:<max>:<cluster-id>", "1:5:abc");
        let found = check(AUTOSCALER, &lost, None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].problem, Problem::Placeholders);
    }
}
