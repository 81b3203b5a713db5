//! Text-preserving manifest edits (issue point 5) on the real upstream manifests and on our
//! look-alikes.

use std::path::Path;

use cks_fixtures::shared;
use cks_pinning::image::ImageRef;
use cks_pinning::manifest::{
    self, EXTRA_RBAC, ManifestError, NODES_PLACEHOLDER, Object, append_extra_rbac,
    count_placeholders, image_refs, images, objects, pin_autoscaler, pin_ccm, set_image,
    set_pull_policy,
};
use saphyr::{LoadableYamlNode, Yaml};

const AUTOSCALER_IMAGE: &str = "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.6";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read the manifest")
}

fn reference(text: &str) -> ImageRef {
    ImageRef::parse(text).expect("valid reference")
}

/// A line diff (longest common subsequence): the lines only in `old` and the lines only in
/// `new`, each in order.
fn line_diff(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            added.push(b[j].to_string());
            j += 1;
        } else {
            removed.push(a[i].to_string());
            i += 1;
        }
    }
    (removed, added)
}

fn image_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| {
            line.trim_start()
                .trim_start_matches("- ")
                .starts_with("image:")
        })
        .map(str::to_string)
        .collect()
}

fn count_images(path: &Path, distinct: usize, occurrences: usize) -> Vec<String> {
    let text = read(path);
    let listed = images(&text).expect("the manifest parses");
    assert_eq!(listed.len(), distinct, "{listed:?}");
    assert_eq!(image_lines(&text).len(), occurrences);
    let refs = image_refs(&text).expect("images are references");
    assert_eq!(refs.len(), distinct);
    listed
}

#[test]
fn real_csi_manifest_names_eight_distinct_images() {
    let Some(path) = shared::upstream("csi/manifest-v3.0.0.yaml") else {
        return;
    };
    let listed = count_images(&path, 8, 10);
    assert_eq!(listed[0], "ghcr.io/cloudstack/cloudstack-csi-driver:3.0.0");
    assert!(listed.contains(&"registry.k8s.io/sig-storage/livenessprobe:v2.12.0".to_string()));
}

#[test]
fn real_flannel_and_dashboard_manifests_name_two_images_each() {
    if let Some(path) = shared::upstream("network/kube-flannel.yml") {
        count_images(&path, 2, 3);
    }
    if let Some(path) = shared::upstream("dashboard/recommended-v2.7.0.yaml") {
        let text = read(&path);
        count_images(&path, 2, 2);
        let refs: Vec<String> = image_refs(&text)
            .expect("valid")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            refs,
            [
                "docker.io/kubernetesui/dashboard:v2.7.0",
                "docker.io/kubernetesui/metrics-scraper:v1.0.8"
            ]
        );
    }
}

fn extra_objects() -> Vec<Object> {
    let object = |kind: &str| Object {
        api_version: "rbac.authorization.k8s.io/v1".to_string(),
        kind: kind.to_string(),
        name: "cluster-autoscaler-extra".to_string(),
        namespace: None,
    };
    vec![object("ClusterRole"), object("ClusterRoleBinding")]
}

#[test]
fn real_autoscaler_example_pinned_differs_only_in_image_line_and_appended_rbac() {
    let Some(path) = shared::upstream("autoscaler/cluster-autoscaler-1.33.6.yaml") else {
        return;
    };
    let input = read(&path);
    let pinned = pin_autoscaler(&input, &reference(AUTOSCALER_IMAGE)).expect("pins");

    let before = objects(&input).expect("valid");
    let after = objects(&pinned).expect("valid");
    assert_eq!(before.len(), 6);
    assert_eq!(after.len(), 8);
    assert_eq!(after[..6], before[..]);
    assert_eq!(after[6..], extra_objects()[..]);

    let (removed, added) = line_diff(&input, &pinned);
    let old_line = image_lines(&input).pop().expect("one image line");
    assert_eq!(removed, std::slice::from_ref(&old_line));
    let new_line = old_line.replace(
        "apache/cloudstack-kubernetes-autoscaler:latest",
        AUTOSCALER_IMAGE,
    );
    let mut expected_added = vec![new_line];
    expected_added.extend(EXTRA_RBAC.lines().map(str::to_string));
    assert_eq!(added, expected_added);
    assert!(pinned.ends_with(EXTRA_RBAC));
    assert_eq!(count_placeholders(&pinned).expect("valid"), 1);
}

#[test]
fn real_autoscaler_example_without_placeholders_is_refused() {
    let Some(path) = shared::upstream("autoscaler/cluster-autoscaler-1.31.5.yaml") else {
        return;
    };
    let input = read(&path);
    pin_autoscaler(&input, &reference(AUTOSCALER_IMAGE)).expect("the real example pins");
    let without = input.replace(&format!("- {NODES_PLACEHOLDER}\n"), "- --nodes=1:3:abc\n");
    assert_ne!(without, input);
    let error = pin_autoscaler(&without, &reference(AUTOSCALER_IMAGE)).expect_err("refused");
    assert!(matches!(error, ManifestError::MissingPlaceholder { .. }));
    assert!(error.to_string().contains(NODES_PLACEHOLDER), "{error}");
}

