//! A batch's first steps: preflight (quorum, API availability, types that cannot lose a node),
//! annotate and cordon (ownership), drain.

use crate::common::{cluster, offerings, report, run_ok};
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION};
use cks_rollout::sim::{Fault, NodeOverride, PdbSpec, PodSpec, Simulation};

fn node(name: &str) -> NodeOverride {
    NodeOverride {
        node: name.into(),
        offering: None,
        root_disk_gb: None,
        affinity_groups: None,
        ..Default::default()
    }
}

fn last_error(sim: &Simulation) -> String {
    sim.world().record.last_error.clone().unwrap_or_default()
}

#[test]
fn control_preflight_needs_a_quorum_of_the_other_members_and_fails_closed() {
    let sim = Simulation::new(&cluster(3, 0, 2), 5).expect("simulable");
    sim.world_mut()
        .vms
        .get_mut("c-2")
        .expect("c-2")
        .etcd_unhealthy = true;
    let run = run_ok(&sim, &offerings(&[("control", "medium")]));
    let r = report(&run);
    assert!(
        r.run
            .error
            .as_ref()
            .map(ToString::to_string)
            .is_some_and(|e| e.contains("etcd quorum")),
        "{:?}",
        r.run.error
    );
    assert!(
        sim.world().vms.values().all(|v| v.engine_stops == 0),
        "nothing stopped"
    );
    // etcd keeps its quorum (2 of 3) and nothing went down: healthy, so Running.
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn five_members_tolerate_one_unhealthy_other() {
    let sim = Simulation::new(&cluster(5, 0, 2), 5).expect("simulable");
    sim.world_mut()
        .vms
        .get_mut("c-5")
        .expect("c-5")
        .etcd_unhealthy = true;
    let run = run_ok(&sim, &offerings(&[("control", "medium")]));
    let r = report(&run);
    // c-1..c-4 restart with 3 of the 4 others healthy each time; c-5 stays unhealthy, so its
    // own batch is not verified.
    assert_eq!(
        r.run.done,
        vec!["c-1", "c-2", "c-3", "c-4"],
        "{:?}",
        r.run.error
    );
    assert!(
        r.run
            .error
            .as_ref()
            .map(ToString::to_string)
            .is_some_and(|e| e.contains("etcd member c-5 of c-5 is not healthy"))
    );
}

#[test]
fn etcd_nodes_roll_one_at_a_time_with_quorum_kept() {
    let mut spec = cluster(2, 3, 2);
    spec.faults.push(Fault::EtcdUnhealthy {
        member: "e-3".into(),
        at_step: 1,
        until_step: None,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("etcd", "medium")]));
    let r = report(&run);
    assert!(
        r.run.done.is_empty(),
        "e-3 unhealthy: restarting e-1 would lose quorum"
    );
    assert!(
        last_error(&sim).contains("etcd quorum"),
        "{}",
        last_error(&sim)
    );
}

#[test]
fn with_external_etcd_another_control_node_must_serve_the_api() {
    let mut spec = cluster(2, 3, 2);
    spec.faults.push(Fault::ApiDown {
        node: "c-2".into(),
        at_step: 1,
        until_step: None,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("control", "medium")]));
    assert!(
        last_error(&sim).contains("no other control node serves the API"),
        "{}",
        last_error(&sim)
    );
    assert_eq!(sim.world().vms["c-1"].engine_stops, 0);
    assert!(report(&run).run.done.is_empty());
}

#[test]
fn the_api_is_reached_through_another_control_node_while_one_is_down() {
    // In the simulator the cluster endpoint is c-1's API server.
    let sim = Simulation::new(&cluster(3, 3, 3), 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("control", "medium")]));
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    let trace = sim.world().trace.join("\n");
    let failed: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("does not answer") && !l.contains("kube.readyz"))
        .collect();
    assert!(
        failed.is_empty(),
        "only health probes reach a down API server: {failed:?}"
    );
    let c1_vm = sim.world().vms["c-1"].id.clone();
    let stop = trace
        .find(&format!("stop_vm({c1_vm})"))
        .expect("c-1 stopped");
    let back = trace
        .find("set_unschedulable(c-1, false)")
        .expect("c-1 uncordoned");
    let meanwhile = &trace[stop..back];
    assert!(
        meanwhile.contains("kube.list_nodes(via Control(\"c-2\"))"),
        "calls go via c-2 meanwhile"
    );
    assert!(
        !meanwhile.contains("via Cluster"),
        "the cluster endpoint is c-1's"
    );
}

