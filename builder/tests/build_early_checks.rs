//! What a build checks before its plan: an OUTPUT_PATH or a `--cache-dir` that is (under) a
//! file, and a `--write-lock` path whose folder does not exist, fail with one line naming the path before any request
//! reaches the upstream, and leave nothing in OUTPUT_PATH (which the build does not keep).

use std::process::{Command, Output};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

fn build(args: &[String], extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .args(extra)
        .env("CI", "true")
        .output()
        .expect("cks-iso runs")
}

fn no_request_reached(upstream: &DemoUpstream) {
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "no file fetched"
    );
    assert_eq!(upstream.registry().log().total(), 0, "no image pulled");
    assert_eq!(upstream.git().log().total(), 0, "no tag listed");
}

#[test]
fn an_output_path_that_is_a_file_fails_before_any_download() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("out");
    std::fs::write(&file, "a file\n").expect("writes");
    let output = build(&build_args(&upstream, &file, Arch::Amd64), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("is not a directory"), "{stderr}");
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    no_request_reached(&upstream);
    assert_eq!(std::fs::read_to_string(&file).expect("kept"), "a file\n");
}

#[test]
fn an_unwritable_lock_path_fails_first_and_leaves_nothing_in_output_path() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("out");
    let lock = dir.path().join("no/such/dir/cks.lock");
    let lock_text = lock.display().to_string();
    let output = build(
        &build_args(&upstream, &out, Arch::Amd64),
        &["--write-lock", &lock_text],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&lock_text), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    no_request_reached(&upstream);
    assert!(
        !out.exists(),
        "OUTPUT_PATH was left: {:?}",
        std::fs::read_dir(&out).map(|d| d.count())
    );
    assert!(!lock.exists());
}

#[test]
fn a_cache_dir_that_is_a_file_fails_before_any_download() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("out");
    let file = dir.path().join("cache");
    std::fs::write(&file, "a file\n").expect("writes");
    let cache = file.join("below").display().to_string();
    let output = build(
        &build_args(&upstream, &out, Arch::Amd64),
        &["--cache-dir", &cache],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("--cache-dir {cache}: {}", file.display())),
        "{stderr}"
    );
    assert!(stderr.contains("is not a directory"), "{stderr}");
    no_request_reached(&upstream);
    assert!(!out.exists(), "OUTPUT_PATH was left");
}
