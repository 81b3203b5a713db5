//! The workloads the Kubernetes adapter tests drain: on every node a DaemonSet proxy pod, on
//! `w-1` a mirror (static) pod, and two `web` pods (on `w-1` and `w-2`) under a
//! PodDisruptionBudget that needs one of them.

use cks_fixtures::kube_api::{KubeWorld, Owner};

/// A world of `nodes` (2 CPUs, 4 GiB each; `w-1` and `w-2` among them) running the workloads.
pub fn web_world(nodes: &[&str]) -> KubeWorld {
    let world = KubeWorld::new();
    for name in nodes {
        world.add_node(name, 2, 4096);
        world.add_pod(
            "kube-system",
            &format!("proxy-{name}"),
            name,
            &[("app", "proxy")],
            Owner::DaemonSet("proxy".into()),
        );
    }
    world.add_pod("kube-system", "static-w-1", "w-1", &[], Owner::Mirror);
    for (pod, node) in [("web-1", "w-1"), ("web-2", "w-2")] {
        world.add_pod(
            "default",
            pod,
            node,
            &[("app", "web")],
            Owner::ReplicaSet("web-abc".into()),
        );
    }
    world.add_pdb("default", "web-pdb", &[("app", "web")], 1);
    world
}
