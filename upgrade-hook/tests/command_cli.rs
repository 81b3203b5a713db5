//! `cks-upgrade-hook command`: prints the autoscale-kube-cluster command alone.

use std::process::Command;

const ID: &str = "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b";

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(args)
        .output()
        .expect("cks-upgrade-hook runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn prints_the_enable_command_as_cks_runs_it() {
    let (code, stdout, _) = cli(&["command", "--cluster-id", ID, "--min", "1", "--max", "3"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        stdout,
        format!("sudo /opt/bin/autoscale-kube-cluster -i {ID} -e -M 3 -m 1\n")
    );
}

#[test]
fn prints_the_disable_command_and_honours_the_layout() {
    let (code, stdout, _) = cli(&["command", "--disable"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout, "sudo /opt/bin/autoscale-kube-cluster -d\n");
    let (_, stdout, _) = cli(&[
        "command",
        "--disable",
        "--no-sudo",
        "--script-dir",
        "/srv/cks bin/",
    ]);
    assert_eq!(stdout, "'/srv/cks bin/autoscale-kube-cluster' -d\n");
}

#[test]
fn refuses_bad_ids_and_bounds_with_exit_2() {
    for (args, says) in [
        (
            vec!["--cluster-id", "1; reboot", "--min", "1", "--max", "3"],
            "not a UUID",
        ),
        (
            vec!["--cluster-id", ID, "--min", "0", "--max", "3"],
            "must be at least 1",
        ),
        (
            vec!["--cluster-id", ID, "--min", "4", "--max", "3"],
            "above the maximum",
        ),
    ] {
        let mut full = vec!["command"];
        full.extend(args);
        let (code, stdout, stderr) = cli(&full);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(says), "{stderr}");
        // One error form for the three binaries: `PROGRAM: error: ...`.
        assert!(stderr.starts_with("cks-upgrade-hook: error: "), "{stderr}");
    }
}

#[test]
fn redeploy_needs_a_host_key_policy_and_one_only() {
    let base = [
        "redeploy-autoscaler",
        "--cluster-id",
        ID,
        "--min",
        "1",
        "--max",
        "3",
        "--host",
        "127.0.0.1",
        "--user",
        "cloud",
        "--key",
        "/dev/null",
    ];
    let (code, _, stderr) = cli(&base);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--known-hosts"), "{stderr}");
    let mut both = base.to_vec();
    both.extend(["--insecure-host-key", "--known-hosts", "/dev/null"]);
    let (code, _, stderr) = cli(&both);
    assert_eq!(code, Some(2), "{stderr}");
    let mut direct_and_port = base.to_vec();
    direct_and_port.extend(["--insecure-host-key", "--direct", "--port", "2200"]);
    let (code, _, stderr) = cli(&direct_and_port);
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn a_closed_stdout_ends_it_quietly_with_status_0() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(["command", "--disable"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("cks-upgrade-hook runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr, "", "no panic, no message");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

#[test]
fn the_flags_share_the_other_binaries_names_and_the_old_ones_still_work() {
    // `--disabled` as redeploy's override names it; `--disable` as this command named it.
    for flag in ["--disabled", "--disable"] {
        let (code, stdout, stderr) = cli(&["command", flag]);
        assert_eq!(code, Some(0), "{flag}: {stderr}");
        assert_eq!(stdout, "sudo /opt/bin/autoscale-kube-cluster -d\n");
    }
    // `--ssh-user` as cks-rollout and cks-fleet name it, shown in the help; `--user` still read.
    for command in ["redeploy", "preload"] {
        let (_, help, _) = cli(&[command, "--help"]);
        assert!(help.contains("--ssh-user <U>"), "{command} --help: {help}");
    }
    let (code, _, stderr) = cli(&["redeploy", "--cluster-id", "not-a-uuid", "--user", "cloud"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("unexpected argument"), "{stderr}");
}
