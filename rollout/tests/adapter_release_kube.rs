//! `release()` does every step it can when the Kubernetes API refuses one: with the API server
//! refusing every uncordon of the restarted worker (a fault in the Kubernetes fake that the real
//! kubectl sees too), the rollout stops at that batch, and release still recounts capacity,
//! moves the healthy cluster out of `Updating` to Running and keeps the rollout's first error in
//! `lasterror`; a later `cks-rollout scan` leaves that error as it is, and even one that finds
//! the cluster stranded in `Updating` keeps it first.

use std::time::Duration;

use crate::adapter_support::{Cluster, WORKERS, cluster, text};
use crate::kube_support::{kubectl, kubectl_ok};
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::engine::{
    EngineConfig, NoProgress, RolloutReport, UpdateOutcome, UpdateRequest, update,
};
use cks_rollout::model::{ClusterState, Lease, ROLLOUT_ANNOTATION};
use serde_json::Value;

const REFUSAL: &str = "etcdserver: request timed out";

fn roll_workers(c: &mut Cluster) -> RolloutReport {
    let request = UpdateRequest {
        node_offerings: [("worker".to_string(), c.big.clone())].into(),
        rollout: true,
        max_unavailable: Some(1),
        ..Default::default()
    };
    let config = EngineConfig {
        owner: "release".into(),
        batch_timeout: Duration::from_secs(60),
        drain_timeout: Duration::from_secs(20),
        poll_interval: Duration::from_millis(20),
        lease_timeout: Duration::from_secs(60),
        ..EngineConfig::default()
    };
    let mut clock = SystemClock;
    let id = c.cluster_id.clone();
    let mut ports = c.ports(&mut clock);
    match update(&mut ports, &id, &request, &config, &mut NoProgress).expect("the update call runs")
    {
        UpdateOutcome::RolledOut(report) => *report,
        other => panic!("expected a rollout, got {other:?}"),
    }
}

#[test]
fn an_uncordon_refused_during_release_still_ends_updating_with_the_first_error_kept() {
    let mut c = cluster();
    for worker in WORKERS {
        c.kube.fail_uncordon(worker, 1000, REFUSAL);
    }
    let report = roll_workers(&mut c);
    let trace: Vec<String> = report
        .events
        .iter()
        .map(|e| format!("{:?} {:?} {}", e.step, e.node, e.detail))
        .collect();
    let first = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .expect("the batch stopped on the refused uncordon");
    let restarted = report.run.done.clone();
    assert!(restarted.is_empty(), "{restarted:?}\n{trace:#?}");
    let node = WORKERS
        .iter()
        .find(|w| c.cloud.vm_named(w).expect("vm").service_offering_id == c.big)
        .expect("one worker restarted onto the new offering")
        .to_string();
    assert!(
        first.contains(&node) && first.contains("uncordon") && first.contains(REFUSAL),
        "{first}\n{trace:#?}"
    );

    // Release tried the uncordon again (refused again), and did every other step all the same.
    let release = report.release.clone().expect("release ran");
    assert_eq!(release.state, ClusterState::Running, "{release:?}");
    assert_eq!(release.left_cordoned, vec![node.clone()], "{release:?}");
    assert_eq!(
        (release.cores, release.memory_mb),
        (18 + 2, 9 * 4096 + 4096),
        "capacity recounted with the restarted worker's new offering"
    );
    let recorded = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(recorded.state, ClusterState::Running);
    assert_eq!((recorded.cores, recorded.memory_mb), (20, 9 * 4096 + 4096));
    let last_error = recorded.last_error.clone().expect("lasterror recorded");
    assert!(
        last_error.starts_with(&first),
        "the rollout's own error comes first: {last_error}"
    );
    assert!(
        last_error[first.len()..].contains(&format!("uncordon {node}")),
        "release's own failure follows: {last_error}"
    );

    // kubectl sees what the engine saw: the node cordoned, annotated for the next run, and its
    // uncordon refused with the same error.
    let cache = tempfile::tempdir().expect("kubectl cache");
    let json: Value = serde_json::from_str(&kubectl_ok(&kubectl(
        &c.kubeconfig,
        cache.path(),
        &["get", "node", &node, "-o", "json"],
    )))
    .expect("node JSON");
    assert_eq!(json["spec"]["unschedulable"], true, "{json}");
    assert!(
        json["metadata"]["annotations"]
            .get(ROLLOUT_ANNOTATION)
            .is_some(),
        "{json}"
    );
    // (kubectl 1.32 reports a refused uncordon on stderr but exits 0: read the node again.)
    let refused = kubectl(&c.kubeconfig, cache.path(), &["uncordon", &node]);
    assert!(
        text(&refused).contains(&format!("unable to uncordon node \"{node}\"")),
        "{}",
        text(&refused)
    );
    assert!(text(&refused).contains(REFUSAL), "{}", text(&refused));
    let still = kubectl_ok(&kubectl(
        &c.kubeconfig,
        cache.path(),
        &["get", "node", &node, "-o", "jsonpath={.spec.unschedulable}"],
    ));
    assert_eq!(still, "true");

    // The scanner finds nothing to do and keeps the specific error.
    let scan = c.cli("scan").output().expect("scan runs");
    assert!(scan.status.success(), "{}", text(&scan));
    assert!(
        text(&scan).contains("not Updating: nothing to do"),
        "{}",
        text(&scan)
    );
    let after = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(after.state, ClusterState::Running);
    assert_eq!(after.last_error.as_deref(), Some(last_error.as_str()));

    // Had release's state change been lost (the process dying after recording the error), the
    // scanner moving the cluster to Alert still keeps the specific error first.
    let mut stranded = after.clone();
    stranded.state = ClusterState::Updating;
    stranded.lease = Some(Lease {
        owner: "dead-owner".into(),
        heartbeat_ms: 0,
    });
    c.store.put(&stranded).expect("record");
    let scan = c
        .cli("scan")
        .args(["--lease-timeout", "0s"])
        .output()
        .expect("scan runs");
    assert!(scan.status.success(), "{}", text(&scan));
    let alerted = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(alerted.state, ClusterState::Alert, "{}", text(&scan));
    let kept = alerted.last_error.unwrap_or_default();
    assert!(
        kept.starts_with(&last_error) && kept.contains("dead-owner"),
        "{kept}"
    );
}
