//! A batch's change and verify steps: settings change only while stopped, a node is done once
//! Ready with a new boot ID and no longer differing from the settings, within the batch timeout
//! (a reported capacity unlike its offering's is a warning, never a wait).

use crate::common::{cluster, offerings, report, run_ok};
use cks_rollout::engine::{DEFAULT_BATCH_TIMEOUT, StepKind};
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION, Readiness, VmState};
use cks_rollout::sim::{Fault, Simulation};

fn last_error(sim: &Simulation) -> String {
    sim.world().record.last_error.clone().unwrap_or_default()
}

#[test]
fn settings_change_only_while_the_vm_is_stopped() {
    let sim = Simulation::new(&cluster(3, 0, 2), 5).expect("simulable");
    let mut req = offerings(&[("worker", "medium")]);
    req.node_root_disk_sizes.insert("worker".into(), 30);
    req.node_affinity_groups
        .insert("worker".into(), vec!["ag-1".into()]);
    run_ok(&sim, &req);
    let w = sim.world();
    let id = w.vms["w-1"].id.clone();
    let vol = w.vms["w-1"].root_id.clone();
    let trace = w.trace.join("\n");
    let at = |s: &str| trace.find(s).unwrap_or_else(|| panic!("{s} not in trace"));
    let stop = at(&format!("stop_vm({id})"));
    let start = at(&format!("start_vm({id})"));
    for change in [
        format!("change_offering({id}, medium)"),
        format!("resize_volume({vol}, 30)"),
        format!("update_affinity_groups({id}"),
    ] {
        let c = at(&change);
        assert!(stop < c && c < start, "{change} between stop and start");
    }
    assert_eq!(
        (w.vms["w-1"].root_gb, w.vms["w-1"].groups.clone()),
        (30, vec!["ag-1".to_string()])
    );
}

#[test]
fn dedication_groups_are_kept_when_groups_are_replaced() {
    let mut spec = cluster(3, 0, 2);
    spec.workers.affinity_groups = vec!["ag-2".into(), "ag-dedicated".into()];
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let mut req = offerings(&[]);
    req.node_affinity_groups
        .insert("worker".into(), vec!["ag-1".into()]);
    run_ok(&sim, &req);
    assert_eq!(
        sim.world().vms["w-1"].groups,
        vec!["ag-1".to_string(), "ag-dedicated".to_string()]
    );
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn a_stale_ready_with_the_old_boot_id_never_counts() {
    let mut spec = cluster(3, 0, 2);
    spec.faults.push(Fault::StaleReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    let verify = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Verify && e.node.as_deref() == Some("w-1"))
        .expect("verified");
    let start = r
        .events
        .iter()
        .find(|e| e.step == StepKind::StartVm && e.node.as_deref() == Some("w-1"))
        .expect("started");
    let booted = sim.world().vms["w-1"].boot_done_at.expect("booted");
    assert!(
        start.at_ms < booted.as_millis() as u64,
        "the start returned before the boot finished"
    );
    assert!(
        verify.at_ms >= booted.as_millis() as u64,
        "verified only once the new boot reported"
    );
    assert_ne!(
        sim.world().vms["w-1"].node.as_ref().expect("node").boot_id,
        "boot-w-1-0"
    );
}

#[test]
fn a_node_that_never_becomes_ready_fails_after_the_batch_timeout_and_stays_cordoned() {
    assert_eq!(DEFAULT_BATCH_TIMEOUT.as_secs(), 1800);
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::NeverReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    let e = r
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        e.contains("not verified within 1800 s") && e.contains("w-1 is not Ready"),
        "{e}"
    );
    let failed = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Failed)
        .expect("failed");
    let preflight = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Preflight)
        .expect("preflight");
    assert!(
        failed.at_ms - preflight.at_ms >= 1_800_000,
        "waited the whole batch timeout"
    );
    let w = sim.world();
    let n = w.vms["w-1"].node.as_ref().expect("node");
    assert!(
        n.unschedulable && n.annotations.contains_key(ROLLOUT_ANNOTATION),
        "left cordoned for the next run"
    );
    assert_eq!(
        w.vms["w-2"].engine_stops, 0,
        "no further batch after a failed one"
    );
    assert_eq!(w.record.state, ClusterState::Alert);
}

