//! How a rollout ends: cancel between batches, release (idempotent), the state scanner, resume.

use crate::common::{cluster, offerings, report, run_ok};
use cks_rollout::engine::{EngineConfig, ScanOutcome, StepKind};
use cks_rollout::model::{ClusterState, Lease, ROLLOUT_ANNOTATION, Readiness, VmState};
use cks_rollout::sim::{Fault, Simulation};
use std::time::Duration;

fn step_of(sim: &Simulation, call: &str) -> u64 {
    sim.world()
        .trace
        .iter()
        .find(|l| l.contains(call))
        .and_then(|l| l.trim_start_matches('#').split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{call} not in trace"))
}

#[test]
fn cancel_stops_the_rollout_between_two_batches() {
    let spec = cluster(3, 0, 4);
    let req = offerings(&[("worker", "medium")]);
    let probe = Simulation::new(&spec, 9).expect("simulable");
    run_ok(&probe, &req);
    let w1_vm = probe.world().vms["w-1"].id.clone();
    let mut spec = spec.clone();
    spec.faults.push(Fault::Cancel {
        at_step: step_of(&probe, &format!("stop_vm({w1_vm})")),
    });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let run = run_ok(&sim, &req);
    let r = report(&run);
    assert!(r.run.cancelled);
    assert_eq!(
        r.run.done,
        vec!["w-1"],
        "the batch in flight completes, no new one starts"
    );
    let w = sim.world();
    assert_eq!(w.vms["w-2"].engine_stops, 0);
    assert_eq!(
        w.record.state,
        ClusterState::Running,
        "a cancelled rollout is not a failure"
    );
    assert!(!w.record.cancel, "the flag is cleared");
    assert!(r.events.iter().any(|e| e.step == StepKind::Cancelled));
}

#[test]
fn a_cancel_asked_right_after_the_move_into_updating_stops_before_the_first_batch() {
    let spec = cluster(3, 0, 3);
    let req = offerings(&[("worker", "medium")]);
    let probe = Simulation::new(&spec, 9).expect("simulable");
    run_ok(&probe, &req);
    let mut spec = spec.clone();
    spec.faults.push(Fault::Cancel {
        at_step: step_of(&probe, "store.begin_rollout") + 1,
    });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let run = run_ok(&sim, &req);
    let r = report(&run);
    assert!(r.run.cancelled && r.run.done.is_empty());
    let w = sim.world();
    assert!(w.vms.values().all(|v| v.engine_stops == 0));
    assert_eq!(
        w.record.settings[&cks_rollout::model::NodeType::Worker]
            .offering_id
            .as_deref(),
        Some("medium"),
        "settings stored"
    );
    assert_eq!(w.record.state, ClusterState::Running);
}

#[test]
fn release_twice_gives_the_same_result_after_a_failed_rollout() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::NeverReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    let first = r.release.clone().expect("released");
    assert_eq!(first.state, ClusterState::Alert);
    assert_eq!(first.left_cordoned, vec!["w-1"]);
    let before = sim.world().end_state();
    for _ in 0..2 {
        let again = sim
            .release(
                r.run.error.as_ref().map(ToString::to_string).as_deref(),
                r.run.notes.as_deref(),
            )
            .expect("release");
        assert_eq!(again, first);
        assert_eq!(sim.world().end_state(), before);
    }
}

#[test]
fn release_recounts_capacity_from_the_vms_offerings() {
    let sim = Simulation::new(&cluster(3, 0, 2), 9).expect("simulable");
    sim.world_mut().record.cores = 999;
    let run = run_ok(&sim, &offerings(&[("worker", "large")]));
    let r = report(&run).release.clone().expect("released");
    assert_eq!(
        (r.cores, r.memory_mb),
        (3 * 2 + 2 * 8, 3 * 4096 + 2 * 16384)
    );
    assert_eq!(sim.world().record.cores, 22);
}

