//! The duration flags of `cks-upgrade-hook` take units (`30s`, `5m`); a bare number keeps its old
//! unit, seconds, with a warning; anything else is bad input naming the flag.

use std::process::Command;

use crate::common::*;

/// `cks-upgrade-hook` refusing `args`: its exit status and standard error.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(args)
        .env("CLOUDSTACK_ENDPOINT", "http://127.0.0.1:9/client/api")
        .output()
        .expect("cks-upgrade-hook runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

#[test]
fn a_duration_that_does_not_parse_exits_2_naming_the_flag() {
    let preload = [
        "preload",
        "--cluster-id",
        ID,
        "--iso",
        "x.iso",
        "--to",
        "1.33.1",
    ];
    let upgrade = ["upgrade", "--cluster-id", ID, "--to", "1.33.1"];
    let redeploy = ["redeploy", "--cluster-id", ID];
    for (command, flag) in [
        (&preload[..], "--connect-timeout"),
        (&preload[..], "--copy-timeout"),
        (&redeploy[..], "--timeout"),
        (&redeploy[..], "--rollout-timeout"),
        (&upgrade[..], "--connect-timeout"),
        (&upgrade[..], "--copy-timeout"),
    ] {
        let args = [command, &[flag, "5x"]].concat();
        let (code, stderr) = refused(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("not a duration"),
            "{args:?}: {stderr}"
        );
    }
    // Under a second is read but refused: the SSH timeouts count whole seconds.
    let (code, stderr) = refused(&[&redeploy[..], &["--connect-timeout", "500ms"]].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("at least 1 second"), "{stderr}");
}

#[test]
fn a_bare_number_is_seconds_with_a_warning_and_units_need_none() {
    let node = Node::start();
    let run = hook(&with(
        node.args(),
        &["--connect-timeout", "5", "--timeout", "20s"],
    ));
    assert_eq!(run.code, Some(0), "{}", run.all_output);
    assert_eq!(run.json["outcome"], "redeployed", "{}", run.all_output);
    assert!(
        run.all_output.contains(
            "cks-upgrade-hook: warning: --connect-timeout 5: a number without a unit is read as 5s; write 5s"
        ),
        "{}",
        run.all_output
    );
    assert!(
        !run.all_output.contains("--timeout 20"),
        "{}",
        run.all_output
    );
    // `20s` is the command timeout: the rollout wait is shortened to fit inside it.
    assert_eq!(
        node.calls()[1],
        "kubectl [-n] [kube-system] [rollout] [status] [deployment/cluster-autoscaler] [--timeout=18s]"
    );
}
