//! CloudStack does not know the rollout's `Updating`: the real `cks-rollout run` re-reads the
//! CKS cluster from `listKubernetesClusters` before every batch. Against the CloudStack fake
//! (its cluster state and VM list checked by `cs` in adapter_cloudstack_cs), a cluster that
//! CloudStack starts scaling during the first batch stops the rollout before the next one with
//! no node left down; a worker added during the first batch is planned again and rolled too.

use std::process::{Child, Output, Stdio};
use std::time::Duration;

use crate::adapter_support::{Cluster, WORKERS, cluster, text};
use cks_rollout::model::ClusterState;

/// `cks-rollout run` moving every worker to `big`, one at a time, started in the background.
fn start_run(c: &Cluster) -> Child {
    // A booted kubelet takes a while to report Ready: batch 1 is still verifying when the test
    // acts on its first VM start.
    c.kube.lock().boot_delay = Duration::from_millis(300);
    c.cli("run")
        .args([
            "--offering",
            &format!("worker={}", c.big),
            "--maxunavailable",
            "1",
        ])
        .args(["--drain-timeout", "30s", "--poll-interval", "20ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run starts")
}

fn calls_starting(c: &Cluster, command: &str) -> usize {
    c.cloud
        .calls()
        .iter()
        .filter(|call| call.starts_with(command))
        .count()
}

/// Waits until the run has started its first VM again (inside batch 1), then calls `act`;
/// returns the run's output.
fn during_first_batch(c: &Cluster, mut run: Child, act: impl FnOnce()) -> Output {
    // Done waiting when a VM is started, or when the run ended without starting one.
    let waited = cks_fixtures::process::wait_until(
        "the run's first VM start",
        Duration::from_secs(60),
        || calls_starting(c, "startvirtualmachine") > 0 || run.try_wait().ok().flatten().is_some(),
    );
    if waited.is_err() || calls_starting(c, "startvirtualmachine") == 0 {
        let out = run.wait_with_output().expect("run ends");
        panic!("the run never started a VM: {}", text(&out));
    }
    act();
    run.wait_with_output().expect("run ends")
}

#[test]
fn cloudstack_scaling_the_cluster_stops_the_rollout_between_batches_with_nothing_down() {
    let c = cluster();
    let run = start_run(&c);
    let out = during_first_batch(&c, run, || {
        c.cloud.set_cluster_state(&c.cluster_id, "Scaling")
    });
    let shown = text(&out);
    assert_eq!(
        out.status.code(),
        Some(3),
        "the rollout stopped on an error: {shown}"
    );
    assert!(
        shown.contains(&format!(
            "CloudStack reports cluster {} Scaling",
            c.cluster_id
        )) && shown.contains("no node left down"),
        "{shown}"
    );
    assert_eq!(
        calls_starting(&c, "stopvirtualmachine"),
        1,
        "only the first batch's worker restarted: {shown}"
    );
    let moved: Vec<&str> = WORKERS
        .iter()
        .copied()
        .filter(|w| c.cloud.vm_named(w).expect("vm").service_offering_id == c.big)
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    for worker in WORKERS {
        assert_eq!(c.cloud.vm_named(worker).expect("vm").state, "Running");
        let node = c.kube.node(worker).expect("node");
        assert!(
            node["spec"].get("unschedulable").is_none() && c.kube.is_ready(worker),
            "{worker} is in service: {node}"
        );
    }
    let record = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running, "{shown}");
    assert!(
        record
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("Scaling")),
        "{:?}",
        record.last_error
    );

    // Once CloudStack is done, the next run finishes the other workers.
    c.cloud.set_cluster_state(&c.cluster_id, "Running");
    let again = start_run(&c).wait_with_output().expect("run ends");
    assert!(again.status.success(), "{}", text(&again));
    for worker in WORKERS {
        assert_eq!(
            c.cloud.vm_named(worker).expect("vm").service_offering_id,
            c.big
        );
    }
}

#[test]
fn a_worker_added_during_the_rollout_is_planned_again_and_rolled() {
    let c = cluster();
    let run = start_run(&c);
    let added = "k1-node-7";
    let out = during_first_batch(&c, run, || {
        c.kube.add_node(added, 2, 4096);
        let custom = c.cloud.add_disk_offering("custom-7", 0);
        let vm = c.cloud.add_vm(added, &c.small, 20, &custom, &[]);
        c.cloud.add_vm_to_cluster(&c.cluster_id, &vm);
    });
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains(" replan:"), "{shown}");
    for worker in WORKERS.iter().copied().chain([added]) {
        assert_eq!(
            c.cloud.vm_named(worker).expect("vm").service_offering_id,
            c.big,
            "{worker}: {shown}"
        );
    }
    assert_eq!(calls_starting(&c, "stopvirtualmachine"), 7, "{shown}");
    let record = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running, "{shown}");
}