#[test]
fn real_csi_pull_policies_become_if_not_present_keeping_quotes() {
    let Some(path) = shared::upstream("csi/manifest-v3.0.0.yaml") else {
        return;
    };
    let input = read(&path);
    let edited = set_pull_policy(&input).expect("edits");
    let (removed, added) = line_diff(&input, &edited);
    assert!(!removed.is_empty());
    assert!(
        removed
            .iter()
            .all(|line| line.contains("imagePullPolicy: Always"))
    );
    for (old, new) in removed.iter().zip(&added) {
        assert_eq!(new, &old.replace("Always", "IfNotPresent"));
    }
    assert_eq!(removed.len(), added.len());
    assert!(edited.contains("imagePullPolicy: \"IfNotPresent\""));
    assert!(!edited.contains("imagePullPolicy: Always"));
    // Several images: a single-image pin is refused with a hint.
    let error = set_image(&input, &reference("busybox")).expect_err("several images");
    assert!(
        matches!(error, ManifestError::ImageCount { found: 10, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("upstream layout changed"),
        "{error}"
    );
}

#[test]
fn real_ccm_deployment_pins_the_requested_tag() {
    let Some(path) = shared::upstream("provider/deployment-v1.2.0.yaml") else {
        return;
    };
    let input = read(&path);
    let pin = cks_pinning::ccm::pin(Some("1.3.0-rc1")).expect("valid override");
    let pinned = pin_ccm(&input, &pin.image).expect("one image");
    assert_eq!(
        images(&pinned).expect("valid"),
        ["docker.io/apache/cloudstack-kubernetes-provider:v1.3.0-rc1"]
    );
    let (removed, added) = line_diff(&input, &pinned);
    assert_eq!(removed.len(), 1);
    assert_eq!(added.len(), 1);
    assert!(removed[0].contains("apache/cloudstack-kubernetes-provider:v1.2.0"));
}

// --- our own look-alike data ---

fn data(name: &str) -> String {
    read(&shared::data(&format!("manifests/{name}")))
}

#[test]
fn look_alike_manifests_list_container_images_only() {
    let csi = images(&data("csi-driver.yaml")).expect("valid");
    assert_eq!(
        csi,
        [
            "ghcr.io/cloudstack/cloudstack-csi-driver:3.0.0",
            "registry.k8s.io/sig-storage/csi-provisioner:v5.1.0",
            "registry.k8s.io/sig-storage/csi-attacher:v4.7.0",
            "registry.k8s.io/sig-storage/csi-resizer:v1.12.0",
            "registry.k8s.io/sig-storage/livenessprobe:v2.14.0",
            "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.12.0",
        ]
    );
    // The ConfigMap's text mentioning `image:` is no container.
    assert_eq!(
        images(&data("network.yaml")).expect("valid"),
        [
            "ghcr.io/flannel-io/flannel-cni-plugin:v1.6.0-flannel1",
            "ghcr.io/flannel-io/flannel:v0.26.1"
        ]
    );
    let dashboard: Vec<String> = image_refs(&data("dashboard.yaml"))
        .expect("valid")
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        dashboard,
        [
            "docker.io/kubernetesui/dashboard:v2.7.1",
            "docker.io/kubernetesui/metrics-scraper:v1.0.9"
        ]
    );
}

#[test]
fn look_alike_autoscaler_without_trailing_newline_pins_cleanly() {
    let input = data("autoscaler-example.yaml");
    assert!(
        !input.ends_with('\n'),
        "the look-alike ends without a newline on purpose"
    );
    let pinned = pin_autoscaler(&input, &reference(AUTOSCALER_IMAGE)).expect("pins");
    let after = objects(&pinned).expect("valid");
    assert_eq!(after.len(), 8);
    assert_eq!(after[6..], extra_objects()[..]);
    let (removed, added) = line_diff(&input, &pinned);
    assert_eq!(
        removed,
        [
            "          image: \"apache/cloudstack-kubernetes-autoscaler:latest\"  # replaced when the ISO is built",
            "          imagePullPolicy: Always",
        ]
    );
    // The last line stays as it was (no `---` glued onto it); the extra RBAC follows.
    assert_eq!(
        added[..2],
        [
            format!("          image: \"{AUTOSCALER_IMAGE}\"  # replaced when the ISO is built"),
            "          imagePullPolicy: IfNotPresent".to_string(),
        ]
    );
    assert_eq!(
        added[2..],
        EXTRA_RBAC.lines().skip(1).collect::<Vec<_>>()[..]
    );
    assert!(pinned.ends_with(&format!("secretName: cloudstack-secret{EXTRA_RBAC}")));
    assert_eq!(count_placeholders(&pinned).expect("valid"), 1);
    // Pinning again changes nothing more: the extra RBAC is not appended twice.
    let again = pin_autoscaler(&pinned, &reference(AUTOSCALER_IMAGE)).expect("pins");
    assert_eq!(again, pinned);
}

#[test]
fn extra_rbac_grants_read_access_to_attachments_and_dra_objects() {
    let appended = append_extra_rbac("kind: X\napiVersion: v1\nmetadata: {name: x}").expect("ok");
    let docs = Yaml::load_from_str(&appended).expect("valid YAML");
    assert_eq!(docs.len(), 3);
    let role = &docs[1];
    let rules = role["rules"].as_vec().expect("rules");
    let strings = |node: &Yaml| -> Vec<String> {
        node.as_vec()
            .expect("a list")
            .iter()
            .map(|s| s.as_str().expect("a string").to_string())
            .collect()
    };
    let grants: Vec<(Vec<String>, Vec<String>, Vec<String>)> = rules
        .iter()
        .map(|rule| {
            (
                strings(&rule["apiGroups"]),
                strings(&rule["resources"]),
                strings(&rule["verbs"]),
            )
        })
        .collect();
    let read = vec!["get".to_string(), "list".to_string(), "watch".to_string()];
    assert_eq!(
        grants,
        [
            (
                vec!["storage.k8s.io".to_string()],
                vec!["volumeattachments".to_string()],
                read.clone()
            ),
            (
                vec!["resource.k8s.io".to_string()],
                ["deviceclasses", "resourceslices", "resourceclaims"]
                    .map(String::from)
                    .to_vec(),
                read
            ),
        ]
    );
    let binding = &docs[2];
    assert_eq!(binding["kind"].as_str(), Some("ClusterRoleBinding"));
    assert_eq!(
        binding["roleRef"]["name"].as_str(),
        Some("cluster-autoscaler-extra")
    );
    let subject = &binding["subjects"][0];
    assert_eq!(subject["kind"].as_str(), Some("ServiceAccount"));
    assert_eq!(subject["name"].as_str(), Some("cluster-autoscaler"));
    assert_eq!(subject["namespace"].as_str(), Some("kube-system"));
    assert!(EXTRA_RBAC.starts_with("\n---\n"));
}

#[test]
fn look_alike_ccm_and_autoscaler_edits_keep_quotes_and_comments() {
    let input = data("ccm-deployment.yaml");
    let pin = cks_pinning::ccm::pin(None).expect("default");
    let pinned = pin_ccm(&input, &pin.image).expect("one image");
    let (removed, added) = line_diff(&input, &pinned);
    assert_eq!(
        removed,
        [
            "        image: apache/cloudstack-kubernetes-provider:v1.1.0",
            "        imagePullPolicy: 'Always'"
        ]
    );
    assert_eq!(
        added,
        [
            "        image: docker.io/apache/cloudstack-kubernetes-provider:v1.2.0",
            "        imagePullPolicy: 'IfNotPresent'"
        ]
    );
    // No image at all, or no placeholder: refused.
    let error = set_image("kind: ConfigMap\n", &pin.image).expect_err("no image");
    assert!(matches!(error, ManifestError::ImageCount { found: 0, .. }));
    let error = pin_autoscaler(&input, &pin.image).expect_err("no placeholder");
    assert!(matches!(error, ManifestError::MissingPlaceholder { .. }));
}

#[test]
fn every_container_list_counts_and_bad_yaml_is_refused() {
    let pod = "\
kind: Pod
spec:
  initContainers: [{name: i, image: 'a:1'}]
  containers:
    - {name: c, image: \"b:2\"}
  ephemeralContainers:
    - name: debug
      image: c:3 # a comment
---
---
kind: Pod
spec: {containers: [{name: d, image: a:1}]}
";
    assert_eq!(manifest::images(pod).expect("valid"), ["a:1", "b:2", "c:3"]);
    let error = images("a: [1, 2\n").expect_err("broken");
    assert!(matches!(error, ManifestError::Yaml { .. }), "{error:?}");
    let error = images("containers:\n  - image:\n").expect_err("empty image");
    assert!(error.to_string().contains("line 2"), "{error}");
    let block = "containers:\n  - image: >-\n      busybox\n";
    let error = set_image(block, &reference("busybox")).expect_err("block scalar");
    assert!(
        matches!(error, ManifestError::ScalarStyle { .. }),
        "{error:?}"
    );
    // Flow style: the plain value ends before `}`.
    let flow = "kind: Pod\nspec: {containers: [{name: d, image: a:1, imagePullPolicy: Always}]}\n";
    let edited = set_image(flow, &reference("registry.k8s.io/pause:3.10")).expect("valid");
    let edited = set_pull_policy(&edited).expect("valid");
    assert_eq!(
        edited,
        "kind: Pod\nspec: {containers: [{name: d, image: registry.k8s.io/pause:3.10, imagePullPolicy: IfNotPresent}]}\n"
    );
    // Multi-byte characters before the edited span: spans count characters, edits bytes.
    let text = "# Ünïcödé ✓\nkind: Pod # é\nspec:\n  containers:\n    - image: old:1 # ✓\n";
    let edited = set_image(text, &reference("registry.k8s.io/pause:3.10")).expect("valid");
    assert_eq!(edited, text.replace("old:1", "registry.k8s.io/pause:3.10"));
}