#[test]
fn release_uncordons_only_annotated_nodes_back_with_a_new_boot_id() {
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        let n1 = w
            .vms
            .get_mut("w-1")
            .and_then(|v| v.node.as_mut())
            .expect("w-1");
        n1.unschedulable = true;
        n1.annotations
            .insert(ROLLOUT_ANNOTATION.into(), "boot-old".into());
        let n2 = w
            .vms
            .get_mut("w-2")
            .and_then(|v| v.node.as_mut())
            .expect("w-2");
        n2.unschedulable = true;
        n2.annotations
            .insert(ROLLOUT_ANNOTATION.into(), "boot-w-2-0".into());
        let n3 = w
            .vms
            .get_mut("w-3")
            .and_then(|v| v.node.as_mut())
            .expect("w-3");
        n3.unschedulable = true;
    }
    let out = sim.release(None, None).expect("release");
    let w = sim.world();
    let node = |n: &str| w.vms[n].node.clone().expect("node");
    assert!(
        !node("w-1").unschedulable && node("w-1").annotations.is_empty(),
        "came back: uncordoned"
    );
    assert!(node("w-2").unschedulable, "same boot ID: left cordoned");
    assert!(
        node("w-3").unschedulable,
        "cordoned by someone else: left cordoned"
    );
    assert_eq!(out.left_cordoned, vec!["w-2"]);
    assert_eq!(w.record.state, ClusterState::Running);
    assert_eq!(out.last_error, None, "no error to explain: no cordon named");
}

#[test]
fn release_moves_an_unhealthy_cluster_to_alert_with_the_reason() {
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        w.vms
            .get_mut("w-3")
            .and_then(|v| v.node.as_mut())
            .expect("w-3")
            .ready = Readiness::False;
    }
    let out = sim.release(None, None).expect("release");
    assert_eq!(out.state, ClusterState::Alert);
    assert!(
        out.last_error
            .as_deref()
            .is_some_and(|e| e.contains("node w-3 is not Ready"))
    );
}

#[test]
fn the_scanner_moves_an_orphaned_rollout_to_alert_and_leaves_a_live_one() {
    let c = EngineConfig::default();
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        w.record.cores = 0;
        w.record.lease = Some(Lease {
            owner: "ms-1:42".into(),
            heartbeat_ms: 0,
        });
        let n = w
            .vms
            .get_mut("w-1")
            .and_then(|v| v.node.as_mut())
            .expect("w-1");
        n.unschedulable = true;
        n.annotations
            .insert(ROLLOUT_ANNOTATION.into(), "boot-w-1-0".into());
    }
    sim.world_mut().advance(Duration::from_secs(60));
    assert_eq!(
        sim.scan(&c).expect("scan"),
        ScanOutcome::OwnerAlive {
            owner: "ms-1:42".into()
        }
    );
    assert_eq!(sim.world().record.state, ClusterState::Updating);
    sim.world_mut().advance(c.lease_timeout);
    let out = sim.scan(&c).expect("scan");
    assert_eq!(
        out,
        ScanOutcome::MovedToAlert {
            cores: 12,
            memory_mb: 6 * 4096
        }
    );
    let w = sim.world();
    assert_eq!((w.record.state, w.record.cores), (ClusterState::Alert, 12));
    assert!(
        w.record
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("ms-1:42"))
    );
    let n = w.vms["w-1"].node.as_ref().expect("w-1");
    assert!(
        n.unschedulable && n.annotations.contains_key(ROLLOUT_ANNOTATION),
        "nodes untouched"
    );
    drop(w);
    assert_eq!(sim.scan(&c).expect("scan"), ScanOutcome::NotUpdating);
}

#[test]
fn a_lost_lease_stops_the_rollout_without_releasing() {
    let spec = cluster(3, 0, 4);
    let req = offerings(&[("worker", "medium")]);
    let probe = Simulation::new(&spec, 9).expect("simulable");
    run_ok(&probe, &req);
    let w1_vm = probe.world().vms["w-1"].id.clone();
    let mut spec = spec.clone();
    spec.faults.push(Fault::StealLease {
        at_step: step_of(&probe, &format!("stop_vm({w1_vm})")),
    });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let run = run_ok(&sim, &req);
    let r = report(&run);
    assert!(r.run.lost_lease);
    assert!(
        r.run
            .error
            .as_ref()
            .map(ToString::to_string)
            .is_some_and(|e| e.contains("lost the rollout lease"))
    );
    assert!(r.release.is_none(), "the new owner releases, not us");
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Updating);
    assert_eq!(
        w.record.lease.as_ref().map(|l| l.owner.as_str()),
        Some("another-engine")
    );
    assert_eq!(
        w.vms["w-2"].engine_stops, 0,
        "no batch after the lease was lost"
    );
}

