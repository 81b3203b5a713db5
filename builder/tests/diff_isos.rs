//! `diff` of two ISOs built here: exactly the differences made between them, as a value, as
//! text and as JSON, with diff(1)'s exit codes.

use std::ffi::OsStr;

use crate::inspect_support::{IMAGES, Tree, cks_iso, stdout};
use cks_builder::inspect::{self, Change, Diff};
use cks_pinning::versions_txt::VersionsTxt;

fn change(key: &str, a: &str, b: &str) -> Change {
    Change {
        key: key.to_string(),
        a: Some(a.to_string()),
        b: Some(b.to_string()),
    }
}

fn sha_of(tree: &Tree, path: &str) -> String {
    tree.file_entries()
        .into_iter()
        .find(|f| f.path == path)
        .map(|f| f.sha256)
        .expect("listed")
}

#[test]
fn a_changed_version_image_and_file_are_exactly_the_differences() {
    let a = Tree::valid();
    let mut b = Tree::valid();
    b.versions.kubernetes = "1.33.14".into();
    let apiserver = IMAGES[1];
    let old = a.images[1].clone();
    let new = b.add_image(apiserver, 77, false);
    b.put("k8s/kubelet", b"a rebuilt kubelet", 0o755);
    b.render();
    let (iso_a, iso_b) = (a.pack("a"), b.pack("b"));

    let tarball = Tree::tarball(apiserver);
    let tarball = tarball.as_str();
    let expected = Diff {
        versions: vec![change("kubernetes", "1.33.13", "1.33.14")],
        images_changed: vec![change(
            apiserver,
            old.digest().expect("pinned"),
            new.digest().expect("pinned"),
        )],
        // The image's tarball changes with it.
        files_changed: vec![
            change(tarball, &sha_of(&a, tarball), &sha_of(&b, tarball)),
            change(
                "k8s/kubelet",
                &sha_of(&a, "k8s/kubelet"),
                &sha_of(&b, "k8s/kubelet"),
            ),
        ],
        ..Diff::default()
    };
    let diff = inspect::diff(&iso_a, &iso_b).expect("both readable");
    assert_eq!(diff, expected);

    let output = cks_iso(&[OsStr::new("diff"), iso_a.as_os_str(), iso_b.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(stdout(&output), expected.to_string());
    let text = stdout(&output);
    assert!(
        text.contains("~ version kubernetes: 1.33.13 -> 1.33.14"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 4, "{text}");

    let output = cks_iso(&[
        OsStr::new("diff"),
        OsStr::new("--json"),
        iso_a.as_os_str(),
        iso_b.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(json, serde_json::to_value(&expected).expect("serialises"));
}

#[test]
fn added_and_removed_urls_images_and_files_are_listed_by_side() {
    let a = Tree::valid();
    let mut b = Tree::valid();
    let removed_url = b.versions.urls.remove(0);
    b.versions.urls.push("https://example.org/extra.tgz".into());
    let added = b.add_image("registry.k8s.io/coredns/coredns:v1.12.0", 90, false);
    b.put("extra/notes.txt", b"new\n", 0o644);
    b.remove("etcd/etcd-linux-amd64.tar.gz");
    b.versions.etcd = None;
    b.render();
    let diff = inspect::diff(&a.pack("a"), &b.pack("b")).expect("readable");
    assert_eq!(diff.urls_removed, [removed_url]);
    assert_eq!(diff.urls_added, ["https://example.org/extra.tgz"]);
    assert_eq!(diff.images_added, [added.to_string()]);
    assert!(diff.images_removed.is_empty() && diff.images_changed.is_empty());
    assert_eq!(
        diff.files_added,
        ["docker/coredns:v1.12.0.tar", "extra/notes.txt"]
    );
    assert_eq!(diff.files_removed, ["etcd/etcd-linux-amd64.tar.gz"]);
    assert_eq!(
        diff.versions,
        [Change {
            key: "etcd".into(),
            a: Some("3.5.21".into()),
            b: None
        }]
    );
    assert!(diff.files_changed.is_empty(), "{diff}");
}

#[test]
fn the_same_iso_twice_has_no_differences_and_exits_0() {
    let tree = Tree::valid();
    let iso = tree.pack("same");
    assert!(inspect::diff(&iso, &iso).expect("readable").is_empty());
    let output = cks_iso(&[OsStr::new("diff"), iso.as_os_str(), iso.as_os_str()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(stdout(&output).trim(), "no differences");
}

#[test]
fn an_unreadable_iso_exits_2_naming_it() {
    let tree = Tree::valid();
    let iso = tree.pack("good");
    let missing = tree.scratch().join("missing.iso");
    let output = cks_iso(&[OsStr::new("diff"), iso.as_os_str(), missing.as_os_str()]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("missing.iso"), "{stderr}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn diff_versions_compares_every_version_key() {
    let text = |k: &str| {
        format!(
            "kubernetes: {k}\ncni-plugins: v1.7.1\ncrictl: v1.33.0\nccm: v1.2.0\ncsi-driver: v3.0.0\nautoscaler: cluster-autoscaler-1.33.0\narch: amd64\n"
        )
    };
    let a = VersionsTxt::parse(&text("1.33.13")).expect("valid");
    let mut b = VersionsTxt::parse(&text("1.34.0")).expect("valid");
    // The older form (`v` prefixes, the tag in `autoscaler:`) reads as the release numbers.
    assert_eq!(a.cni_plugins, "1.7.1");
    assert_eq!(a.autoscaler, "1.33.0");
    assert_eq!(a.autoscaler_tag, "cluster-autoscaler-1.33.0");
    b.cni_plugins = "1.8.0".into();
    b.crictl = "1.34.0".into();
    b.ccm = "1.3.0".into();
    b.csi_driver = "3.1.0".into();
    b.autoscaler = "1.34.0".into();
    b.autoscaler_tag = "cluster-autoscaler-1.34.0".into();
    b.arch = cks_pinning::arch::Arch::Arm64;
    b.etcd = Some("3.6.0".into());
    let keys: Vec<String> = inspect::diff_versions(&a, &b)
        .versions
        .into_iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(
        keys,
        [
            "kubernetes",
            "cni-plugins",
            "crictl",
            "ccm",
            "csi-driver",
            "autoscaler",
            "autoscaler-tag",
            "etcd",
            "arch"
        ]
    );
}

#[test]
fn skipped_images_added_and_removed_are_listed() {
    let a = Tree::valid();
    let mut b = Tree::valid();
    let gone = b.versions.skipped_images.remove(0);
    b.versions
        .skipped_images
        .push(cks_pinning::versions_txt::SkippedImage {
            reference: cks_pinning::image::ImageRef::parse("docker.io/library/busybox:1.36")
                .expect("valid"),
            platform: "linux/amd64".into(),
        });
    b.render();
    let diff = inspect::diff(&a.pack("a"), &b.pack("b")).expect("readable");
    assert_eq!(
        diff.skipped_removed,
        [format!("{} {}", gone.reference, gone.platform)]
    );
    assert_eq!(
        diff.skipped_added,
        ["docker.io/library/busybox:1.36 linux/amd64"]
    );
    assert_eq!(
        Diff {
            skipped_added: vec![],
            skipped_removed: vec![],
            ..diff
        },
        Diff::default()
    );
}

#[test]
fn isos_without_versions_txt_are_compared_by_hashing_their_files() {
    let a = Tree::valid();
    let b = Tree::valid();
    a.remove("versions.txt");
    b.remove("versions.txt");
    b.put("k8s/kubectl", b"another kubectl", 0o755);
    let diff = inspect::diff(&a.pack("a"), &b.pack("b")).expect("readable");
    assert_eq!(
        diff,
        Diff {
            files_changed: vec![change(
                "k8s/kubectl",
                &sha_of(&a, "k8s/kubectl"),
                &sha_of(&b, "k8s/kubectl")
            )],
            ..Diff::default()
        }
    );
}

#[test]
fn a_copy_with_one_byte_of_a_binary_changed_is_reported_though_versions_txt_agrees() {
    let tree = Tree::valid();
    let iso = tree.pack("original");
    // Flip one byte of kubeadm inside a copy of the ISO: versions.txt is untouched.
    let kubeadm = std::fs::read(tree.root().join("k8s/kubeadm")).expect("the tree's kubeadm");
    let mut bytes = std::fs::read(&iso).expect("the ISO");
    let at = bytes
        .windows(kubeadm.len())
        .position(|w| w == kubeadm.as_slice())
        .expect("kubeadm is stored whole in the ISO")
        + kubeadm.len() / 2;
    bytes[at] ^= 0x01;
    let tampered = tree.scratch().join("tampered.iso");
    std::fs::write(&tampered, &bytes).expect("writes the copy");

    let diff = inspect::diff(&iso, &tampered).expect("both readable");
    assert_eq!(diff.versions, [], "{diff}");
    assert_eq!(diff.files_changed.len(), 1, "{diff}");
    assert_eq!(diff.files_changed[0].key, "k8s/kubeadm");
    assert_eq!(
        diff.files_changed[0].a.as_deref(),
        Some(sha_of(&tree, "k8s/kubeadm").as_str())
    );
    assert!(diff.record_a.is_empty(), "{diff}");
    assert_eq!(diff.record_b.len(), 1, "{diff}");
    assert_eq!(diff.record_b[0].path, "k8s/kubeadm");

    let output = cks_iso(&[OsStr::new("diff"), iso.as_os_str(), tampered.as_os_str()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("~ file k8s/kubeadm: "), "{text}");
    assert!(
        text.contains("! versions.txt of B disagrees with its content: k8s/kubeadm: [checksum]"),
        "{text}"
    );
}
