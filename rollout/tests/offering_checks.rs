//! The size of the offering an update moves a node type onto: at least what a Kubernetes node
//! needs (2 vCPUs, 2048 MiB) and what the cluster's version needs, and, for a running cluster,
//! no less memory and no fewer vCPUs than the nodes have now.

use crate::common::{cfg, cluster, offerings};
use cks_rollout::engine::NoProgress;
use cks_rollout::sim::Simulation;

/// The offering `id` of `cpu` vCPUs and `memory_mb` MiB.
fn offering(id: &str, cpu: u32, memory_mb: u64) -> cks_rollout::model::ServiceOffering {
    cks_rollout::model::ServiceOffering {
        id: id.into(),
        name: id.into(),
        cpu_cores: cpu,
        memory_mb,
        customized: false,
        inactive: false,
    }
}

/// Whether moving the workers onto an offering of `cpu` vCPUs and `memory_mb` MiB is refused,
/// on a cluster whose Kubernetes version needs `version_min` (vCPUs, MiB) when given.
fn offering_refused(cpu: u32, memory_mb: u64, version_min: Option<(u32, u64)>) -> bool {
    // Nodes on an offering below every one tried (a running cluster is not scaled down).
    refused_over(offering("tiny", 1, 1024), cpu, memory_mb, version_min)
}

/// [`offering_refused`] with the nodes on `current`.
fn refused_over(
    current: cks_rollout::model::ServiceOffering,
    cpu: u32,
    memory_mb: u64,
    version_min: Option<(u32, u64)>,
) -> bool {
    let mut spec = cluster(3, 0, 3);
    spec.service_offering = current.id.clone();
    spec.offerings.push(current);
    spec.offerings.push(offering("sized", cpu, memory_mb));
    spec.kubernetes_version =
        version_min.map(
            |(min_cpu, min_memory_mb)| cks_rollout::sim::KubernetesVersionSpec {
                name: "1.33.1".into(),
                min_cpu,
                min_memory_mb,
            },
        );
    let s = Simulation::new(&spec, 1).expect("simulable");
    let mut req = offerings(&[("worker", "sized")]);
    req.rollout = false;
    match s.update(&req, &cfg(), &mut NoProgress) {
        Ok(_) => false,
        Err(e) => {
            assert_eq!(e.parameter(), Some("nodeofferings"), "{e}");
            true
        }
    }
}

#[test]
fn an_offering_below_what_a_kubernetes_node_needs_is_refused_and_one_at_it_accepted() {
    // At least 2 vCPUs and 2048 MiB.
    assert!(!offering_refused(2, 2048, None));
    assert!(offering_refused(1, 2048, None));
    assert!(offering_refused(2, 2047, None));
    // And what the cluster's Kubernetes version needs.
    assert!(!offering_refused(4, 4096, Some((4, 4096))));
    assert!(offering_refused(3, 4096, Some((4, 4096))));
    assert!(offering_refused(4, 4095, Some((4, 4096))));
}

#[test]
fn a_running_cluster_is_not_moved_onto_less_memory_or_fewer_vcpus() {
    let current = || offering("base", 4, 4096);
    assert!(!refused_over(current(), 4, 4096, None), "the same size");
    assert!(!refused_over(current(), 8, 8192, None), "larger");
    assert!(refused_over(current(), 4, 4095, None), "less memory");
    assert!(refused_over(current(), 3, 8192, None), "fewer vCPUs");
}
