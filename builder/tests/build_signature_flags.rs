//! `--signatures` and `--trusted-root` on the command line: a bad trusted root is a one-line
//! error naming the file before anything is fetched, an unknown mode is a usage error, and
//! `--help` documents both.

use std::process::Command;

fn cks_iso() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .env("CI", "true");
    command
}

const ARGS: [&str; 7] = [
    "1.33.13",
    "1.6.2",
    "1.33.0",
    "network.yaml",
    "dashboard.yaml",
    "cks-1.33.13",
    "x86_64",
];

#[test]
fn a_bad_trusted_root_is_named_and_an_unknown_mode_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("not-a-root.json");
    std::fs::write(&bad, "[]").expect("writes");
    let output = cks_iso()
        .arg("build")
        .arg(dir.path().join("out"))
        .args(ARGS)
        .arg("--trusted-root")
        .arg(&bad)
        .output()
        .expect("cks-iso runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
    assert!(stderr.contains("trusted_root.json"), "{stderr}");
    assert!(!dir.path().join("out").exists(), "nothing was written");

    let output = cks_iso()
        .arg("build")
        .arg(dir.path().join("out"))
        .args(ARGS)
        .args(["--signatures", "sometimes"])
        .output()
        .expect("cks-iso runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("require"));

    let help = cks_iso()
        .args(["build", "--help"])
        .output()
        .expect("cks-iso runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--signatures <MODE>"), "{help}");
    assert!(help.contains("--trusted-root <FILE>"), "{help}");
}
