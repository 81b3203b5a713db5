//! The workloads the Kubernetes adapter tests drain: on every node a DaemonSet proxy pod, on
//! `w-1` a mirror (static) pod, and two `web` pods (on `w-1` and `w-2`) under a
//! PodDisruptionBudget that needs one of them; and the real kubectl run against a fake.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::kube_api::{KubeWorld, Owner};

/// Runs the real `kubectl ARGS` with `kubeconfig`, its cache and `HOME` in `cache`.
pub fn kubectl(kubeconfig: &Path, cache: &Path, args: &[&str]) -> Output {
    let program =
        cks_fixtures::process::require_program("kubectl", "kubectl").expect("kubectl installed");
    Command::new(program)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .env("HOME", cache)
        .output()
        .expect("kubectl runs")
}

/// What a successful kubectl printed; fails the test with its output otherwise.
pub fn kubectl_ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "kubectl failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
