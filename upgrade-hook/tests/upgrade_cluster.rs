//! `cks-upgrade-hook upgrade --cluster-id X --to VERSION` against the CloudStack fake (its
//! `upgradeKubernetesCluster` and job checked by the real `cs` client) and a real sshd node:
//! refused before CloudStack is asked when the cluster or the version does not allow it; the
//! job followed and the cloud controller manager refreshed after it; a failed job reported with
//! CloudStack's own error and the state it left.

use std::process::Command;

use crate::redeploy_from_cluster_id::{API_KEY, Cluster, SECRET_KEY, all, assert_clean, json};

/// A cluster on 1.32.4 with 1.33.1 registered and Ready.
fn cluster() -> (Cluster, String, String) {
    let cluster = Cluster::start(true);
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    let new = cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", "{SHA-256}11");
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    std::fs::write(cluster.manifest(), "kind: Deployment\n").expect("manifest");
    (cluster, old, new)
}

fn upgrade_args(cluster: &Cluster, to: &str) -> Vec<String> {
    let mut args = cluster.args("upgrade");
    args.extend([
        "--to".to_string(),
        to.to_string(),
        "--no-preload".to_string(),
    ]);
    args
}

fn upgrade_calls(cluster: &Cluster) -> usize {
    cluster
        .cloud
        .calls()
        .iter()
        .filter(|c| c.to_lowercase().starts_with("upgradekubernetescluster"))
        .count()
}

#[test]
fn upgrades_follows_the_job_then_refreshes_the_ccm() {
    let (cluster, _, new) = cluster();
    let out = cluster.run(&upgrade_args(&cluster, "v1.33.1"));
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("upgraded: cluster k1 runs v1.33.1"),
        "{stderr}"
    );
    let value = json(&out);
    assert_eq!(value["provider"]["outcome"], "refreshed", "{value}");
    assert_eq!(value["autoscaler"]["reason"], "autoscaling_disabled");
    assert_eq!(upgrade_calls(&cluster), 1);
    assert_eq!(cluster.cloud.cluster_state(&cluster.id), "Running");
    let listed = cs(
        &cluster,
        &["listKubernetesClusters", &format!("id={}", cluster.id)],
    );
    assert_eq!(
        json(&listed)["kubernetescluster"][0]["kubernetesversionid"],
        serde_json::Value::String(new)
    );
    assert_clean(&out, &cluster.secrets());
}

#[test]
fn a_project_clusters_upgrade_finds_its_control_node_and_refreshes_the_ccm() {
    let (cluster, _, _) = cluster();
    let project = cluster.cloud.give_cluster_to_project(&cluster.id, "team");
    let out = cluster.run(&upgrade_args(&cluster, "v1.33.1"));
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    assert_eq!(json(&out)["provider"]["outcome"], "refreshed");
    assert!(
        !cluster.node.calls().is_empty(),
        "the control node was reached"
    );
    let calls = cluster.cloud.calls();
    for command in ["listvirtualmachines", "listportforwardingrules"] {
        assert!(
            calls
                .iter()
                .any(|c| c.starts_with(command) && c.contains(&format!("projectid={project}"))),
            "{command} names the project: {calls:#?}"
        );
    }
    assert_clean(&out, &cluster.secrets());
}

#[test]
fn refuses_a_cluster_not_running_and_a_version_not_newer_or_unknown() {
    let (cluster, old, _) = cluster();
    for (to, says) in [
        (old.as_str(), "is not newer than the cluster's 1.32.4"),
        ("1.99.0", "--to 1.99.0: no registered Kubernetes version"),
    ] {
        let out = cluster.run(&upgrade_args(&cluster, to));
        assert_eq!(out.status.code(), Some(3), "{}", all(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{}",
            all(&out)
        );
    }
    cluster.cloud.set_cluster_state(&cluster.id, "Alert");
    let out = cluster.run(&upgrade_args(&cluster, "1.33.1"));
    assert_eq!(out.status.code(), Some(3), "{}", all(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is Alert, not Running"));
    assert_eq!(upgrade_calls(&cluster), 0, "CloudStack is not asked");
    assert!(cluster.node.calls().is_empty());
}

#[test]
fn a_failed_upgrade_says_cloudstacks_error_and_the_state_it_left() {
    let (cluster, _, _) = cluster();
    let text = "Failed to upgrade Kubernetes cluster : k1 as unable to upgrade Kubernetes node on VM : k1-node-1";
    cluster.cloud.fail_next_upgrade(text);
    let out = cluster.run(&upgrade_args(&cluster, "1.33.1"));
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("CloudStack says: {text}")),
        "{stderr}"
    );
    assert!(stderr.contains("is now Alert"), "{stderr}");
    assert!(
        cluster.node.calls().is_empty(),
        "no refresh after a failed upgrade"
    );
    assert_clean(&out, &cluster.secrets());
}

fn cs(cluster: &Cluster, args: &[&str]) -> std::process::Output {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("home");
    Command::new(program)
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", cluster.api.endpoint())
        .env("CLOUDSTACK_KEY", API_KEY)
        .env("CLOUDSTACK_SECRET", SECRET_KEY)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .output()
        .expect("cs runs")
}

#[test]
fn cs_reads_the_upgrade_job_its_result_and_its_failure() {
    let (cluster, _, new) = cluster();
    let id = format!("id={}", cluster.id);
    let version = format!("kubernetesversionid={new}");
    cluster
        .cloud
        .fail_next_upgrade("unable to upgrade Kubernetes node on VM : k1-node-1");
    let failed = cs(&cluster, &["upgradeKubernetesCluster", &id, &version]);
    assert!(!failed.status.success());
    assert!(
        all(&failed).contains("unable to upgrade Kubernetes node"),
        "{}",
        all(&failed)
    );
    assert_eq!(cluster.cloud.cluster_state(&cluster.id), "Alert");
    let refused = cs(&cluster, &["upgradeKubernetesCluster", &id, &version]);
    assert!(!refused.status.success());
    assert!(
        all(&refused).contains("is not in running state"),
        "{}",
        all(&refused)
    );
    cluster.cloud.set_cluster_state(&cluster.id, "Running");
    let done = cs(&cluster, &["upgradeKubernetesCluster", &id, &version]);
    assert!(done.status.success(), "{}", all(&done));
    let result = json(&done);
    assert_eq!(result["kubernetescluster"]["state"], "Running", "{result}");
    assert_eq!(
        result["kubernetescluster"]["kubernetesversionid"],
        serde_json::Value::String(new)
    );
}
