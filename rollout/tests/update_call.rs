//! The update call: refusals naming their parameter, settings storage, states (the view it leaves is in `update_view`, the node types that cannot lose a node in `update_quorum`).

use crate::common::{cfg, cluster, offerings};
use cks_rollout::engine::{NoProgress, UpdateError, UpdateOutcome, UpdateRequest};
use cks_rollout::model::{ClusterState, NodeType};
use cks_rollout::sim::{Fault, NodeOverride, Simulation};

pub(crate) fn refused(sim: &Simulation, req: &UpdateRequest) -> UpdateError {
    let err = sim
        .update(req, &cfg(), &mut NoProgress)
        .expect_err("the call is refused");
    let trace = sim.world().trace.join("\n");
    for mutating in [
        "stop_vm",
        "set_annotation",
        "set_unschedulable",
        "save_settings",
        "store.cas",
    ] {
        assert!(
            !trace.contains(mutating),
            "a refused call must change nothing: {mutating}\n{trace}"
        );
    }
    err
}

pub(crate) fn param(sim: &Simulation, req: &UpdateRequest) -> &'static str {
    let err = refused(sim, req);
    err.parameter()
        .unwrap_or_else(|| panic!("expected a parameter refusal, got {err}"))
}

pub(crate) fn sim(control: u32, etcd: u32, workers: u32) -> Simulation {
    Simulation::new(&cluster(control, etcd, workers), 1).expect("simulable")
}

pub(crate) fn override_node(node: &str) -> NodeOverride {
    NodeOverride {
        node: node.into(),
        offering: None,
        root_disk_gb: None,
        affinity_groups: None,
        ..Default::default()
    }
}

#[test]
fn maxunavailable_below_one_is_refused_naming_it() {
    for m in [0, -3] {
        let mut req = offerings(&[("worker", "medium")]);
        req.max_unavailable = Some(m);
        let err = refused(&sim(3, 0, 3), &req);
        assert_eq!(err.parameter(), Some("maxunavailable"));
        assert!(err.to_string().contains("at least 1"), "{err}");
    }
}

#[test]
fn maxunavailable_without_rollout_is_refused() {
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    req.max_unavailable = Some(2);
    assert_eq!(param(&sim(3, 0, 3), &req), "maxunavailable");
}

#[test]
fn an_unknown_node_type_is_refused_naming_the_parameter() {
    let s = sim(3, 0, 3);
    let mut req = offerings(&[("master", "medium")]);
    assert_eq!(param(&s, &req), "nodeofferings");
    req = offerings(&[]);
    req.node_root_disk_sizes.insert("node".into(), 30);
    assert_eq!(param(&s, &req), "noderootdisksizes");
    req = offerings(&[]);
    req.node_affinity_groups
        .insert("gpu".into(), vec!["ag-1".into()]);
    assert_eq!(param(&s, &req), "nodeaffinitygroups");
    let err = refused(&s, &offerings(&[("master", "medium")]));
    assert!(err.to_string().contains("'master'"), "{err}");
}

#[test]
fn etcd_settings_on_a_cluster_without_etcd_nodes_are_refused() {
    assert_eq!(
        param(&sim(3, 0, 3), &offerings(&[("etcd", "medium")])),
        "nodeofferings"
    );
}

#[test]
fn an_unknown_offering_is_refused() {
    assert_eq!(
        param(&sim(3, 0, 3), &offerings(&[("worker", "huge")])),
        "nodeofferings"
    );
}

#[test]
fn an_explicit_dedication_group_is_refused() {
    let mut req = offerings(&[]);
    req.node_affinity_groups
        .insert("worker".into(), vec!["ag-dedicated".into()]);
    let err = refused(&sim(3, 0, 3), &req);
    assert_eq!(err.parameter(), Some("nodeaffinitygroups"));
    assert!(err.to_string().contains("dedication"), "{err}");
}

