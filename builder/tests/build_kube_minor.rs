//! `cks-iso build` given `1.33` or `stable`: resolved from the demo upstream's release markers
//! through the mirrors, printed, recorded in versions.txt and the lock; `--locked` asks the
//! release server nothing; an answer that is not a release, or too large, is a clear error.

use std::path::Path;
use std::process::Output;

use cks_fixtures::demo::run::{build_args, with_flag};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

/// The demo's build arguments with `version` as KUBERNETES_VERSION, plus `extra`.
fn build(upstream: &DemoUpstream, out: &Path, version: &str, extra: &[&str]) -> Output {
    let mut args = with_flag(
        build_args(upstream, out, Arch::Amd64),
        "--kubernetes-version",
        Some(version),
    );
    args.extend(extra.iter().map(ToString::to_string));
    std::process::Command::new(CKS_ISO)
        .args(&args)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_minor_builds_its_newest_patch_and_the_lock_rebuilds_it_without_asking() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let lock = out.path().join("cks.lock");
    let lock_arg = lock.display().to_string();
    let first = build(&upstream, out.path(), "1.33", &["--write-lock", &lock_arg]);
    let stderr = text(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "kubernetes: 1.33 -> 1.33.13 (from https://dl.k8s.io/release/stable-1.33.txt)"
        ),
        "{stderr}"
    );
    let iso = out.path().join("cks-demo-1.33.13-x86_64.iso");
    let mut versions = Vec::new();
    cks_builder::iso::IsoImage::open(&iso)
        .expect("the ISO opens")
        .copy_file("versions.txt", &mut versions)
        .expect("the ISO holds versions.txt");
    let versions = text(&versions);
    assert!(versions.contains("kubernetes: 1.33.13"), "{versions}");
    let recorded = std::fs::read_to_string(&lock).expect("the lock");
    assert!(
        recorded.contains("\"kubernetes-version\": \"1.33.13\""),
        "{recorded}"
    );

    // `--locked` takes the lock's release: the markers are not read again.
    upstream.file_server().reset_counts();
    let again = tempfile::tempdir().expect("second out dir");
    let locked = build(&upstream, again.path(), "1.33", &["--locked", &lock_arg]);
    let stderr = text(&locked.stderr);
    assert!(locked.status.success(), "{stderr}");
    assert!(
        stderr.contains("kubernetes: 1.33 -> 1.33.13 (from the lock)"),
        "{stderr}"
    );
    for marker in ["stable-1.33.txt", "stable.txt"] {
        assert_eq!(
            upstream
                .file_server()
                .requests(&format!("/dl.k8s.io/release/{marker}")),
            0,
            "{marker} was read under --locked"
        );
    }
    // A lock of 1.33 does not answer another minor.
    let other = build(&upstream, again.path(), "1.32", &["--locked", &lock_arg]);
    assert!(!other.status.success());
    assert!(text(&other.stderr).contains("asks for 1.32 but the lock holds Kubernetes 1.33.13"));
}

#[test]
fn stable_resolves_and_a_dry_run_shows_the_release() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let planned = build(&upstream, out.path(), "stable", &["--dry-run", "--json"]);
    assert!(planned.status.success(), "{}", text(&planned.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).expect("a JSON plan");
    assert_eq!(plan["kubernetes"], "1.33.13");
    assert!(text(&planned.stderr).contains("kubernetes: stable -> 1.33.13"));
    assert_eq!(
        upstream
            .file_server()
            .requests("/dl.k8s.io/release/stable.txt"),
        1
    );
    let built = build(&upstream, out.path(), "stable", &[]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    assert!(out.path().join("cks-demo-1.33.13-x86_64.iso").exists());
}

#[test]
fn an_answer_that_is_not_a_release_is_refused_naming_its_url() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let marker = upstream.root().join("dl.k8s.io/release/stable-1.33.txt");
    std::fs::write(&marker, "<!doctype html><html><body>Sign in</body></html>").expect("html");
    let refused = build(&upstream, out.path(), "1.33", &["--dry-run"]);
    let stderr = text(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("/dl.k8s.io/release/stable-1.33.txt did not answer with a release"),
        "{stderr}"
    );
    assert!(stderr.contains("<!doctype html>"), "{stderr}");

    // Another minor's release is not this minor's newest patch.
    std::fs::write(&marker, "v1.32.9").expect("other minor");
    let other = build(&upstream, out.path(), "1.33", &["--dry-run"]);
    assert!(text(&other.stderr).contains("names 1.32.9, not a release of 1.33"));

    // An answer past the `answer` limit is cut off, naming the limit.
    std::fs::write(&marker, format!("v1.33.13{}", " ".repeat(4096))).expect("padded");
    let large = build(
        &upstream,
        out.path(),
        "1.33",
        &["--dry-run", "--limit", "answer=1KiB"],
    );
    let stderr = text(&large.stderr);
    assert!(!large.status.success());
    assert!(
        stderr.contains("stable-1.33.txt") && stderr.contains("--limit answer="),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(out.path()).expect("out").count(), 0);
}

