//! A closed stdout (`cks-iso verify ISO | true`, `cks-iso catalog DIR | head`) ends `cks-iso`
//! quietly with status 0: no panic, no message.

use std::ffi::OsStr;
use std::process::{Command, Output};

use crate::inspect_support::Tree;

/// Runs `cks-iso args --quiet` with stdout a pipe whose read end is already closed (`--quiet`:
/// without it, stderr carries the progress line a command prints as it starts).
fn with_stdout_closed(args: &[&OsStr]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .arg("--quiet")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run cks-iso")
}

fn assert_quiet_exit(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "", "no message on a closed stdout");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn verify_json_into_a_closed_stdout_exits_0_quietly() {
    let tree = Tree::valid();
    let iso = tree.pack("a");
    assert_quiet_exit(&with_stdout_closed(&[
        OsStr::new("verify"),
        OsStr::new("--json"),
        iso.as_os_str(),
    ]));
}

#[test]
fn diff_into_a_closed_stdout_exits_0_quietly() {
    let a = Tree::valid();
    let mut b = Tree::valid();
    b.versions.kubernetes = "1.33.14".into();
    b.render();
    let (iso_a, iso_b) = (a.pack("a"), b.pack("b"));
    assert_quiet_exit(&with_stdout_closed(&[
        OsStr::new("diff"),
        iso_a.as_os_str(),
        iso_b.as_os_str(),
    ]));
}

#[test]
fn catalog_into_a_closed_stdout_exits_0_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::catalog_signing::small_iso(dir.path(), "1.33.13");
    assert_quiet_exit(&with_stdout_closed(&[
        OsStr::new("catalog"),
        dir.path().as_os_str(),
    ]));
}
