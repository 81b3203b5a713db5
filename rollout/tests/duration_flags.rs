//! The duration flags of the live commands take units (`30s`, `5m`, `500ms`); a bare number
//! keeps its old unit (milliseconds for `--poll-interval`, seconds for the timeouts) with a
//! warning naming the form to write; and a failure is one `cks-rollout: error:` line.

use crate::adapter_support::cluster;
use crate::cli_live::{live, text};

/// `run` on the fake cluster with `args`: its stderr, after checking it was refused before
/// CloudStack was asked anything.
fn refused(args: &[&str]) -> String {
    let c = cluster();
    let before = c.cloud.calls().len();
    let out = live(&c, "run")
        .args(["--offering", &format!("worker={}", c.big)])
        .args(args)
        .output()
        .expect("runs");
    // A bad control value is bad input: 2, as the exit-status table says.
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(c.cloud.calls().len(), before, "CloudStack was not called");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn durations_with_units_are_read_and_a_failure_is_one_error_line() {
    // 20 s between polls needs a lease of at least 40 s.
    let stderr = refused(&["--poll-interval", "20s", "--lease-timeout", "30s"]);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("cks-rollout: error: "), "{stderr}");
    assert!(
        stderr.contains("--lease-timeout to at least 40 s"),
        "{stderr}"
    );
    let stderr = refused(&[
        "--poll-interval",
        "500ms",
        "--lease-timeout",
        "1m",
        "--batch-timeout",
        "0m",
    ]);
    assert!(stderr.contains("--batch-timeout is 0"), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_bare_number_keeps_its_old_unit_with_a_warning() {
    // 20000 ms between polls: the same refusal as 20s, and a warning for each bare number.
    let stderr = refused(&["--poll-interval", "20000", "--lease-timeout", "30"]);
    assert!(
        stderr.contains("--lease-timeout to at least 40 s"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "cks-rollout: warning: --poll-interval 20000: a number without a unit is read as 20000ms; write 20000ms"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "cks-rollout: warning: --lease-timeout 30: a number without a unit is read as 30s"
        ),
        "{stderr}"
    );
    let errors = stderr
        .lines()
        .filter(|l| l.starts_with("cks-rollout: error: "))
        .count();
    assert_eq!(errors, 1, "{stderr}");
}
