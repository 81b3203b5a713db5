//! Rollout order and batch sizes, the plan, and what goes first.

use crate::common::{cluster, offerings, report, run_ok};
use cks_rollout::engine::outdated::Change;
use cks_rollout::engine::{StepKind, Verdict, WorkReason, plan_update};
use cks_rollout::model::{ClusterState, NodeType, ROLLOUT_ANNOTATION};
use cks_rollout::sim::{NodeOverride, Simulation};

fn stops(r: &cks_rollout::engine::RolloutReport) -> Vec<(usize, String)> {
    r.events
        .iter()
        .filter(|e| e.step == StepKind::Stop)
        .map(|e| (e.batch.unwrap_or(0), e.node.clone().unwrap_or_default()))
        .collect()
}

fn node(name: &str) -> NodeOverride {
    NodeOverride {
        node: name.into(),
        offering: None,
        root_disk_gb: None,
        affinity_groups: None,
        ..Default::default()
    }
}

#[test]
fn etcd_then_control_one_at_a_time_then_workers_in_clamped_batches() {
    let sim = Simulation::new(&cluster(3, 3, 6), 3).expect("simulable");
    let mut req = offerings(&[
        ("etcd", "medium"),
        ("control", "medium"),
        ("worker", "large"),
    ]);
    req.max_unavailable = Some(4);
    let run = run_ok(&sim, &req);
    let r = report(&run);
    let order: Vec<String> = stops(r).into_iter().map(|(_, n)| n).collect();
    let kinds: Vec<char> = order
        .iter()
        .map(|n| n.chars().next().unwrap_or(' '))
        .collect();
    assert_eq!(
        kinds.iter().collect::<String>(),
        "eeecccwwwwww",
        "{order:?}"
    );
    let batch_sizes: Vec<usize> = r
        .run
        .plan
        .phases
        .iter()
        .flat_map(|p| p.batches.iter().map(|b| b.nodes.len()))
        .collect();
    assert_eq!(
        batch_sizes,
        vec![1, 1, 1, 1, 1, 1, 4, 2],
        "workers min(4, 6-1) at a time"
    );
    assert_eq!(r.run.plan.worker_batch_size, 4);
    assert_eq!(sim.world().record.state, ClusterState::Running);
    assert!(
        sim.world().vms.values().all(|v| v.offering != "small"),
        "every node updated"
    );
    let (cores, mem) = (sim.world().record.cores, sim.world().record.memory_mb);
    assert_eq!(
        (cores, mem),
        (3 * 4 + 3 * 4 + 6 * 8, 3 * 8192 + 3 * 8192 + 6 * 16384),
        "capacity recounted"
    );
}

#[test]
fn maxunavailable_is_clamped_to_workers_minus_one_and_one_for_a_single_worker() {
    for (workers, m, want) in [(6, 10, 5), (1, 3, 1), (2, 2, 1), (4, 1, 1)] {
        let sim = Simulation::new(&cluster(3, 0, workers), 3).expect("simulable");
        let mut req = offerings(&[("worker", "medium")]);
        req.max_unavailable = Some(m);
        let run = run_ok(&sim, &req);
        assert_eq!(
            report(&run).run.plan.worker_batch_size,
            want,
            "{workers} workers, maxunavailable {m}"
        );
        assert_eq!(
            sim.world().record.state,
            ClusterState::Running,
            "{}",
            run.failure_report()
        );
    }
}

