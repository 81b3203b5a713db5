//! `cks-iso pull` as CI jobs and the tests drive it: flags, output lines, tarball names and
//! byte-identical tarballs.

use crate::pull_common;

use std::process::Command;

use crate::pull_common::{ORIGIN, pushed};
use cks_fixtures::registry::Auth;

fn cks_iso() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
}

#[test]
fn prints_each_reference_with_its_digest_and_writes_identical_tarballs_twice() {
    let set = pushed(Auth::None, &["multi", "shared-a"]);
    let mirror = format!("{ORIGIN}=http://{}", set.registry.host());
    let run = |out: &std::path::Path| {
        let output = cks_iso()
            .args(["pull", "--arch", "arm64", "--registry-mirror", &mirror])
            .args([
                "--insecure-registry",
                &set.registry.host(),
                "--concurrency",
                "2",
                "--out",
            ])
            .arg(out)
            .arg(set.reference("multi"))
            .arg(format!("{ORIGIN}/other/multi:1.0"))
            .output()
            .expect("run cks-iso");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // `other/multi` does not exist: the whole pull fails and leaves no tarball.
    let failed = set.out("failed");
    let (code, _, stderr) = run(&failed);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("other/multi:1.0") && stderr.contains("not found"),
        "{stderr}"
    );
    assert!(pull_common::files_in(&failed).is_empty());

    set.registry
        .push(set.images.layout.path(), "multi", "other/multi", "1.0")
        .expect("push the second repository");
    let (a, b) = (set.out("a"), set.out("b"));
    let (code, stdout, stderr) = run(&a);
    assert_eq!(code, Some(0), "{stderr}");
    let digest = &set.images.multi.digest;
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            format!("{}@{digest}", set.reference("multi")),
            format!("{ORIGIN}/other/multi:1.0@{digest}")
        ]
    );
    assert_eq!(run(&b).0, Some(0));
    // Two images share the short name `multi:1.0.tar`, so both get the long form.
    let names = [
        "registry.example.com+test+multi:1.0.tar",
        "registry.example.com+other+multi:1.0.tar",
    ];
    for name in names {
        let first = std::fs::read(a.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            first,
            std::fs::read(b.join(name)).expect("second run"),
            "{name} differs between runs"
        );
    }
}

#[test]
fn bad_flags_are_one_line_errors_naming_the_input() {
    let out = tempfile::tempdir().expect("tempdir");
    let output = cks_iso()
        .args(["pull", "--arch", "s390x", "--out"])
        .arg(out.path())
        .arg("registry.k8s.io/pause:3.10")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("s390x"));
    let output = cks_iso()
        .args([
            "pull",
            "--registry-mirror",
            "registry.k8s.io=http://127.0.0.1:9",
            "--out",
        ])
        .arg(out.path())
        .arg("registry.k8s.io/pause:3.10")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--insecure-registry 127.0.0.1:9"),
        "{stderr}"
    );
    let output = cks_iso()
        .args(["pull", "--out"])
        .arg(out.path())
        .arg("Not A Ref")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Not A Ref"));
}
