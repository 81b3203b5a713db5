//! The cluster view after an update call: the settings stored per type, the nodes out of date
//! against them, the last error, and the nodes created since the settings were stored.

use crate::common::{cfg, cluster, offerings, status};
use crate::update_call::{override_node, sim};
use cks_rollout::engine::NoProgress;
use cks_rollout::model::NodeType;
use cks_rollout::sim::{NodeOverride, Simulation};

#[test]
fn the_cluster_view_shows_sizes_out_of_date_counts_and_last_error() {
    let mut spec = cluster(3, 3, 4);
    spec.nodes.push(NodeOverride {
        offering: Some("medium".into()),
        ..override_node("w-2")
    });
    let s = Simulation::new(&spec, 1).expect("simulable");
    let mut req = offerings(&[("etcd", "medium")]);
    req.rollout = false;
    req.node_root_disk_sizes.insert("control".into(), 50);
    s.update(&req, &cfg(), &mut NoProgress).expect("stored");
    s.world_mut().record.last_error = Some("earlier failure".into());
    let view = status(&s);
    assert_eq!(view.controlnodesoutofdate, 3, "disks smaller than 50 GB");
    assert_eq!(view.etcdnodesoutofdate, 3);
    assert_eq!(
        view.workernodesoutofdate, 1,
        "w-2 runs medium, type says small"
    );
    let control = view
        .types
        .iter()
        .find(|t| t.node_type == NodeType::Control)
        .expect("control");
    assert_eq!(control.root_disk_size_gb, Some(50));
    assert_eq!(view.lasterror.as_deref(), Some("earlier failure"));
    let json = serde_json::to_value(&view).expect("serialisable");
    assert!(json.get("controlnodesoutofdate").is_some());
}

#[test]
fn a_node_created_after_the_settings_were_stored_is_named_in_the_view() {
    let s = sim(3, 0, 3);
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    s.update(&req, &cfg(), &mut NoProgress)
        .expect("the settings are stored");
    assert!(
        status(&s)
            .types
            .iter()
            .all(|t| t.created_since_settings.is_empty())
    );
    s.world_mut().add_worker();
    let view = status(&s);
    let workers = view
        .types
        .iter()
        .find(|t| t.node_type == NodeType::Worker)
        .expect("the workers");
    assert_eq!(workers.created_since_settings, ["w-4"]);
}
