//! The Kubernetes API fake is faithful enough for the real kubectl: `get nodes -o json`,
//! `annotate`, `cordon`, `uncordon` and `drain --ignore-daemonsets --delete-emptydir-data`,
//! including a drain that a PodDisruptionBudget blocks.

use std::process::Output;

use cks_fixtures::kube_api::{KubeApiFake, KubeWorld, Owner};

use crate::kube_support::{kubectl, kubectl_ok, web_world};
use serde_json::Value;

fn ok(out: &Output) -> String {
    kubectl_ok(out)
}

/// The web workloads on three workers, plus a lone `db` pod on `w-1` whose budget needs it.
fn world() -> KubeWorld {
    let world = web_world(&["w-1", "w-2", "w-3"]);
    world.add_pod(
        "default",
        "db-1",
        "w-1",
        &[("app", "db")],
        Owner::ReplicaSet("db-abc".into()),
    );
    world.add_pdb("default", "db-pdb", &[("app", "db")], 1);
    world
}

#[test]
fn kubectl_reads_annotates_cordons_and_drains_the_fake() {
    let world = world();
    // db-1 is the only db pod and its budget needs one: drain would block on it, so move it away
    // for the first drain.
    world.lock().pods.retain(|(_, name), _| name != "db-1");
    let api = KubeApiFake::start(world.clone(), None).expect("fake starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("kubeconfig");
    api.write_kubeconfig(&config, Some("test-token"))
        .expect("kubeconfig written");
    let cache = dir.path().join("cache");

    let nodes: Value = serde_json::from_str(&ok(&kubectl(
        &config,
        &cache,
        &["get", "nodes", "-o", "json"],
    )))
    .expect("kubectl prints JSON");
    let items = nodes["items"].as_array().expect("a node list");
    assert_eq!(items.len(), 3);
    assert_eq!(
        items[0]["status"]["nodeInfo"]["bootID"],
        Value::String(world.boot_id("w-1").expect("boot id"))
    );

    ok(&kubectl(
        &config,
        &cache,
        &[
            "annotate",
            "node",
            "w-1",
            "cloudstack.apache.org/rollout-boot-id=abc",
        ],
    ));
    assert_eq!(
        world.node("w-1").expect("node")["metadata"]["annotations"]["cloudstack.apache.org/rollout-boot-id"],
        "abc"
    );
    ok(&kubectl(&config, &cache, &["cordon", "w-1"]));
    assert_eq!(
        world.node("w-1").expect("node")["spec"]["unschedulable"],
        true
    );

    let out = ok(&kubectl(
        &config,
        &cache,
        &[
            "drain",
            "w-1",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=20s",
        ],
    ));
    assert!(out.contains("node/w-1 drained"), "{out}");
    let left = world.pods_on("w-1");
    assert_eq!(
        left,
        vec!["proxy-w-1".to_string(), "static-w-1".to_string()],
        "only DaemonSet and mirror pods stay"
    );
    let requests = world.requests();
    assert!(
        requests
            .iter()
            .any(|r| r == "POST /api/v1/namespaces/default/pods/web-1/eviction"),
        "{requests:?}"
    );
    // The evicted web pod was replaced on another schedulable node.
    assert_eq!(
        world
            .lock()
            .pods
            .keys()
            .filter(|(_, n)| n.starts_with("web-abc-r"))
            .count(),
        1
    );

    ok(&kubectl(&config, &cache, &["uncordon", "w-1"]));
    assert!(
        world.node("w-1").expect("node")["spec"]
            .get("unschedulable")
            .is_none()
    );
    ok(&kubectl(
        &config,
        &cache,
        &[
            "annotate",
            "node",
            "w-1",
            "cloudstack.apache.org/rollout-boot-id-",
        ],
    ));
    assert!(
        world.node("w-1").expect("node")["metadata"]["annotations"]
            .get("cloudstack.apache.org/rollout-boot-id")
            .is_none()
    );
}

#[test]
fn kubectl_drain_is_refused_by_a_budget_the_fake_enforces() {
    let world = world();
    let api = KubeApiFake::start(world.clone(), None).expect("fake starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("kubeconfig");
    api.write_kubeconfig(&config, Some("test-token"))
        .expect("kubeconfig written");
    let cache = dir.path().join("cache");
    let out = kubectl(
        &config,
        &cache,
        &[
            "drain",
            "w-1",
            "--ignore-daemonsets",
            "--delete-emptydir-data",
            "--timeout=1s",
        ],
    );
    assert!(!out.status.success(), "the drain must not finish");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("disruption budget"), "{stderr}");
    assert!(world.pods_on("w-1").contains(&"db-1".to_string()));
}

#[test]
fn kubectl_over_tls_sends_the_token_the_fake_requires() {
    let world = world();
    world.require_token("test-token");
    let ca = cks_fixtures::tls::TestCa::new().expect("test CA");
    let api = KubeApiFake::start_with(
        world.clone(),
        None,
        Some(ca.server_config(false).expect("TLS config")),
    )
    .expect("fake starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let good = dir.path().join("good");
    api.write_kubeconfig_with(&good, Some("test-token"), Some(&ca.cert_pem()), None)
        .expect("kubeconfig written");
    let cache = dir.path().join("cache");
    ok(&kubectl(&good, &cache, &["cordon", "w-2"]));
    assert_eq!(
        world.node("w-2").expect("node")["spec"]["unschedulable"],
        true
    );

    let bad = dir.path().join("bad");
    api.write_kubeconfig_with(&bad, Some("wrong-token"), Some(&ca.cert_pem()), None)
        .expect("kubeconfig written");
    let out = kubectl(&bad, &cache, &["get", "nodes", "-o", "json"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("provide credentials") || stderr.contains("Unauthorized"),
        "{stderr}"
    );
}
