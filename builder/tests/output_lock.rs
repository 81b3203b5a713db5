//! One writer per OUTPUT_PATH: while a `cks-iso build` or `cks-iso release` holds the folder's
//! lock (`OUTPUT_PATH/.cks-iso.lock`, `flock`ed, naming its pid), another one there fails at
//! once with one line naming the lock file and the pid, asks the upstream nothing, and writes
//! nothing; with the lock let go the same build succeeds and leaves no lock file.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::demo::run::{build_args, release_args};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;
use rustix::fs::FlockOperation;

const LOCK: &str = ".cks-iso.lock";

/// Holds `dir`'s lock as another cks-iso would: the file locked, naming `pid`.
fn hold_lock(dir: &Path, pid: u32) -> File {
    let mut file = File::create(dir.join(LOCK)).expect("lock file");
    rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).expect("locked");
    writeln!(file, "{pid}").expect("pid written");
    file
}

fn cks_iso(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .env("CI", "true")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs")
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The one-line refusal naming the lock file and `pid`; the upstream was asked nothing.
fn assert_refused(output: &Output, dir: &Path, pid: u32, upstream: &DemoUpstream) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let lock = dir.join(LOCK).display().to_string();
    assert!(errors[0].contains(&lock), "{stderr}");
    assert!(errors[0].contains(&format!("pid {pid}")), "{stderr}");
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "no file fetched"
    );
    assert_eq!(upstream.registry().log().total(), 0, "no image pulled");
    assert_eq!(entries(dir), vec![LOCK.to_string()], "nothing written");
}

#[test]
fn a_build_into_a_locked_output_path_fails_at_once_naming_the_lock_and_its_pid() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let args = build_args(&upstream, out.path(), Arch::Amd64);
    let held = hold_lock(out.path(), 4242);
    assert_refused(&cks_iso(&args), out.path(), 4242, &upstream);
    assert!(
        out.path().join(LOCK).exists(),
        "another's lock file is kept"
    );
    drop(held);
    let output = cks_iso(&args);
    assert!(output.status.success(), "{output:?}");
    let left = entries(out.path());
    assert!(!left.iter().any(|name| name == LOCK), "{left:?}");
    assert!(left.iter().any(|name| name.ends_with(".iso")), "{left:?}");
}

#[test]
fn a_release_into_a_locked_output_path_fails_at_once_naming_the_lock_and_its_pid() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = release_args(&upstream, out.path(), &[]);
    args.extend(["--minors".to_string(), "1".to_string()]);
    let _held = hold_lock(out.path(), 4343);
    assert_refused(&cks_iso(&args), out.path(), 4343, &upstream);
}
