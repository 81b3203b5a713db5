//! The cluster record a store starts from, imported from CloudStack's `listKubernetesClusters`
//! answer: its state, offering, node counts and capacity, and no settings of its own yet.

use cks_cloudstack::KubernetesCluster;

use crate::model::{ClusterRecord, ClusterState};

/// The record of cluster `cluster_id` as CloudStack lists it; a state this crate does not know
/// is taken as Alert (someone must look).
pub fn imported_record(cluster_id: &str, cluster: &KubernetesCluster) -> ClusterRecord {
    let state = serde_json::from_value(serde_json::Value::String(cluster.state.clone()))
        .unwrap_or(ClusterState::Alert);
    let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    ClusterRecord {
        id: cluster_id.to_string(),
        name: cluster.name.clone(),
        state,
        service_offering_id: cluster.service_offering_id.clone(),
        control_count: small(cluster.control_nodes),
        worker_count: small(cluster.size),
        etcd_count: small(cluster.etcd_nodes),
        settings: Default::default(),
        cores: cluster.cpus,
        memory_mb: cluster.memory,
        cancel: false,
        last_error: None,
        lease: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_state_come_from_the_answer_and_an_unknown_state_is_alert() {
        let cluster: KubernetesCluster = serde_json::from_value(serde_json::json!({
            "id": "c-1", "name": "k1", "state": "Running", "serviceofferingid": "so-1",
            "controlnodes": "3", "size": 4, "etcdnodes": 0, "cpunumber": 14, "memory": "28672"
        }))
        .expect("a cluster");
        let record = imported_record("c-1", &cluster);
        assert_eq!(record.state, ClusterState::Running);
        assert_eq!(
            (record.control_count, record.worker_count, record.etcd_count),
            (3, 4, 0)
        );
        assert_eq!((record.cores, record.memory_mb), (14, 28672));
        let mut odd = cluster;
        odd.state = "Frobnicating".into();
        assert_eq!(imported_record("c-1", &odd).state, ClusterState::Alert);
    }
}
