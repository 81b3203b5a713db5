//! `verify` on a complete ISO built here (real OCI-layout tarballs, rendered versions.txt), then
//! on one broken variant per rule: each gives exactly its finding, and the CLI exits 1.

use crate::inspect_support;

use std::ffi::OsStr;

use crate::inspect_support::{PLACEHOLDER, Tree, cks_iso, stdout};
use cks_builder::inspect::{self, Finding, Problem};

/// Packs `tree`, checks that the library finds exactly `(path, problem)` and that the CLI prints
/// that finding and exits 1. Returns the finding.
fn only_finding(tree: &Tree, path: &str, problem: Problem) -> Finding {
    let iso = tree.pack("broken");
    let report = inspect::verify(&iso).expect("the ISO is readable");
    let found: Vec<(String, Problem)> = report
        .findings
        .iter()
        .map(|f| (f.path.clone(), f.problem))
        .collect();
    assert_eq!(
        found,
        [(path.to_string(), problem)],
        "findings: {:#?}",
        report.findings
    );
    let output = cks_iso(&[OsStr::new("verify"), iso.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let printed = stdout(&output);
    let finding = report.findings[0].clone();
    assert!(
        printed.lines().any(|line| line == finding.to_string()),
        "the CLI prints the finding {finding}; it printed:\n{printed}"
    );
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("1 problem"),
        "{output:?}"
    );
    finding
}

#[test]
fn a_complete_iso_verifies_clean_and_the_cli_prints_its_fit_and_one_ok_line() {
    let tree = Tree::valid();
    let iso = tree.pack("valid");
    let report = inspect::verify(&iso).expect("readable");
    assert!(report.is_clean(), "{:#?}", report.findings);
    assert_eq!(report.volume_id, "CDROM");
    assert_eq!(report.images, inspect_support::IMAGES.len());
    let files = tree.file_entries().len() + 2; // and versions.txt and the SBOM
    assert_eq!(report.files, files);

    let output = cks_iso(&[OsStr::new("verify"), iso.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let printed = stdout(&output);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines, ["fits: 4.20, 4.22, 4.23", lines[1]], "{printed}");
    assert!(lines[1].starts_with("OK"), "{printed}");
}

#[test]
fn a_file_changed_after_the_build_is_a_checksum_finding() {
    let tree = Tree::valid();
    tree.put("k8s/kubelet", b"not the kubelet that was downloaded", 0o755);
    let finding = only_finding(&tree, "k8s/kubelet", Problem::Checksum);
    assert!(finding.detail.contains("versions.txt"), "{finding}");
}

#[test]
fn a_missing_required_file_is_named() {
    let tree = Tree::valid();
    tree.remove("provider.yaml");
    tree.render();
    only_finding(&tree, "provider.yaml", Problem::MissingRequired);
}

#[test]
fn a_kubeadm_that_is_not_executable_is_a_mode_finding() {
    let tree = Tree::valid();
    tree.chmod("k8s/kubeadm", 0o644);
    tree.render();
    let finding = only_finding(&tree, "k8s/kubeadm", Problem::Mode);
    assert!(finding.detail.contains("0644"), "{finding}");
}

#[test]
fn a_tarball_without_the_containerd_name_annotation_is_a_tarball_finding() {
    let tree = Tree::valid();
    let reference = inspect_support::IMAGES[2];
    tree.strip_containerd_name(reference, 2, false);
    tree.render();
    let finding = only_finding(&tree, &Tree::tarball(reference), Problem::Tarball);
    assert!(
        finding.detail.contains("io.containerd.image.name"),
        "{finding}"
    );
}

#[test]
fn two_pause_images_are_one_finding_naming_both() {
    let mut tree = Tree::valid();
    tree.add_image("registry.k8s.io/pause:3.9", 40, false);
    tree.render();
    let finding = only_finding(&tree, "docker", Problem::PauseImage);
    assert!(
        finding.detail.contains("registry.k8s.io/pause:3.9")
            && finding.detail.contains("registry.k8s.io/pause:3.10"),
        "{finding}"
    );
}

#[test]
fn a_kubelet_unit_running_an_opt_bin_command_no_node_has_is_a_unit_command_finding() {
    let tree = Tree::valid();
    // What `/usr/bin` -> `/opt/bin` makes of a unit that runs a system tool.
    let text = tree.read("10-kubeadm.conf").replace(
        "ExecStart=\n",
        "ExecStartPre=/opt/bin/test -d /var/lib/kubelet\nExecStart=\n",
    );
    tree.put("10-kubeadm.conf", text.as_bytes(), 0o644);
    tree.render();
    let finding = only_finding(&tree, "10-kubeadm.conf", Problem::UnitCommand);
    assert!(
        finding.detail.contains("line 3 runs /opt/bin/test"),
        "{finding}"
    );
}

#[test]
fn kubelet_units_may_run_what_the_iso_ships_and_the_cks_scripts() {
    let tree = Tree::valid();
    let text = format!(
        "{}ExecStartPost=/bin/sh -c '/opt/bin/crictl info; /opt/bin/etcdctl version'\n\
         ExecStopPost=-/opt/bin/autoscale-kube-cluster -d\n",
        tree.read("kubelet.service")
    );
    tree.put("kubelet.service", text.as_bytes(), 0o644);
    tree.render();
    let report = inspect::verify(&tree.pack("units")).expect("readable");
    assert!(report.is_clean(), "{:#?}", report.findings);
}

#[test]
fn lost_autoscaler_placeholders_are_a_placeholders_finding() {
    let tree = Tree::valid();
    let text = tree
        .read("autoscaler.yaml")
        .replace(PLACEHOLDER, "--nodes=1:5:abc");
    tree.put("autoscaler.yaml", text.as_bytes(), 0o644);
    tree.render();
    only_finding(&tree, "autoscaler.yaml", Problem::Placeholders);
}

#[test]
fn image_pull_policy_always_is_a_pull_policy_finding_with_its_line() {
    let tree = Tree::valid();
    let text = tree.read("network.yaml").replace(
        "imagePullPolicy: IfNotPresent",
        "imagePullPolicy: \"Always\"",
    );
    let line = text
        .lines()
        .position(|l| l.contains("Always"))
        .expect("edited")
        + 1;
    tree.put("network.yaml", text.as_bytes(), 0o644);
    tree.render();
    let finding = only_finding(&tree, "network.yaml", Problem::PullPolicy);
    assert!(finding.detail.contains(&line.to_string()), "{finding}");
}

#[test]
fn a_file_not_in_versions_txt_is_an_unlisted_finding() {
    let tree = Tree::valid();
    tree.put("notes.txt", b"added after the build\n", 0o644);
    only_finding(&tree, "notes.txt", Problem::Unlisted);
}

#[test]
fn a_volume_id_other_than_cdrom_is_a_finding() {
    let tree = Tree::valid();
    let iso = tree.pack_as("label", "CKS_ISO");
    let report = inspect::verify(&iso).expect("readable");
    let found: Vec<_> = report
        .findings
        .iter()
        .map(|f| (f.path.as_str(), f.problem))
        .collect();
    assert_eq!(found, [("/", Problem::VolumeId)], "{:#?}", report.findings);
}

#[test]
fn an_image_in_a_manifest_that_is_neither_bundled_nor_skipped_is_named() {
    let tree = Tree::valid();
    let text = tree.read("dashboard.yaml").replace(
        "kubernetesui/dashboard:v2.7.0",
        "kubernetesui/dashboard:v2.7.1",
    );
    tree.put("dashboard.yaml", text.as_bytes(), 0o644);
    tree.render();
    let finding = only_finding(&tree, "dashboard.yaml", Problem::Manifest);
    assert!(
        finding
            .detail
            .contains("docker.io/kubernetesui/dashboard:v2.7.1"),
        "{finding}"
    );
}

#[test]
fn a_non_tar_file_in_docker_is_unexpected() {
    let tree = Tree::valid();
    tree.put("docker/images.txt", b"list\n", 0o644);
    tree.render();
    only_finding(&tree, "docker/images.txt", Problem::Unexpected);
}

#[test]
fn an_iso_that_cannot_be_read_is_an_error_not_a_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bogus = dir.path().join("bogus.iso");
    std::fs::write(&bogus, vec![0u8; 100_000]).expect("write");
    let error = inspect::verify(&bogus).expect_err("not an ISO");
    assert!(error.to_string().contains("bogus.iso"), "{error}");
    let output = cks_iso(&[OsStr::new("verify"), bogus.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

#[test]
fn help_documents_the_exit_codes_of_verify_and_diff() {
    let verify = stdout(&cks_iso(&[OsStr::new("verify"), OsStr::new("--help")]));
    assert!(
        verify.contains("Exit codes: 0 the ISO meets the node contract, 1 a problem"),
        "{verify}"
    );
    let diff = stdout(&cks_iso(&[OsStr::new("diff"), OsStr::new("--help")]));
    assert!(
        diff.contains("0 the ISOs record the same content, 1 they differ, 2 trouble"),
        "{diff}"
    );
}

#[test]
fn json_output_carries_the_same_findings_as_the_library() {
    let tree = Tree::valid();
    tree.remove("k8s/kubectl");
    tree.render();
    let iso = tree.pack("json");
    let report = inspect::verify(&iso).expect("readable");
    let output = cks_iso(&[OsStr::new("verify"), OsStr::new("--json"), iso.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json, serde_json::to_value(&report).expect("serialises"));
    assert_eq!(json["findings"][0]["path"], "k8s/kubectl");
    assert_eq!(json["findings"][0]["problem"], "missing-required");
}

#[test]
fn etcd_recorded_in_versions_txt_but_not_bundled_is_missing() {
    let tree = Tree::valid();
    tree.remove("etcd/etcd-linux-amd64.tar.gz");
    tree.render();
    let finding = only_finding(
        &tree,
        "etcd/etcd-linux-amd64.tar.gz",
        Problem::MissingRequired,
    );
    assert!(finding.detail.contains("etcd 3.5.21"), "{finding}");
}

#[test]
fn headlamp_yaml_stands_in_for_dashboard_yaml() {
    let tree = Tree::valid();
    let dashboard = tree.read("dashboard.yaml");
    tree.remove("dashboard.yaml");
    tree.put("headlamp.yaml", dashboard.as_bytes(), 0o644);
    tree.render();
    let report = inspect::verify(&tree.pack("headlamp")).expect("readable");
    assert!(report.is_clean(), "{:#?}", report.findings);
}

#[test]
fn an_sbom_that_disagrees_with_versions_txt_is_an_sbom_finding_naming_the_file() {
    let tree = Tree::valid();
    let kubeadm = tree
        .file_entries()
        .into_iter()
        .find(|f| f.path == "k8s/kubeadm")
        .expect("the tree has a kubeadm");
    let edited = tree
        .read("sbom.spdx.json")
        .replace(&kubeadm.sha256, &"0".repeat(64));
    tree.put("sbom.spdx.json", edited.as_bytes(), 0o644);
    let finding = only_finding(&tree, "sbom.spdx.json", Problem::Sbom);
    assert!(
        finding.detail.contains("k8s/kubeadm") && finding.detail.contains(&kubeadm.sha256),
        "{finding}"
    );
}

#[test]
fn an_iso_without_an_sbom_is_an_sbom_finding() {
    let tree = Tree::valid();
    tree.remove("sbom.spdx.json");
    let finding = only_finding(&tree, "sbom.spdx.json", Problem::Sbom);
    assert!(finding.detail.contains("missing"), "{finding}");
}
