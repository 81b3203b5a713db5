//! The live `cks-rollout` commands against the CloudStack and Kubernetes fakes with a real etcd:
//! `apply --no-rollout` stores only, `--affinity-groups worker=` and bad control values are
//! refused before anything is reached, and `status` says Running or Alert and why.

use std::process::{Command, Output};

use crate::adapter_support::{Cluster, cluster};
use cks_rollout::adapters::store::SqliteStore;
use cks_rollout::model::{ClusterState, NodeType};
use cks_rollout::ports::Store;

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `cks-rollout COMMAND` on the fake cluster `c`.
pub fn live(c: &Cluster, command: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
    cmd.arg(command)
        .args(["--cluster-id", &c.cluster_id])
        .arg("--store")
        .arg(&c.store_path)
        .arg("--kubeconfig")
        .arg(&c.kubeconfig)
        .env("CLOUDSTACK_ENDPOINT", &c.cloud_endpoint)
        .env("CLOUDSTACK_KEY", "e2e-key")
        .env("CLOUDSTACK_SECRET", "e2e-secret")
        .env("CLOUDSTACK_POLL_INTERVAL", "0.01")
        .env_remove("CLOUDSTACK_CONFIG");
    for (node, url) in &c.control {
        cmd.arg("--control-endpoint").arg(format!("{node}={url}"));
    }
    for m in &c.etcd.members {
        cmd.arg("--etcd-endpoint")
            .arg(format!("{}={}", m.name, m.client_url));
    }
    cmd
}

fn changing_calls(c: &Cluster) -> Vec<String> {
    c.cloud
        .calls()
        .into_iter()
        .filter(|call| {
            let call = call.to_lowercase();
            [
                "stopvirtualmachine",
                "startvirtualmachine",
                "scalevirtualmachine",
                "changeserviceforvirtualmachine",
                "resizevolume",
                "updatevmaffinitygroup",
            ]
            .iter()
            .any(|c| call.starts_with(c))
        })
        .collect()
}

#[test]
fn apply_no_rollout_stores_the_settings_reports_the_out_of_date_counts_and_touches_no_node() {
    let c = cluster();
    let out = live(&c, "apply")
        .arg("--no-rollout")
        .arg("--offering")
        .arg(format!("worker={}", c.big))
        .output()
        .expect("runs");
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    // The settings stay in this tool's store only: CloudStack gives the nodes it creates later
    // its own settings (not "the settings for nodes created from now on").
    assert!(
        shown.contains("stored the settings in the cks-rollout store; no node was touched")
            && shown
                .contains("nodes it creates later (a scale, the autoscaler) get CloudStack's own"),
        "{shown}"
    );
    assert!(
        shown.contains("out of date: control 0, worker 6, etcd 0"),
        "{shown}"
    );
    assert!(changing_calls(&c).is_empty(), "{:?}", changing_calls(&c));
    let record = SqliteStore::open(&c.store_path)
        .expect("store")
        .load(&c.cluster_id)
        .expect("record");
    assert_eq!(record.state, ClusterState::Running);
    assert_eq!(record.offering_for(NodeType::Worker), c.big);
    for name in crate::adapter_support::WORKERS {
        let node = c.kube.node(name).expect("node");
        assert!(
            node["spec"].get("unschedulable").is_none(),
            "{name} cordoned"
        );
    }
}

#[test]
fn an_empty_affinity_group_list_is_refused_at_the_argument_naming_nodeaffinitygroups() {
    let c = cluster();
    let before = c.cloud.calls().len();
    for command in ["run", "plan"] {
        let out = live(&c, command)
            .args(["--affinity-groups", "worker="])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("nodeaffinitygroups"), "{}", text(&out));
    }
    assert_eq!(c.cloud.calls().len(), before, "CloudStack was not called");
}

#[test]
fn a_bad_control_value_is_refused_before_cloudstack_is_asked() {
    let c = cluster();
    let before = c.cloud.calls().len();
    for (args, says) in [
        (
            &["--lease-timeout", "1s"][..],
            "set --lease-timeout to at least 20 s",
        ),
        (&["--maxunavailable", "0"][..], "must be at least 1"),
        (
            &["--gate", "true", "--gate-env", "NOT A NAME"][..],
            "--gate-env \"NOT A NAME\": not the name of an environment variable",
        ),
        (
            &["--gate", "true", "--gate-timeout", "0s"][..],
            "--gate-timeout is 0",
        ),
        (
            &["--webhook", "ftp://hooks.example/x"][..],
            "expected an http:// or https:// URL",
        ),
        (
            &["--control-endpoint", "k1-control-1=ftp://10.0.0.1:6443"][..],
            "the URL must start with https://",
        ),
    ] {
        let out = live(&c, "run")
            .args(["--offering", &format!("worker={}", c.big)])
            .args(args)
            .output()
            .expect("runs");
        // A bad value of a flag is bad input: status 2, as for every binary.
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(says), "{says}: {}", text(&out));
    }
    assert_eq!(c.cloud.calls().len(), before, "CloudStack was not called");
}

#[test]
fn status_says_running_or_alert_and_why() {
    let c = cluster();
    let mut store = SqliteStore::open(&c.store_path).expect("store");
    store
        .set_last_error(&c.cluster_id, Some("batch 1: drain of k1-node-1 blocked"))
        .expect("lasterror");
    let out = live(&c, "status").output().expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(
            "Running; last error: batch 1: drain of k1-node-1 blocked (no node was left down)"
        ),
        "{}",
        text(&out)
    );

    assert!(
        store
            .compare_and_set_state(
                &c.cluster_id,
                ClusterState::Running,
                ClusterState::Alert,
                None
            )
            .expect("state")
    );
    {
        let mut cloud = c.cloud.lock();
        let vm = cloud
            .vms
            .values_mut()
            .find(|v| v.name == "k1-node-2")
            .expect("k1-node-2");
        vm.state = "Stopped".to_string();
    }
    let out = live(&c, "status").output().expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Alert: VM of k1-node-2 is Stopped"),
        "{}",
        text(&out)
    );
}
