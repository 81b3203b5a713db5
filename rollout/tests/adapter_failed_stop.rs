//! A failed stop is judged by the VM's state read again, against the CloudStack fake whose job
//! faults `cs` sees too: a stop job that fails although the VM Stopped, and one that outlasts
//! the client's job timeout while the VM is Stopping, are taken as the node down: the change is
//! finished and the VM started, and the node is uncordoned only once it is back; when the change
//! then fails, the VM is started back unchanged and put into service only once up. A stop still
//! Stopping when the batch's time is up leaves the node cordoned, and the message says so.

use std::time::Duration;

use crate::adapter_support::{Cluster, WORKERS, cluster};
use cks_rollout::adapters::clock::SystemClock;
use cks_rollout::adapters::cloudstack::{
    CloudStackClient, CloudStackCloud, CloudStackConfig, Secret,
};
use cks_rollout::engine::{
    EngineConfig, NoProgress, RolloutReport, StepKind, UpdateOutcome, UpdateRequest, update,
};
use cks_rollout::model::ClusterState;

/// The cluster with a CloudStack client that gives up on a job after `job_timeout`.
fn cluster_with_job_timeout(job_timeout: Duration) -> Cluster {
    let mut c = cluster();
    let mut config = CloudStackConfig::new(
        c.cloud_endpoint.clone(),
        Secret::new("e2e-key"),
        Secret::new("e2e-secret"),
    );
    config.poll_interval = Duration::from_millis(20);
    config.job_timeout = job_timeout;
    c.cloud_port = CloudStackCloud::new(CloudStackClient::new(config).expect("client"));
    c
}

