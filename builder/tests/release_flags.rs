//! `cks-iso release`'s own flags against the demo upstream: a help of its own, `--dry-run`
//! saying what a run would build, keep or rebuild and why (writing nothing), `--json`,
//! `--keep-going` past a failing minor, and a minor named twice built once.

use std::path::Path;
use std::process::Output;

use cks_fixtures::demo::run::release_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

/// `cks-iso release` with the demo's build flags, `SOURCE_DATE_EPOCH=epoch` and `extra`.
fn release(upstream: &DemoUpstream, out: &Path, epoch: &str, extra: &[&str]) -> Output {
    std::process::Command::new(CKS_ISO)
        .args(release_args(upstream, out, &[]))
        .args(extra)
        .env("SOURCE_DATE_EPOCH", epoch)
        .output()
        .expect("cks-iso runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The rows of a `--json` table.
fn json_rows(output: &Output) -> Vec<serde_json::Value> {
    let value: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&output.stdout)));
    value["rows"].as_array().expect("rows").clone()
}

#[test]
fn release_help_lists_only_the_flags_release_takes() {
    let help = std::process::Command::new(CKS_ISO)
        .args(["release", "--help"])
        .output()
        .expect("cks-iso runs");
    let help = text(&help.stdout);
    for flag in [
        "--minors",
        "--matrix",
        "--dry-run",
        "--json",
        "--keep-going",
        "--tmp-dir",
        "--sign-key",
        "--mirror",
    ] {
        assert!(help.contains(flag), "{flag} missing: {help}");
    }
    for refused in [
        "--kubernetes-version",
        "--locked",
        "--write-lock",
        "KUBERNETES_VERSION",
        "OUTPUT_PATH",
        "cks-iso build ./out",
    ] {
        assert!(!help.contains(refused), "{refused} listed: {help}");
    }
    assert!(help.contains("cks-iso release --minors"), "{help}");
}

#[test]
fn a_dry_run_says_what_a_run_would_build_keep_or_rebuild_and_writes_nothing() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let out = work.path().join("out");
    let flags = ["--minors", "1.33,1.33", "--arch", "x86_64", "--dry-run"];
    let dry = release(&upstream, &out, "1700000000", &flags);
    let stdout = text(&dry.stdout);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert!(!out.exists(), "a dry run made {}", out.display());
    // The minor named twice is one row.
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        stdout.starts_with("minor   version    arch     would"),
        "{stdout}"
    );
    let row = stdout.lines().nth(1).expect("a row");
    assert!(
        row.starts_with("1.33    1.33.13    x86_64   build")
            && row.contains("cks-1.33.13-x86_64.iso is not in the folder"),
        "{row}"
    );

    let built = release(
        &upstream,
        &out,
        "1700000000",
        &["--minors", "1", "--arch", "x86_64"],
    );
    assert!(built.status.success(), "{}", text(&built.stderr));
    let listing = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .expect("out")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing(&out);
    let iso = out.join("cks-1.33.13-x86_64.iso");
    let iso_bytes = std::fs::read(&iso).expect("the ISO");

    let kept = release(
        &upstream,
        &out,
        "1700000000",
        &[&flags[..], &["--json"]].concat(),
    );
    assert!(kept.status.success(), "{}", text(&kept.stderr));
    let rows = json_rows(&kept);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["result"], "would-keep", "{rows:?}");
    assert_eq!(rows[0]["version"], "1.33.13");

    // Other inputs (another build time): the same keep check a run makes says why not.
    let other = release(&upstream, &out, "1700000999", &flags);
    let stdout = text(&other.stdout);
    assert!(other.status.success(), "{}", text(&other.stderr));
    assert!(
        stdout.contains("rebuild       not what this run builds:"),
        "{stdout}"
    );

    // A sidecar that no longer agrees.
    let sidecar = out.join("cks-1.33.13-x86_64.iso.sha256");
    std::fs::write(
        &sidecar,
        format!("{}  cks-1.33.13-x86_64.iso\n", "0".repeat(64)),
    )
    .expect("tamper with the sidecar");
    let tampered = release(&upstream, &out, "1700000000", &flags);
    let stdout = text(&tampered.stdout);
    assert!(tampered.status.success(), "{}", text(&tampered.stderr));
    assert!(
        stdout.contains("rebuild       its sha256 differs from its sidecar"),
        "{stdout}"
    );
    // Nothing was written: the same files, the ISO untouched.
    assert_eq!(listing(&out), before);
    assert_eq!(std::fs::read(&iso).expect("the ISO"), iso_bytes);
}

#[test]
fn keep_going_builds_the_other_minors_and_fails_at_the_end_with_the_table() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let out = work.path().join("out");
    // The demo's release server has no stable-1.19.txt: that minor fails.
    let flags = ["--minors", "1.19,1.33", "--arch", "x86_64"];
    let stopped = release(&upstream, &out, "1700000000", &flags);
    assert_eq!(stopped.status.code(), Some(1));
    assert!(!out.join("cks-1.33.13-x86_64.iso").exists());

    let going = release(
        &upstream,
        &out,
        "1700000000",
        &[&flags[..], &["--keep-going"]].concat(),
    );
    let stdout = text(&going.stdout);
    let stderr = text(&going.stderr);
    assert_eq!(going.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("1 of 2 ISOs failed"), "{stderr}");
    let failed = stdout
        .lines()
        .find(|l| l.starts_with("1.19"))
        .unwrap_or_else(|| panic!("no 1.19 row: {stdout}"));
    assert!(
        failed.contains("failed") && failed.contains("stable-1.19.txt"),
        "{failed}"
    );
    let built = stdout
        .lines()
        .find(|l| l.starts_with("1.33"))
        .unwrap_or_else(|| panic!("no 1.33 row: {stdout}"));
    assert!(built.contains("built"), "{built}");
    assert!(out.join("cks-1.33.13-x86_64.iso").is_file());
    assert!(out.join("catalog.json").is_file());

    // The table as JSON, the failure in it.
    let json = release(
        &upstream,
        &out,
        "1700000000",
        &[&flags[..], &["--keep-going", "--json"]].concat(),
    );
    assert_eq!(json.status.code(), Some(1));
    let rows = json_rows(&json);
    let results: Vec<_> = rows.iter().map(|r| r["result"].as_str()).collect();
    assert_eq!(results, [Some("failed"), Some("skipped")], "{rows:?}");
}