#[test]
fn a_type_that_cannot_lose_a_node_is_skipped_and_reported_while_others_roll() {
    let mut spec = cluster(1, 0, 3);
    spec.settings
        .entry(cks_rollout::model::NodeType::Control)
        .or_default()
        .offering_id = Some("medium".into());
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    assert_eq!(r.run.done, vec!["w-1", "w-2", "w-3"]);
    assert_eq!(sim.world().vms["c-1"].offering, "small", "c-1 skipped");
    let e = last_error(&sim);
    assert!(
        e.contains("c-1") && e.contains("single control node"),
        "{e}"
    );
    // The design's health (every VM Running, every node Ready, etcd with quorum) does not count
    // a skipped node: it is reported, and the healthy cluster ends Running.
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "a skipped node is reported in lasterror, and the healthy cluster ends Running"
    );
    let view = crate::common::status(&sim);
    assert_eq!(view.state, ClusterState::Running);
    assert!(
        view.condition.starts_with("Running; last error:"),
        "{}",
        view.condition
    );
}

#[test]
fn annotates_with_the_boot_id_then_cordons_then_drains_then_stops() {
    let mut spec = cluster(3, 0, 2);
    spec.pods.push(PodSpec {
        app: "web".into(),
        namespace: "default".into(),
        replicas: 2,
        daemonset: false,
    });
    spec.pods.push(PodSpec {
        app: "logs".into(),
        namespace: "kube-system".into(),
        replicas: 1,
        daemonset: true,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let trace = sim.world().trace.join("\n");
    let at = |s: &str| trace.find(s).unwrap_or_else(|| panic!("{s} not in trace"));
    let annotate = at(&format!(
        "set_annotation(w-1, {ROLLOUT_ANNOTATION}=Some(\"boot-w-1-0\"))"
    ));
    let cordon = at("set_unschedulable(w-1, true)");
    let evict = at("kube.evict(default/web-0)");
    let stop = at(&format!("stop_vm({})", sim.world().vms["w-1"].id));
    assert!(
        annotate < cordon && cordon < evict && evict < stop,
        "order in\n{trace}"
    );
    assert!(
        !trace.contains("evict(kube-system/logs"),
        "DaemonSet pods are left"
    );
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
}

#[test]
fn a_node_someone_else_cordoned_is_updated_but_never_annotated_or_uncordoned() {
    let mut spec = cluster(3, 0, 3);
    spec.nodes.push(NodeOverride {
        cordoned: true,
        ..node("w-2")
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let w = sim.world();
    let w2 = &w.vms["w-2"];
    assert_eq!(w2.offering, "medium", "still updated");
    let n = w2.node.as_ref().expect("node");
    assert!(n.unschedulable, "stays cordoned");
    assert!(n.annotations.is_empty(), "never annotated");
    assert!(!w.trace.join("\n").contains("set_unschedulable(w-2, false)"));
    assert!(report(&run).run.plan.phases[0].batches[1].nodes[0].cordoned_by_other);
}

#[test]
fn an_outside_cordon_before_the_batch_is_respected() {
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(Fault::OutsideCordon {
        node: "w-3".into(),
        at_step: 30,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    run_ok(&sim, &offerings(&[("worker", "medium")]));
    let w = sim.world();
    assert!(
        w.vms["w-3"].node.as_ref().is_some_and(|n| n.unschedulable),
        "left cordoned"
    );
}

#[test]
fn an_outside_uncordon_during_the_drain_is_undone() {
    let mut spec = cluster(3, 0, 3);
    spec.pods.push(PodSpec {
        app: "web".into(),
        namespace: "default".into(),
        replicas: 3,
        daemonset: false,
    });
    spec.pdbs.push(PdbSpec {
        name: "web-pdb".into(),
        namespace: "default".into(),
        app: "web".into(),
        min_available: 1,
    });
    spec.faults.push(Fault::PdbBlocks {
        pdb: "web-pdb".into(),
        times: 4,
    });
    let probe = Simulation::new(&spec, 5).expect("simulable");
    run_ok(&probe, &offerings(&[("worker", "medium")]));
    let evict_step = probe
        .world()
        .trace
        .iter()
        .find(|l| l.contains("kube.evict"))
        .and_then(|l| {
            l.trim_start_matches('#')
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .expect("an eviction step");
    spec.faults.push(Fault::OutsideUncordon {
        node: "w-1".into(),
        at_step: evict_step + 1,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let trace = sim.world().trace.join("\n");
    // What the engine read and wrote of w-1's cordon: cordoned once when taken, then once more
    // right after it read the outside uncordon, and never again while it stayed cordoned.
    let seen: Vec<&str> = sim
        .world()
        .trace
        .iter()
        .filter_map(|l| {
            if l.contains("kube.set_unschedulable(w-1, true)") {
                Some("cordon")
            } else if l.contains("kube.get_node(w-1)") && l.contains("unschedulable=false") {
                Some("read uncordoned")
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        seen,
        ["cordon", "read uncordoned", "cordon"],
        "cordoned again, only after the uncordon:\n{trace}"
    );
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
}

#[test]
fn a_drain_a_pdb_never_allows_fails_the_batch_uncordons_and_names_pod_and_budget() {
    let mut spec = cluster(3, 0, 3);
    spec.pods.push(PodSpec {
        app: "db".into(),
        namespace: "default".into(),
        replicas: 3,
        daemonset: false,
    });
    spec.pdbs.push(PdbSpec {
        name: "db-pdb".into(),
        namespace: "default".into(),
        app: "db".into(),
        min_available: 3,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let e = last_error(&sim);
    assert!(
        e.contains("default/db-0") && e.contains("default/db-pdb"),
        "{e}"
    );
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "no node went down: healthy, Running with lasterror"
    );
    let w = sim.world();
    let w1 = &w.vms["w-1"];
    assert_eq!(w1.engine_stops, 0, "never went down");
    let n = w1.node.as_ref().expect("node");
    assert!(!n.unschedulable && n.annotations.is_empty(), "uncordoned");
    assert!(
        w.vms["w-2"]
            .node
            .as_ref()
            .is_some_and(|n| n.annotations.is_empty()),
        "no later batch"
    );
    assert!(report(&run).run.done.is_empty());
    assert!(w.now.as_secs() >= 600, "waited out the drain timeout");
}

#[test]
fn a_failed_drain_never_uncordons_a_node_someone_else_cordoned() {
    let mut spec = cluster(3, 0, 4);
    spec.nodes.push(NodeOverride {
        cordoned: true,
        ..node("w-1")
    });
    spec.pods.push(PodSpec {
        app: "db".into(),
        namespace: "default".into(),
        replicas: 4,
        daemonset: false,
    });
    spec.pdbs.push(PdbSpec {
        name: "db-pdb".into(),
        namespace: "default".into(),
        app: "db".into(),
        min_available: 4,
    });
    let sim = Simulation::new(&spec, 5).expect("simulable");
    let mut req = offerings(&[("worker", "medium")]);
    req.max_unavailable = Some(2);
    run_ok(&sim, &req);
    let w = sim.world();
    assert!(last_error(&sim).contains("db-pdb"));
    assert!(
        w.vms["w-1"].node.as_ref().is_some_and(|n| n.unschedulable),
        "still cordoned"
    );
    assert!(
        w.vms["w-2"].node.as_ref().is_some_and(|n| !n.unschedulable),
        "ours uncordoned"
    );
}