#[test]
fn an_exact_version_is_not_resolved() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let planned = build(&upstream, out.path(), "1.33.13", &["--dry-run"]);
    assert!(planned.status.success(), "{}", text(&planned.stderr));
    assert!(!text(&planned.stderr).contains("kubernetes: "));
    assert_eq!(
        upstream
            .file_server()
            .requests("/dl.k8s.io/release/stable-1.33.txt"),
        0
    );
}

#[test]
fn crictl_and_cni_left_out_take_the_newest_releases_from_their_tags() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = ["--cni-version", "--crictl-version"].iter().fold(
        build_args(&upstream, out.path(), Arch::Amd64),
        |args, flag| with_flag(args, flag, None),
    );
    args.extend(["--dry-run", "--json"].map(String::from));
    let planned = std::process::Command::new(CKS_ISO)
        .args(&args)
        .output()
        .expect("cks-iso runs");
    let stderr = text(&planned.stderr);
    assert!(planned.status.success(), "{stderr}");
    assert!(stderr.contains("crictl: 1.33.0 (newest at "), "{stderr}");
    assert!(
        stderr.contains("cni-plugins: 1.6.2 (newest at "),
        "{stderr}"
    );
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).expect("a JSON plan");
    assert_eq!(plan["crictl"], "v1.33.0");
    assert_eq!(plan["cni_plugins"], "v1.6.2");
}

#[test]
fn etcd_asked_for_as_kubeadm_takes_the_release_kubeadm_names_and_the_lock_keeps_it() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let lock = out.path().join("cks.lock");
    let lock_arg = lock.display().to_string();
    let args = with_flag(
        build_args(&upstream, out.path(), Arch::Amd64),
        "--etcd-version",
        Some("kubeadm"),
    );
    let run = |extra: &[&str]| {
        std::process::Command::new(CKS_ISO)
            .args(&args)
            .args(extra)
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .expect("cks-iso runs")
    };
    // The plan names it, and the line says where it came from.
    let planned = run(&["--dry-run", "--json"]);
    let stderr = text(&planned.stderr);
    assert!(planned.status.success(), "{stderr}");
    assert!(
        stderr.contains("etcd: 3.5.21 (the etcd kubeadm v1.33.13 names in `config images list`)"),
        "{stderr}"
    );
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).expect("a JSON plan");
    assert_eq!(plan["etcd"], "v3.5.21");
    assert!(
        plan["files"]
            .as_array()
            .expect("files")
            .iter()
            .any(|f| f["urls"][0].as_str().is_some_and(|u| u.ends_with(
                "/etcd-io/etcd/releases/download/v3.5.21/etcd-v3.5.21-linux-amd64.tar.gz"
            ))),
        "{plan}"
    );

    let built = run(&["--write-lock", &lock_arg]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    let iso = out.path().join("cks-demo-1.33.13-x86_64.iso");
    let image = cks_builder::iso::IsoImage::open(&iso).expect("the ISO opens");
    let mut versions = Vec::new();
    image
        .copy_file("versions.txt", &mut versions)
        .expect("the ISO holds versions.txt");
    assert!(
        text(&versions).contains("\netcd: 3.5.21\n"),
        "{}",
        text(&versions)
    );
    let mut tarball = Vec::new();
    image
        .copy_file("etcd/etcd-linux-amd64.tar.gz", &mut tarball)
        .expect("the ISO holds etcd");
    assert!(!tarball.is_empty());

    // A locked build takes the lock's etcd: the same ISO, byte for byte.
    let again = tempfile::tempdir().expect("second out dir");
    let locked_args = with_flag(
        build_args(&upstream, again.path(), Arch::Amd64),
        "--etcd-version",
        Some("kubeadm"),
    );
    let locked = std::process::Command::new(CKS_ISO)
        .args(&locked_args)
        .args(["--locked", &lock_arg])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs");
    assert!(locked.status.success(), "{}", text(&locked.stderr));
    assert_eq!(
        std::fs::read(again.path().join("cks-demo-1.33.13-x86_64.iso")).expect("locked ISO"),
        std::fs::read(&iso).expect("first ISO")
    );
}

#[test]
fn an_older_minor_with_crictl_and_cni_left_out_takes_its_own_releases() {
    let upstream = DemoUpstream::start(&DemoConfig::default().with_older_minors())
        .expect("demo upstream with older minors");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = [
        ("--cni-version", None),
        ("--crictl-version", None),
        ("--kubernetes-version", Some("1.32")),
        ("--etcd-version", Some("kubeadm")),
    ]
    .iter()
    .fold(
        build_args(&upstream, out.path(), Arch::Arm64),
        |args, (flag, value)| with_flag(args, flag, *value),
    );
    args.extend(["--dry-run", "--json"].map(String::from));
    let planned = std::process::Command::new(CKS_ISO)
        .args(&args)
        .output()
        .expect("cks-iso runs");
    let stderr = text(&planned.stderr);
    assert!(planned.status.success(), "{stderr}");
    assert!(stderr.contains("kubernetes: 1.32 -> 1.32.9"), "{stderr}");
    assert!(stderr.contains("crictl: 1.32.0 (newest at "), "{stderr}");
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).expect("a JSON plan");
    assert_eq!(plan["kubernetes"], "1.32.9");
    assert_eq!(plan["crictl"], "v1.32.0");
    assert_eq!(plan["cni_plugins"], "v1.6.2");
    assert_eq!(plan["etcd"], "v3.5.16");
}
