//! `cancelrollout=true`: sent alone while a rollout runs, it is recorded and other updates are
//! refused; with any other parameter, or with no rollout running, it is refused.

use crate::common::{cfg, cluster, offerings};
use crate::update_call::{param, refused, sim};
use cks_rollout::engine::{NoProgress, UpdateError, UpdateOutcome, UpdateRequest};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::Simulation;

#[test]
fn cancelrollout_is_refused_when_no_rollout_runs_or_with_other_parameters() {
    let s = sim(3, 0, 3);
    let req = UpdateRequest {
        cancel_rollout: true,
        ..Default::default()
    };
    assert_eq!(param(&s, &req), "cancelrollout");
    let mut req = offerings(&[("worker", "medium")]);
    req.cancel_rollout = true;
    assert_eq!(param(&s, &req), "cancelrollout");
}

#[test]
fn cancelrollout_with_any_one_other_parameter_is_refused_as_not_alone() {
    let s = sim(3, 0, 3);
    s.world_mut().record.state = ClusterState::Updating;
    let alone = UpdateRequest {
        cancel_rollout: true,
        ..Default::default()
    };
    let mut with_offering = alone.clone();
    with_offering
        .node_offerings
        .insert("worker".into(), "medium".into());
    let mut with_disk = alone.clone();
    with_disk.node_root_disk_sizes.insert("worker".into(), 40);
    let mut with_groups = alone.clone();
    with_groups
        .node_affinity_groups
        .insert("worker".into(), vec!["ag-1".into()]);
    let with_rollout = UpdateRequest {
        rollout: true,
        ..alone.clone()
    };
    let with_max_unavailable = UpdateRequest {
        max_unavailable: Some(2),
        ..alone.clone()
    };
    for req in [
        with_offering,
        with_disk,
        with_groups,
        with_rollout,
        with_max_unavailable,
    ] {
        let e = refused(&s, &req);
        assert_eq!(e.parameter(), Some("cancelrollout"), "{e}");
        assert!(e.to_string().contains("send it alone"), "{e}");
    }
}

#[test]
fn cancel_while_updating_is_recorded_and_other_updates_are_refused() {
    let mut spec = cluster(3, 0, 3);
    spec.state = ClusterState::Updating;
    let s = Simulation::new(&spec, 1).expect("simulable");
    let req = UpdateRequest {
        cancel_rollout: true,
        ..Default::default()
    };
    let out = s.update(&req, &cfg(), &mut NoProgress).expect("recorded");
    assert_eq!(out, UpdateOutcome::CancelRequested);
    assert!(s.world().record.cancel);
    let mut other = offerings(&[("worker", "medium")]);
    other.rollout = false;
    assert!(matches!(
        refused(&s, &other),
        UpdateError::WrongState { .. }
    ));
}
