//! `cks-rollout plan` and `run`, with discovery, against the CloudStack fake playing each line
//! the product claims (4.20.0, 4.20.x, 4.22, 4.23) from CloudStack's own definitions, with its
//! `default.page.size` lowered to 2 so every list is read page by page: both succeed, and no
//! call the binaries made (nor any field the fake answered) fell outside the line.

use cks_fixtures::cloudstack_api::Line;

use crate::discovery_support::{CONTROL, WORKERS, cluster, text};

fn plan_and_run_on(line: Line) {
    let c = cluster();
    c.cloud.play(line);
    if c.cloud.definitions().is_none() {
        cks_fixtures::skip::skip(&format!(
            "../shared/upstream/cloudstack-api not found: CloudStack {line} cannot be played"
        ));
        return;
    }
    c.cloud.set_max_page_size(2);
    let offerings = [
        "--offering".to_string(),
        format!("control={}", c.big),
        "--offering".to_string(),
        format!("worker={}", c.big),
    ];
    let plan = c.rollout("plan").args(&offerings).output().expect("runs");
    assert!(plan.status.success(), "{line}: {}", text(&plan));
    let run = c
        .rollout("run")
        .args(&offerings)
        .args(["--poll-interval", "50ms", "--drain-timeout", "30s"])
        .output()
        .expect("runs");
    let shown = text(&run);
    assert!(run.status.success(), "{line}: {shown}");
    assert!(
        shown.contains(&format!(
            "restarted {} node(s)",
            CONTROL.len() + WORKERS.len()
        )),
        "{line}: {shown}"
    );
    let calls = c.cloud.calls();
    assert!(
        calls.iter().any(|call| call.contains("page=2")),
        "{line}: the lists were read page by page: {calls:#?}"
    );
    assert_eq!(
        c.cloud.conformance_violations(),
        Vec::<String>::new(),
        "{line}"
    );
}

#[test]
fn plan_and_run_hold_to_cloudstack_4_20_0() {
    plan_and_run_on(Line::V4_20_0);
}

#[test]
fn plan_and_run_hold_to_cloudstack_4_20() {
    plan_and_run_on(Line::V4_20);
}

#[test]
fn plan_and_run_hold_to_cloudstack_4_22() {
    plan_and_run_on(Line::V4_22);
}

#[test]
fn plan_and_run_hold_to_cloudstack_4_23() {
    plan_and_run_on(Line::V4_23);
}
