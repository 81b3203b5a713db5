//! `cks-iso build --tmp-dir DIR`: the build's temporary files and folders go to DIR, not
//! `TMPDIR`, and DIR is left as it was found; and a crictl of another minor than Kubernetes'
//! is warned about. The same for `cks-iso release --tmp-dir`, the catalog's check of an ISO it
//! did not build included.

use std::path::Path;
use std::process::Command;

use cks_fixtures::demo::run::{build_args, release_args};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

/// The names in `dir`.
fn names(dir: &Path) -> Vec<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect()
}

/// Sets `dir`'s mtime an hour back, so any entry made or removed there moves it visibly.
fn backdate(dir: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::open(dir)
        .and_then(|f| f.set_modified(past))
        .expect("backdate the folder");
}

fn modified(dir: &Path) -> std::time::SystemTime {
    std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .expect("mtime")
}

#[test]
fn a_build_with_tmp_dir_leaves_tmpdir_untouched_and_cleans_its_own() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let (tmpdir, own, out) = (
        work.path().join("tmpdir"),
        work.path().join("own"),
        work.path().join("out"),
    );
    for dir in [&tmpdir, &own] {
        std::fs::create_dir(dir).expect("mkdir");
    }
    // Directory mtimes move when an entry is made or removed: from an hour back, visibly.
    for dir in [&tmpdir, &own] {
        backdate(dir);
    }
    let (tmpdir_before, own_before) = (modified(&tmpdir), modified(&own));
    let output = Command::new(CKS_ISO)
        .args(build_args(&upstream, &out, Arch::Amd64))
        .arg("--tmp-dir")
        .arg(&own)
        .env("TMPDIR", &tmpdir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.join("cks-demo-1.33.13-x86_64.iso").is_file());
    assert!(names(&tmpdir).is_empty(), "{:?}", names(&tmpdir));
    assert_eq!(modified(&tmpdir), tmpdir_before, "TMPDIR was written");
    assert!(names(&own).is_empty(), "left behind: {:?}", names(&own));
    assert_ne!(modified(&own), own_before, "--tmp-dir was not used");
}

#[test]
fn a_release_with_tmp_dir_leaves_tmpdir_untouched_and_cleans_its_own() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let (tmpdir, own, out) = (
        work.path().join("tmpdir"),
        work.path().join("own"),
        work.path().join("out"),
    );
    for dir in [&tmpdir, &own] {
        std::fs::create_dir(dir).expect("mkdir");
    }
    for dir in [&tmpdir, &own] {
        backdate(dir);
    }
    let tmpdir_before = modified(&tmpdir);
    let release = || {
        let output = Command::new(CKS_ISO)
            .args(release_args(&upstream, &out, &[]))
            .args(["--minors", "1", "--arch", "x86_64", "--tmp-dir"])
            .arg(&own)
            .env("TMPDIR", &tmpdir)
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .output()
            .expect("cks-iso runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    release();
    // An ISO this run did not build: the catalog verifies it, in --tmp-dir.
    std::fs::copy(
        out.join("cks-1.33.13-x86_64.iso"),
        out.join("other-1.33.13-x86_64.iso"),
    )
    .expect("copy");
    release();
    assert!(names(&tmpdir).is_empty(), "{:?}", names(&tmpdir));
    assert_eq!(modified(&tmpdir), tmpdir_before, "TMPDIR was written");
    assert!(names(&own).is_empty(), "left behind: {:?}", names(&own));
}

#[test]
fn a_crictl_of_another_minor_is_warned_about() {
    let upstream = DemoUpstream::start(&DemoConfig::default().with_older_minors())
        .expect("demo upstream with older minors");
    let out = tempfile::tempdir().expect("out dir");
    let run = |crictl: &str| {
        let mut args = build_args(&upstream, out.path(), Arch::Amd64);
        let at = args
            .iter()
            .position(|a| a == "--crictl-version")
            .expect("the demo names crictl");
        args[at + 1] = crictl.to_string();
        let output = Command::new(CKS_ISO)
            .args(args)
            .arg("--dry-run")
            .output()
            .expect("cks-iso runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        stderr
    };
    let other = run("1.32.0");
    assert!(
        other.contains(
            "cks-iso: warning: crictl 1.32.0 is of minor 1.32, not of Kubernetes 1.33.13's 1.33"
        ),
        "{other}"
    );
    let same = run("1.33.0");
    assert!(!same.contains("crictl 1.33.0 is of minor"), "{same}");
}