#[test]
fn shrinking_a_root_disk_is_refused_with_rollout_and_stored_without() {
    let mut req = offerings(&[]);
    req.node_root_disk_sizes.insert("worker".into(), 10);
    let s = sim(3, 0, 3);
    let err = refused(&s, &req);
    assert_eq!(err.parameter(), Some("noderootdisksizes"));
    assert!(err.to_string().contains("shrink"), "{err}");
    req.rollout = false;
    let out = s.update(&req, &cfg(), &mut NoProgress).expect("stored");
    assert!(matches!(out, UpdateOutcome::Stored { .. }));
    assert_eq!(
        s.world().record.settings[&NodeType::Worker].root_disk_size_gb,
        Some(10)
    );
    assert_eq!(
        s.world().vms["w-1"].root_gb,
        20,
        "a shrink never touches a disk"
    );
    // The size the root disks have already is no shrink.
    let mut same = offerings(&[]);
    same.node_root_disk_sizes.insert("worker".into(), 20);
    let s = sim(3, 0, 3);
    s.update(&same, &cfg(), &mut NoProgress)
        .expect("the size the disks have is accepted");
}

#[test]
fn a_fixed_size_disk_offering_is_refused_with_rollout_and_stored_without() {
    let mut spec = cluster(3, 0, 3);
    spec.workers.root_disk_offering = Some("fixed-20".into());
    let s = Simulation::new(&spec, 1).expect("simulable");
    let mut req = offerings(&[]);
    req.node_root_disk_sizes.insert("worker".into(), 30);
    let err = refused(&s, &req);
    assert_eq!(err.parameter(), Some("noderootdisksizes"));
    assert!(err.to_string().contains("fixed size"), "{err}");
    req.rollout = false;
    assert!(s.update(&req, &cfg(), &mut NoProgress).is_ok());
}

#[test]
fn rollout_false_only_stores_settings_in_any_state_but_busy_ones() {
    for state in [
        ClusterState::Running,
        ClusterState::Stopped,
        ClusterState::Alert,
        ClusterState::Created,
    ] {
        let mut spec = cluster(3, 0, 3);
        spec.state = state;
        let s = Simulation::new(&spec, 1).expect("simulable");
        let mut req = offerings(&[("worker", "medium")]);
        req.rollout = false;
        let out = s.update(&req, &cfg(), &mut NoProgress).expect("stored");
        let UpdateOutcome::Stored { view, .. } = out else {
            panic!("stored only")
        };
        assert_eq!(view.workernodesoutofdate, 3);
        assert_eq!(s.world().record.state, state, "state unchanged");
        assert!(
            s.world().vms.values().all(|v| v.engine_stops == 0),
            "no VM touched"
        );
        assert_eq!(s.world().vms["w-1"].offering, "small");
    }
    for state in [
        ClusterState::Scaling,
        ClusterState::Upgrading,
        ClusterState::Destroying,
        ClusterState::Updating,
        ClusterState::Starting,
    ] {
        let mut spec = cluster(3, 0, 3);
        spec.state = state;
        let s = Simulation::new(&spec, 1).expect("simulable");
        let mut req = offerings(&[("worker", "medium")]);
        req.rollout = false;
        let err = refused(&s, &req);
        assert!(
            matches!(err, UpdateError::WrongState { .. }),
            "{state:?}: {err}"
        );
    }
}

#[test]
fn rollout_true_needs_running_or_alert() {
    for state in [
        ClusterState::Stopped,
        ClusterState::Updating,
        ClusterState::Scaling,
    ] {
        let mut spec = cluster(3, 0, 3);
        spec.state = state;
        let s = Simulation::new(&spec, 1).expect("simulable");
        let err = refused(&s, &offerings(&[("worker", "medium")]));
        assert!(matches!(err, UpdateError::WrongState { .. }), "{err}");
    }
}

#[test]
fn the_cluster_offering_is_copied_to_each_type_and_shared_groups_recorded() {
    let mut spec = cluster(3, 0, 3);
    spec.workers.affinity_groups = vec!["ag-1".into(), "ag-dedicated".into()];
    let s = Simulation::new(&spec, 1).expect("simulable");
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    s.update(&req, &cfg(), &mut NoProgress).expect("stored");
    let w = s.world();
    let st = &w.record.settings;
    assert_eq!(
        st[&NodeType::Control].offering_id.as_deref(),
        Some("small"),
        "copied"
    );
    assert_eq!(st[&NodeType::Worker].offering_id.as_deref(), Some("medium"));
    assert_eq!(
        st[&NodeType::Worker].affinity_group_ids,
        Some(vec!["ag-1".to_string()]),
        "shared groups recorded, dedication left out"
    );
    assert_eq!(
        st[&NodeType::Control].affinity_group_ids,
        None,
        "no shared groups: none recorded"
    );
    assert!(
        !st.contains_key(&NodeType::Etcd),
        "no etcd type on a stacked cluster"
    );
}

