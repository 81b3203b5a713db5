//! Counting rules: quorum, worker batch size, and which node types cannot lose a node.

use crate::model::{ClusterRecord, NodeType};

/// Members needed for an etcd quorum of `n`: floor(n/2) + 1.
pub fn quorum(n: usize) -> usize {
    n / 2 + 1
}

/// Workers restarted at a time: `min(maxunavailable, workers - 1)`, at least 1.
pub fn worker_batch_size(max_unavailable: u32, workers: u32) -> u32 {
    max_unavailable.min(workers.saturating_sub(1)).max(1)
}

/// True when a type cannot lose a node without losing the API or etcd: a single control node,
/// a 2-node stacked control plane, one or two external etcd nodes.
pub fn cannot_lose_a_node(record: &ClusterRecord, t: NodeType) -> bool {
    match t {
        NodeType::Control => {
            record.control_count <= 1 || (!record.external_etcd() && record.control_count == 2)
        }
        NodeType::Etcd => record.external_etcd() && record.etcd_count <= 2,
        NodeType::Worker => false,
    }
}

/// Why [`cannot_lose_a_node`] holds, for messages.
pub fn cannot_lose_reason(record: &ClusterRecord, t: NodeType) -> String {
    match t {
        NodeType::Control if record.control_count <= 1 => {
            "a single control node cannot be restarted without losing the API".to_string()
        }
        NodeType::Control => {
            "a 2-node stacked control plane loses etcd quorum when one node restarts".to_string()
        }
        NodeType::Etcd => format!(
            "{} etcd node(s) lose quorum when one restarts",
            record.etcd_count
        ),
        NodeType::Worker => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quorum_is_floor_half_plus_one() {
        assert_eq!([1, 2, 3, 4, 5, 6, 7].map(quorum), [1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn worker_batch_is_clamped_to_workers_minus_one_and_at_least_one() {
        assert_eq!(worker_batch_size(1, 6), 1);
        assert_eq!(worker_batch_size(3, 6), 3);
        assert_eq!(worker_batch_size(10, 6), 5);
        assert_eq!(worker_batch_size(5, 1), 1);
        assert_eq!(worker_batch_size(2, 2), 1);
    }

    #[test]
    fn the_reason_a_type_cannot_lose_a_node_names_its_case() {
        let mut record = ClusterRecord {
            worker_count: 3,
            ..ClusterRecord::sample("k1", crate::model::ClusterState::Running)
        };
        assert!(
            cannot_lose_reason(&record, NodeType::Control).contains("a single control node"),
            "{}",
            cannot_lose_reason(&record, NodeType::Control)
        );
        record.control_count = 2;
        assert!(
            cannot_lose_reason(&record, NodeType::Control).contains("2-node stacked control plane"),
            "{}",
            cannot_lose_reason(&record, NodeType::Control)
        );
    }
}