#[test]
fn running_again_resumes_and_uncordons_a_node_that_came_back_after_the_last_run() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::NeverReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let req = offerings(&[("worker", "medium")]);
    run_ok(&sim, &req);
    assert_eq!(sim.world().record.state, ClusterState::Alert);
    {
        // The operator fixes the kubelet: w-1 becomes Ready with its new boot ID.
        let mut w = sim.world_mut();
        let v = w.vms.get_mut("w-1").expect("w-1");
        v.never_ready = false;
        v.node.as_mut().expect("node").ready = Readiness::True;
    }
    let run = run_ok(
        &sim,
        &cks_rollout::engine::UpdateRequest {
            rollout: true,
            ..Default::default()
        },
    );
    let r = report(&run);
    assert!(
        r.events
            .iter()
            .any(|e| e.step == StepKind::Settle && e.node.as_deref() == Some("w-1")),
        "settled first"
    );
    let w = sim.world();
    assert_eq!(
        w.record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    assert!(
        w.vms
            .values()
            .filter(|v| v.name.starts_with('w'))
            .all(|v| v.offering == "medium")
    );
    assert_eq!(w.vms["w-1"].engine_stops, 1, "w-1 was not restarted again");
    assert!(
        w.record.last_error.is_none(),
        "a clean resume clears lasterror"
    );
}

#[test]
fn a_resumed_node_already_restarted_and_changed_is_waited_for_not_restarted() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::NeverReady { node: "w-1".into() });
    let sim = Simulation::new(&spec, 9).expect("simulable");
    let req = offerings(&[("worker", "medium")]);
    run_ok(&sim, &req);
    {
        // The kubelet is fixed and comes up 30 s after the next run starts.
        let mut w = sim.world_mut();
        let at = w.now + Duration::from_secs(30);
        let v = w.vms.get_mut("w-1").expect("w-1");
        v.never_ready = false;
        v.booted = false;
        v.boot_done_at = Some(at);
    }
    let run = run_ok(
        &sim,
        &cks_rollout::engine::UpdateRequest {
            rollout: true,
            ..Default::default()
        },
    );
    let r = report(&run);
    assert_eq!(r.run.plan.phases[0].batches[0].nodes[0].node, "w-1");
    let w = sim.world();
    assert_eq!(w.vms["w-1"].engine_stops, 1, "not restarted again");
    assert_eq!(
        w.record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    assert!(
        w.vms["w-1"]
            .node
            .as_ref()
            .is_some_and(|n| !n.unschedulable && n.annotations.is_empty())
    );
}

#[test]
fn release_moves_a_cluster_with_a_vm_down_to_alert_naming_it() {
    let sim = Simulation::new(&cluster(3, 0, 3), 9).expect("simulable");
    {
        let mut w = sim.world_mut();
        w.record.state = ClusterState::Updating;
        w.vms.get_mut("w-3").expect("w-3").state = VmState::Stopped;
    }
    let out = sim.release(None, None).expect("release");
    assert_eq!(out.state, ClusterState::Alert);
    assert!(
        out.last_error
            .as_deref()
            .is_some_and(|e| e.contains("VM of w-3 is Stopped")),
        "{out:?}"
    );
}

#[test]
fn release_moves_a_cluster_whose_etcd_lost_quorum_to_alert() {
    // Two of three etcd members unhealthy: no quorum; one of three: still a quorum.
    for (down, state) in [
        (&["e-1", "e-2"][..], ClusterState::Alert),
        (&["e-1"][..], ClusterState::Running),
    ] {
        let sim = Simulation::new(&cluster(3, 3, 3), 9).expect("simulable");
        {
            let mut w = sim.world_mut();
            w.record.state = ClusterState::Updating;
            for n in down {
                w.vms.get_mut(*n).expect("etcd VM").etcd_unhealthy = true;
            }
        }
        let out = sim.release(None, None).expect("release");
        assert_eq!(out.state, state, "{down:?}: {out:?}");
        assert_eq!(
            out.last_error
                .as_deref()
                .is_some_and(|e| e.contains("etcd has no quorum: 1 of 3 members healthy")),
            state == ClusterState::Alert,
            "{down:?}: {out:?}"
        );
    }
}