#[test]
fn plan_lists_phases_batches_changes_skips_and_verdicts_without_acting() {
    let mut spec = cluster(1, 0, 3);
    spec.settings
        .entry(NodeType::Control)
        .or_default()
        .offering_id = Some("medium".into());
    let sim = Simulation::new(&spec, 3).expect("simulable");
    let mut req = offerings(&[("worker", "large")]);
    req.node_root_disk_sizes.insert("worker".into(), 30);
    req.max_unavailable = Some(2);
    let plan = plan_update(&mut sim.ports().ports(), "cluster-1", &req).expect("plan");
    let trace = sim.world().trace.join("\n");
    for mutating in [
        "stop_vm",
        "set_annotation",
        "set_unschedulable",
        "save_settings",
        "store.cas",
        "set_cancel",
        "begin_rollout",
        "request_cancel",
    ] {
        assert!(!trace.contains(mutating), "plan() must not act: {mutating}");
    }
    assert_eq!(plan.phases.len(), 1);
    assert_eq!(plan.phases[0].node_type, NodeType::Worker);
    assert_eq!(plan.phases[0].batches.len(), 2, "3 workers, 2 at a time");
    let first = &plan.phases[0].batches[0];
    assert_eq!(first.preflight, Verdict::Pass);
    assert_eq!(
        first.nodes[0].changes,
        vec![
            Change::Offering {
                from: "small".into(),
                to: "large".into()
            },
            Change::RootDisk {
                volume_id: sim.world().vms["w-1"].root_id.clone(),
                from_gb: 20,
                to_gb: 30
            },
        ]
    );
    assert_eq!(plan.skipped.len(), 1);
    assert_eq!(plan.skipped[0].node, "c-1");
    assert!(
        plan.skipped[0].reason.contains("single control node"),
        "{:?}",
        plan.skipped
    );
    let json = serde_json::to_string(&plan).expect("serialisable");
    let back: cks_rollout::engine::Plan = serde_json::from_str(&json).expect("round trip");
    assert_eq!(back, plan);
    assert_eq!(sim.world().record.settings, spec.settings, "nothing stored");
}

#[test]
fn plan_reports_a_failing_preflight() {
    let sim = Simulation::new(&cluster(3, 0, 3), 3).expect("simulable");
    sim.world_mut()
        .vms
        .get_mut("c-3")
        .expect("c-3")
        .etcd_unhealthy = true;
    let plan = plan_update(
        &mut sim.ports().ports(),
        "cluster-1",
        &offerings(&[("control", "medium")]),
    )
    .expect("plan");
    let b = &plan.phases[0].batches[0];
    assert_eq!(b.nodes[0].node, "c-1");
    let Verdict::Fail { reasons } = &b.preflight else {
        panic!("expected a failing verdict: {b:?}")
    };
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("etcd quorum: 1 of the other members healthy, 2 of 3")),
        "{reasons:?}"
    );
}

#[test]
fn stopped_then_interrupted_nodes_go_before_any_other() {
    let mut spec = cluster(3, 0, 4);
    spec.nodes.push(NodeOverride {
        stopped: true,
        ..node("w-3")
    });
    let mut w4 = node("w-4");
    w4.cordoned = true;
    w4.annotations
        .insert(ROLLOUT_ANNOTATION.into(), "boot-w-4-0".into());
    spec.nodes.push(w4);
    spec.state = ClusterState::Alert;
    let sim = Simulation::new(&spec, 3).expect("simulable");
    let run = run_ok(
        &sim,
        &offerings(&[("control", "medium"), ("worker", "medium")]),
    );
    let r = report(&run);
    let phases: Vec<(NodeType, bool, Vec<Vec<String>>)> = r
        .run
        .plan
        .phases
        .iter()
        .map(|p| {
            (
                p.node_type,
                p.resume,
                p.batches
                    .iter()
                    .map(|b| b.nodes.iter().map(|n| n.node.clone()).collect())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        phases[0],
        (
            NodeType::Worker,
            true,
            vec![vec!["w-3".to_string()], vec!["w-4".to_string()]]
        ),
        "the stopped node, then the interrupted one, before any other"
    );
    assert_eq!(phases[1].0, NodeType::Control);
    assert_eq!(phases[2].0, NodeType::Worker);
    let w4 = &r.run.plan.phases[0].batches[1].nodes[0];
    assert_eq!(w4.reason, WorkReason::Interrupted);
    assert!(
        !w4.cordoned_by_other,
        "its own annotation marks it as the engine's"
    );
    assert_eq!(
        sim.world().record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    let w = sim.world();
    let n4 = w.vms["w-4"].node.as_ref().expect("node");
    assert!(
        !n4.unschedulable && n4.annotations.is_empty(),
        "resumed node uncordoned"
    );
}