fn roll_one_worker(c: &mut Cluster, batch_timeout: Duration) -> RolloutReport {
    let request = UpdateRequest {
        node_offerings: [("worker".to_string(), c.big.clone())].into(),
        rollout: true,
        max_unavailable: Some(1),
        ..Default::default()
    };
    let config = EngineConfig {
        owner: "failed-stop".into(),
        batch_timeout,
        drain_timeout: Duration::from_secs(20),
        poll_interval: Duration::from_millis(50),
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

fn trace(report: &RolloutReport) -> Vec<String> {
    report
        .events
        .iter()
        .map(|e| format!("{:?} {:?} {}", e.step, e.node, e.detail))
        .collect()
}

/// The steps taken on `node`, in order.
fn steps_of(report: &RolloutReport, node: &str) -> Vec<StepKind> {
    report
        .events
        .iter()
        .filter(|e| e.node.as_deref() == Some(node))
        .map(|e| e.step)
        .collect()
}

/// The first worker's stop: the node whose Stop event is first.
fn first_stopped(report: &RolloutReport) -> String {
    report
        .events
        .iter()
        .find(|e| e.step == StepKind::Stop)
        .and_then(|e| e.node.clone())
        .expect("a node was stopped")
}

/// The node is finished as any other: stopped, changed, started, verified, then uncordoned.
fn assert_finished_in_order(report: &RolloutReport, node: &str) {
    let steps = steps_of(report, node);
    let at = |kind: StepKind| steps.iter().position(|s| *s == kind);
    let (stop, change, start, verify, uncordon) = (
        at(StepKind::Stop),
        at(StepKind::ChangeOffering),
        at(StepKind::StartVm),
        at(StepKind::Verify),
        at(StepKind::Uncordon),
    );
    assert!(
        stop < change && change < start && start < verify && verify < uncordon && stop.is_some(),
        "{node}: {steps:?}\n{:#?}",
        trace(report)
    );
}

#[test]
fn a_stop_job_that_fails_after_the_vm_stopped_is_finished_and_started() {
    let mut c = cluster();
    c.cloud
        .fail_next_after_effect("stopVirtualMachine", "the host did not confirm the stop");
    let report = roll_one_worker(&mut c, Duration::from_secs(60));
    assert_eq!(report.run.error, None, "{:#?}", trace(&report));
    let node = first_stopped(&report);
    let stop = report
        .events
        .iter()
        .find(|e| e.step == StepKind::Stop && e.node.as_deref() == Some(node.as_str()))
        .expect("stop event");
    assert!(
        stop.detail.contains("the host did not confirm the stop")
            && stop
                .detail
                .contains("but the VM is Stopped: finishing the change"),
        "{}",
        stop.detail
    );
    assert_finished_in_order(&report, &node);
    for worker in WORKERS {
        assert_eq!(
            c.cloud.vm_named(worker).expect("vm").service_offering_id,
            c.big
        );
    }
    assert_eq!(
        c.store.get(&c.cluster_id).expect("record").state,
        ClusterState::Running
    );
}

#[test]
fn a_stop_job_that_times_out_while_the_vm_is_stopping_waits_and_finishes() {
    let mut c = cluster_with_job_timeout(Duration::from_millis(500));
    // The first stop takes 2 s: the client gives up after 0.5 s, the VM still Stopping.
    c.cloud
        .slow_next("stopVirtualMachine", Duration::from_secs(2));
    let report = roll_one_worker(&mut c, Duration::from_secs(60));
    assert_eq!(report.run.error, None, "{:#?}", trace(&report));
    let node = first_stopped(&report);
    let stop = report
        .events
        .iter()
        .find(|e| e.step == StepKind::Stop && e.node.as_deref() == Some(node.as_str()))
        .expect("stop event");
    assert!(
        stop.detail.contains("the stop call failed")
            && stop
                .detail
                .contains("but the VM is Stopped: finishing the change"),
        "{}",
        stop.detail
    );
    assert_finished_in_order(&report, &node);
    assert_eq!(
        c.cloud.vm_named(&node).expect("vm").service_offering_id,
        c.big
    );
    assert_eq!(
        c.store.get(&c.cluster_id).expect("record").state,
        ClusterState::Running
    );
}

#[test]
fn a_stop_still_stopping_when_the_batch_is_out_of_time_leaves_the_node_cordoned() {
    let mut c = cluster_with_job_timeout(Duration::from_millis(500));
    c.cloud
        .slow_next("stopVirtualMachine", Duration::from_secs(600));
    let report = roll_one_worker(&mut c, Duration::from_secs(3));
    let error = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .expect("the batch stopped");
    let node = first_stopped_or_cordoned(&report);
    assert!(
        error.contains(&node) && error.contains("Stopping after the stop timed out"),
        "{error}\n{:#?}",
        trace(&report)
    );
    assert_eq!(c.cloud.vm_named(&node).expect("vm").state, "Stopping");
    let steps = steps_of(&report, &node);
    assert!(
        !steps.contains(&StepKind::Uncordon),
        "never uncordoned while down: {steps:?}"
    );
    let kube_node = c.kube.node(&node).expect("node");
    assert_eq!(kube_node["spec"]["unschedulable"], true, "{kube_node}");
    let release = report.release.clone().expect("release ran");
    assert!(release.left_cordoned.contains(&node), "{release:?}");
    assert_eq!(release.state, ClusterState::Alert, "a VM is not Running");
    let stops = c
        .cloud
        .calls()
        .iter()
        .filter(|call| call.starts_with("stopvirtualmachine"))
        .count();
    assert_eq!(stops, 1, "no other worker was stopped");
}

#[test]
fn a_vm_stopped_by_a_failed_stop_whose_change_fails_is_started_back_and_uncordoned_once_up() {
    let mut c = cluster();
    c.cloud
        .fail_next_after_effect("stopVirtualMachine", "the host did not confirm the stop");
    c.cloud.fail_next(
        "changeServiceForVirtualMachine",
        "no host has room for the offering",
    );
    let report = roll_one_worker(&mut c, Duration::from_secs(60));
    let error = report
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .expect("the batch stopped on the change");
    let node = first_stopped(&report);
    assert!(
        error.contains("no host has room for the offering")
            && error.contains("the VM was started again unchanged"),
        "{error}\n{:#?}",
        trace(&report)
    );
    let steps = steps_of(&report, &node);
    assert!(
        !steps.contains(&StepKind::Uncordon),
        "the batch never uncordoned it: {steps:?}"
    );
    // Back up unchanged with a new boot ID: release puts it back into service.
    let vm = c.cloud.vm_named(&node).expect("vm");
    assert_eq!(
        (vm.state.as_str(), vm.service_offering_id.as_str()),
        ("Running", c.small.as_str())
    );
    let release = report.release.clone().expect("release ran");
    assert!(release.left_cordoned.is_empty(), "{release:?}");
    let kube_node = c.kube.node(&node).expect("node");
    assert!(
        kube_node["spec"].get("unschedulable").is_none(),
        "{kube_node}"
    );
    assert_eq!(release.state, ClusterState::Running, "{release:?}");
}

/// The node the batch cordoned (its stop never reported success).
fn first_stopped_or_cordoned(report: &RolloutReport) -> String {
    report
        .events
        .iter()
        .find(|e| e.step == StepKind::Cordon)
        .and_then(|e| e.node.clone())
        .expect("a node was cordoned")
}
