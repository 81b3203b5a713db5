//! The update call on node types that cannot lose a node (a single control node, a 2-node
//! stacked control plane, 2 etcd nodes): settings that would take a node down are refused;
//! settings that change nothing, nodes that already differed and stopped nodes are accepted.

use crate::common::{cfg, cluster, offerings};
use crate::update_call::{override_node, param, sim};
use cks_rollout::engine::{NoProgress, UpdateOutcome};
use cks_rollout::model::{ClusterState, NodeType};
use cks_rollout::sim::Simulation;

#[test]
fn types_that_cannot_lose_a_node_refuse_settings_that_make_a_node_out_of_date() {
    // single control node
    assert_eq!(
        param(&sim(1, 0, 3), &offerings(&[("control", "medium")])),
        "nodeofferings"
    );
    // 2-node stacked control plane
    let mut req = offerings(&[]);
    req.node_root_disk_sizes.insert("control".into(), 30);
    assert_eq!(param(&sim(2, 0, 3), &req), "noderootdisksizes");
    // 2 etcd nodes
    let mut req = offerings(&[]);
    req.node_affinity_groups
        .insert("etcd".into(), vec!["ag-1".into()]);
    assert_eq!(param(&sim(3, 2, 3), &req), "nodeaffinitygroups");
    // 2 control nodes with external etcd can lose one
    let s = sim(2, 3, 3);
    let out = s.update(
        &offerings(&[("control", "medium")]),
        &cfg(),
        &mut NoProgress,
    );
    assert!(matches!(out, Ok(UpdateOutcome::RolledOut(_))), "{out:?}");
}

#[test]
fn no_op_settings_already_differing_and_stopped_nodes_are_accepted_for_such_types() {
    // no-op: the offering the single control node already has
    let s = sim(1, 0, 3);
    assert!(
        s.update(&offerings(&[("control", "small")]), &cfg(), &mut NoProgress)
            .is_ok()
    );
    // a node that already differed: stored settings say medium, node runs small
    let mut spec = cluster(1, 0, 3);
    spec.settings
        .entry(NodeType::Control)
        .or_default()
        .offering_id = Some("medium".into());
    let s = Simulation::new(&spec, 1).expect("simulable");
    assert!(
        s.update(&offerings(&[("control", "large")]), &cfg(), &mut NoProgress)
            .is_ok()
    );
    // ... but a change of another kind still makes it out of date anew: refused
    let mut disk = offerings(&[]);
    disk.node_root_disk_sizes.insert("control".into(), 30);
    assert_eq!(
        param(&Simulation::new(&spec, 1).expect("simulable"), &disk),
        "noderootdisksizes"
    );
    // a stopped node
    let mut spec = cluster(1, 0, 3);
    let mut o = override_node("c-1");
    o.stopped = true;
    spec.nodes.push(o);
    spec.state = ClusterState::Alert;
    let s = Simulation::new(&spec, 1).expect("simulable");
    let out = s.update(
        &offerings(&[("control", "medium")]),
        &cfg(),
        &mut NoProgress,
    );
    assert!(out.is_ok(), "{out:?}");
    assert_eq!(
        s.world().vms["c-1"].offering,
        "medium",
        "changed while stopped, then started"
    );
}
