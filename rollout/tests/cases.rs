//! One simulator test per way a rollout could break its rules from the state it found: a stale
//! Ready on resume, a healthy end, an empty group list, a cancel at every step, quorum by
//! address, a failed uncordon in release, a failed stop (a cancel at every step: cancel.rs).

use crate::common::{cfg, cluster, error_text, offerings, report, run_ok};
use cks_rollout::engine::StepKind;
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION};
use cks_rollout::sim::{Fault, NodeOverride, Simulation};

#[test]
fn a_node_restarting_with_a_stale_ready_is_not_uncordoned_before_its_new_boot() {
    let mut spec = cluster(3, 0, 3);
    spec.nodes.push(NodeOverride {
        node: "w-1".into(),
        cordoned: true,
        restarting: true,
        annotations: [(ROLLOUT_ANNOTATION.to_string(), "boot-w-1-0".to_string())].into(),
        ..Default::default()
    });
    let sim = Simulation::new(&spec, 3).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    let w = sim.world();
    let n = w.vms["w-1"].node.as_ref().expect("node");
    assert_ne!(n.boot_id, "boot-w-1-0");
    assert!(!n.unschedulable);
    assert_eq!(w.vms["w-1"].engine_stops, 1);
}

#[test]
fn an_empty_affinity_group_list_is_refused_naming_nodeaffinitygroups() {
    let sim = Simulation::new(&cluster(3, 0, 2), 1).expect("simulable");
    let mut req = offerings(&[]);
    req.node_affinity_groups.insert("worker".into(), vec![]);
    let run = sim.run(&req, &cfg());
    let e = run.outcome.expect_err("refused");
    assert_eq!(e.parameter(), Some("nodeaffinitygroups"), "{e}");
}

#[test]
fn a_stop_that_times_out_with_the_vm_down_finishes_the_change_and_never_uncordons_it_down() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::StopTimesOut {
        node: "w-1".into(),
        times: 1,
        stopping: true,
        stopping_seconds: 20,
    });
    let sim = Simulation::new(&spec, 2).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    let stop = report(&run)
        .events
        .iter()
        .find(|e| e.step == StepKind::Stop && e.node.as_deref() == Some("w-1"))
        .expect("w-1's stop");
    assert!(
        stop.detail.contains("but the VM is Stopped"),
        "the VM found Stopping was waited for until Stopped: {}",
        stop.detail
    );
    assert_eq!(sim.world().vms["w-1"].offering, "medium");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn a_vm_still_stopping_at_the_batch_deadline_fails_the_batch_and_is_never_uncordoned_down() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::StopTimesOut {
        node: "w-1".into(),
        times: 1,
        stopping: true,
        stopping_seconds: 7200,
    });
    let sim = Simulation::new(&spec, 2).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let error = error_text(&run);
    assert!(
        error.contains("w-1") && error.contains("Stopping after the stop timed out"),
        "the batch ends at its deadline with the VM's state: {error}\n{}",
        run.failure_report()
    );
    let w = sim.world();
    assert!(
        w.vms["w-1"].node.as_ref().is_some_and(|n| n.unschedulable),
        "a node found down is left cordoned"
    );
    assert_ne!(w.record.state, ClusterState::Running);
}

#[test]
fn quorum_is_counted_by_address_when_member_names_are_unlike_node_names() {
    let mut spec = cluster(3, 0, 2);
    for (i, c) in ["c-1", "c-2", "c-3"].iter().enumerate() {
        spec.nodes.push(NodeOverride {
            node: (*c).into(),
            member_name: Some(format!("etcd-{}", ["alpha", "beta", "gamma"][i])),
            ..Default::default()
        });
    }
    let sim = Simulation::new(&spec, 4).expect("simulable");
    sim.world_mut()
        .vms
        .get_mut("c-2")
        .expect("c-2")
        .etcd_unhealthy = true;
    let run = run_ok(&sim, &offerings(&[("control", "medium")]));
    let e = report(&run).run.error.as_ref().map(ToString::to_string);
    assert!(
        e.is_some_and(|e| e.contains("etcd quorum")),
        "{}",
        run.failure_report()
    );
    assert!(sim.world().vms.values().all(|v| v.engine_stops == 0));
}