#[test]
fn a_node_reporting_another_capacity_than_its_offering_is_a_warning_not_a_wait() {
    // The design's two conditions decide (Ready with a new boot ID, the VM no longer differing);
    // a capacity unlike the offering's is only shown.
    let mut spec = cluster(3, 0, 2);
    spec.faults
        .push(Fault::StaleCapacity { node: "w-1".into() });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    assert_eq!(r.run.done, vec!["w-1", "w-2"], "no batch waited or failed");
    assert!(r.run.error.is_none(), "{:?}", r.run.error);
    let verified = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Verify && e.node.as_deref() == Some("w-1"))
        .expect("w-1 verified");
    assert!(
        verified.detail.contains("warning: w-1 reports 2 CPU")
            && verified.detail.contains("medium has 4 CPU"),
        "{}",
        verified.detail
    );
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Running);
    assert_eq!(last_error(&sim), "");
    assert!(
        !w.vms["w-1"].node.as_ref().is_some_and(|n| n.unschedulable),
        "w-1 uncordoned"
    );
    drop(w);
    let view = crate::common::status(&sim);
    assert!(
        view.warnings
            .iter()
            .any(|w| w.contains("w-1 reports 2 CPU")),
        "{:?}",
        view.warnings
    );
}

/// The view warns only of Running VMs: a stopped VM's node may still show Ready with its old
/// capacity until the API server notices, and that is no capacity to warn about.
#[test]
fn a_stopped_vm_is_no_capacity_warning_while_its_node_still_shows_ready() {
    let mut spec = cluster(3, 0, 2);
    spec.faults
        .push(Fault::StaleCapacity { node: "w-1".into() });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    let warned = |sim: &Simulation| {
        crate::common::status(sim)
            .warnings
            .iter()
            .any(|w| w.contains("w-1 reports 2 CPU"))
    };
    assert!(warned(&sim), "a Running VM's node is warned about");
    {
        // Stopped just now: the node shows Ready until its grace period ends.
        let mut w = sim.world_mut();
        let now = w.now;
        let vm = w.vms.get_mut("w-1").expect("w-1");
        vm.state = VmState::Stopped;
        vm.stopped_at = Some(now);
    }
    assert!(
        sim.world().vms["w-1"]
            .node
            .as_ref()
            .is_some_and(|n| n.ready == Readiness::True),
        "the node still shows Ready"
    );
    assert!(!warned(&sim), "a stopped VM's is not");
}

#[test]
fn a_failed_offering_change_starts_the_vm_again_and_stops_the_rollout() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::ScaleFails {
        node: "w-1".into(),
        times: 1,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    let e = last_error(&sim);
    assert!(
        e.contains("change offering of w-1") && e.contains("started again"),
        "{e}"
    );
    let w = sim.world();
    assert_eq!(w.vms["w-1"].state, cks_rollout::model::VmState::Running);
    assert_eq!(w.vms["w-2"].engine_stops, 0);
}

#[test]
fn a_failed_stop_returns_the_drained_node_to_service_and_stops_the_rollout() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::StopFails {
        node: "w-1".into(),
        times: 1,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    let e = last_error(&sim);
    assert!(e.contains("stop VM of w-1") && e.contains("530"), "{e}");
    let w = sim.world();
    let n = w.vms["w-1"].node.as_ref().expect("node");
    assert!(
        !n.unschedulable && n.annotations.is_empty(),
        "it never went down: back in service"
    );
    assert_eq!(w.vms["w-2"].engine_stops, 0, "no further batch");
    assert_eq!(w.record.state, ClusterState::Running, "healthy: Running");
}

#[test]
fn a_failure_says_what_release_then_did_with_each_node() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::NeverReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let error = report(&run)
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        !error.contains("cordoned"),
        "the batch's error claims nothing: {error}"
    );
    let e = last_error(&sim);
    assert!(e.contains("release left w-1 cordoned"), "{e}");
}