#[test]
fn changing_one_type_after_the_cluster_offering_changed_leaves_the_others() {
    let s = sim(3, 0, 3);
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    s.update(&req, &cfg(), &mut NoProgress).expect("stored");
    s.world_mut().record.service_offering_id = "large".into();
    let view = cks_rollout::engine::view(&mut s.ports().ports(), "cluster-1").expect("view");
    assert_eq!(
        view.controlnodesoutofdate, 0,
        "control keeps its copied offering"
    );
}

#[test]
fn a_failed_settings_store_restores_the_state_and_keeps_the_error() {
    let mut spec = cluster(3, 0, 3);
    spec.state = ClusterState::Alert;
    spec.faults.push(Fault::SaveSettingsFails);
    let s = Simulation::new(&spec, 1).expect("simulable");
    let err = s
        .update(&offerings(&[("worker", "medium")]), &cfg(), &mut NoProgress)
        .expect_err("store fails");
    assert!(
        matches!(
            err,
            UpdateError::StoreFailed {
                restored: ClusterState::Alert,
                ..
            }
        ),
        "{err}"
    );
    let w = s.world();
    assert_eq!(w.record.state, ClusterState::Alert);
    assert!(
        w.record
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("database is locked"))
    );
    assert!(w.vms.values().all(|v| v.engine_stops == 0));
}

#[test]
fn a_state_changed_by_another_operation_before_the_compare_and_set_is_refused() {
    let spec = cluster(3, 0, 3);
    let probe = Simulation::new(&spec, 1).expect("simulable");
    let req = offerings(&[("worker", "medium")]);
    probe.update(&req, &cfg(), &mut NoProgress).expect("rolls");
    let cas = probe
        .world()
        .trace
        .iter()
        .find(|l| l.contains("store.begin_rollout(Running -> Updating)"))
        .and_then(|l| {
            l.trim_start_matches('#')
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .expect("a CAS step");
    let mut spec = spec.clone();
    spec.faults.push(Fault::SetState {
        at_step: cas,
        state: ClusterState::Scaling,
    });
    let s = Simulation::new(&spec, 1).expect("simulable");
    let err = s
        .update(&req, &cfg(), &mut NoProgress)
        .expect_err("lost the race");
    assert!(
        matches!(
            err,
            UpdateError::Concurrent {
                expected: ClusterState::Running,
                ..
            }
        ),
        "{err}"
    );
    let w = s.world();
    assert_eq!(
        w.record.state,
        ClusterState::Scaling,
        "the other operation keeps the cluster"
    );
    assert!(w.vms.values().all(|v| v.engine_stops == 0));
    assert!(w.record.settings.is_empty(), "nothing stored");
}

#[test]
fn a_vm_not_matched_to_its_node_refuses_an_update_of_its_type_only() {
    let mut spec = cluster(3, 0, 3);
    spec.nodes.push(NodeOverride {
        unmatched: true,
        ..override_node("w-2")
    });
    let err = refused(
        &Simulation::new(&spec, 1).expect("simulable"),
        &offerings(&[("worker", "medium")]),
    );
    assert!(
        matches!(
            &err,
            UpdateError::Unmatched {
                node_type: NodeType::Worker,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "cannot roll out the worker nodes: VM w-2 has no Kubernetes node (no node's InternalIP \
         is one of its addresses); node w-2 has no VM in the cluster (no VM has its InternalIP); \
         fix the cluster, or leave the worker settings out to roll out the other types"
    );
    // Any one setting of the type changes it: its root disk, or its affinity groups alone.
    let mut disk = offerings(&[]);
    disk.node_root_disk_sizes.insert("worker".into(), 40);
    let mut groups = offerings(&[]);
    groups
        .node_affinity_groups
        .insert("worker".into(), vec!["ag-1".into()]);
    for req in [disk, groups] {
        let err = refused(&Simulation::new(&spec, 1).expect("simulable"), &req);
        assert!(matches!(err, UpdateError::Unmatched { .. }), "{err:?}");
    }
    // The control nodes, all matched, still roll out.
    let sim = Simulation::new(&spec, 1).expect("simulable");
    let outcome = sim
        .update(
            &offerings(&[("control", "medium")]),
            &cfg(),
            &mut NoProgress,
        )
        .expect("the control nodes roll out");
    assert!(
        matches!(outcome, UpdateOutcome::RolledOut(_)),
        "{outcome:?}"
    );
}
