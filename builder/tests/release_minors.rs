//! `cks-iso release` over three minors and two arches against the demo upstream with its older
//! minors: each minor builds its newest patch with its own crictl and the etcd its kubeadm names,
//! the catalog lists the six ISOs with a checksum file per minor, a second run builds nothing and
//! says so, and a list of minors builds just those.

use std::path::Path;
use std::process::Output;

use cks_fixtures::demo::run::release_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

/// `cks-iso release` with the demo's build flags, crictl, CNI and etcd left out to be chosen
/// per minor, and `extra`.
fn release(upstream: &DemoUpstream, out: &Path, extra: &[&str]) -> Output {
    let per_minor = ["--crictl-version", "--cni-version", "--etcd-version"];
    std::process::Command::new(CKS_ISO)
        .args(release_args(upstream, out, &per_minor))
        .args(extra)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `versions.txt` of the ISO at `iso`.
fn versions_txt(iso: &Path) -> String {
    let mut out = Vec::new();
    cks_builder::iso::IsoImage::open(iso)
        .expect("the ISO opens")
        .copy_file("versions.txt", &mut out)
        .expect("the ISO holds versions.txt");
    text(&out)
}

/// The minors of the demo upstream with older minors: minor, release, crictl, etcd.
const MINORS: [(&str, &str, &str, &str); 3] = [
    ("1.33", "1.33.13", "1.33.0", "3.5.21"),
    ("1.32", "1.32.9", "1.32.0", "3.5.16"),
    ("1.31", "1.31.13", "1.31.1", "3.5.15"),
];

#[test]
fn three_minors_for_two_arches_then_a_second_run_builds_nothing() {
    let upstream = DemoUpstream::start(&DemoConfig::default().with_older_minors())
        .expect("demo upstream with older minors");
    let work = tempfile::tempdir().expect("work dir");
    let (out, cache) = (work.path().join("out"), work.path().join("cache"));
    let flags = [
        "--minors",
        "3",
        "--arch",
        "x86_64",
        "--arch",
        "aarch64",
        "--etcd-version",
        "kubeadm",
        "--cache-dir",
        cache.to_str().expect("UTF-8 path"),
        "--base-url",
        "https://images.example/cks/",
    ];
    let first = release(&upstream, &out, &flags);
    let (stdout, stderr) = (text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "{stderr}");
    for (minor, version, crictl, etcd) in MINORS {
        assert!(
            stderr.contains(&format!("kubernetes: {minor} -> {version}")),
            "{stderr}"
        );
        for arch in ["x86_64", "aarch64"] {
            let row = stdout
                .lines()
                .find(|l| l.starts_with(minor) && l.contains(arch))
                .unwrap_or_else(|| panic!("no row for {minor} {arch}: {stdout}"));
            assert!(row.contains(version) && row.contains(" built "), "{row}");
            let iso = out.join(format!("cks-{version}-{arch}.iso"));
            let versions = versions_txt(&iso);
            for line in [
                format!("kubernetes: {version}\n"),
                format!("crictl: {crictl}\n"),
                format!("etcd: {etcd}\n"),
            ] {
                assert!(
                    versions.contains(&line),
                    "{iso:?} lacks {line:?}: {versions}"
                );
            }
        }
    }
    assert_eq!(stdout.matches(" built ").count(), 6, "{stdout}");
    // The catalog lists the six, oldest first, and a checksum file per minor lists its two.
    let catalog: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("catalog.json")).expect("catalog.json"))
            .expect("catalog.json is JSON");
    let isos = catalog["isos"].as_array().expect("isos");
    let listed: Vec<(&str, &str)> = isos
        .iter()
        .map(|i| {
            (
                i["kubernetes_version"].as_str().expect("version"),
                i["arch"].as_str().expect("arch"),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("1.31.13", "aarch64"),
            ("1.31.13", "x86_64"),
            ("1.32.9", "aarch64"),
            ("1.32.9", "x86_64"),
            ("1.33.13", "aarch64"),
            ("1.33.13", "x86_64"),
        ]
    );
    for (minor, version, _, _) in MINORS {
        let sums = std::fs::read_to_string(out.join(format!("SHA256SUMS-{minor}")))
            .unwrap_or_else(|e| panic!("SHA256SUMS-{minor}: {e}"));
        assert_eq!(sums.lines().count(), 2, "{sums}");
        assert!(
            sums.contains(&format!("  cks-{version}-x86_64.iso")),
            "{sums}"
        );
    }

    // The same release again: every ISO is there, nothing is built, and the run says so.
    upstream.file_server().reset_counts();
    let second = release(&upstream, &out, &flags);
    let stdout = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert_eq!(stdout.matches(" skipped ").count(), 6, "{stdout}");
    assert!(!stdout.contains(" built "), "{stdout}");
    assert!(
        stdout.contains("nothing to build: every ISO is already in"),
        "{stdout}"
    );
    // Nothing large was asked for: only the release markers.
    for (path, count) in upstream.file_server().requested_paths() {
        assert!(
            path.starts_with("/dl.k8s.io/release/stable"),
            "{path} was requested {count} times by a run that built nothing"
        );
    }
}

#[test]
fn a_list_of_minors_builds_just_those() {
    let upstream = DemoUpstream::start(&DemoConfig::default().with_older_minors())
        .expect("demo upstream with older minors");
    let out = tempfile::tempdir().expect("out dir");
    let run = release(
        &upstream,
        out.path(),
        &["--minors", "1.31,1.33", "--arch", "aarch64"],
    );
    let stdout = text(&run.stdout);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let mut isos: Vec<String> = std::fs::read_dir(out.path())
        .expect("out")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".iso"))
        .collect();
    isos.sort();
    assert_eq!(isos, ["cks-1.31.13-aarch64.iso", "cks-1.33.13-aarch64.iso"]);
    assert!(!stdout.contains("1.32"), "{stdout}");
    assert_eq!(
        upstream
            .file_server()
            .requests("/dl.k8s.io/release/stable.txt"),
        0,
        "a list of minors needs no stable.txt"
    );
}
