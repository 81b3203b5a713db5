//! `cks-upgrade-hook upgrade` with its preload, on real nodes (each a real sshd with its own
//! real containerd, see [`crate::preload_nodes`]): every node holds the new images before
//! CloudStack is asked, and a preload that fails stops the upgrade before it starts.

use crate::preload_nodes::Cluster;

#[test]
fn upgrade_preloads_every_node_before_calling_cloudstack() {
    let cluster = Cluster::start(2);
    // Where the node (sharing this machine's files but for its own folder) keeps provider.yaml.
    let provider = cluster.shared.join("provider.yaml").display().to_string();
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    let new = cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", "{SHA-256}11");
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    let out = cluster.hook(
        &[
            "upgrade",
            "--to",
            "1.33.1",
            "--provider-manifest",
            &provider,
        ],
        None,
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The nodes have no CKS scripts, so the refresh after the upgrade only warns.
    assert_eq!(out.status.code(), Some(0), "{text}");
    let preloaded = text
        .find("k1-node-1: sent 4 tarballs")
        .expect("preload line");
    let upgraded = text
        .find("upgraded: cluster k1 runs v1.33.1")
        .expect("upgrade line");
    assert!(preloaded < upgraded, "{text}");
    for node in &cluster.nodes {
        assert_eq!(node.images(), cluster.expected());
    }
    let calls = cluster.cloud.calls();
    assert!(
        calls
            .iter()
            .any(|c| c.to_lowercase().starts_with("upgradekubernetescluster"))
    );
    assert_eq!(
        cluster
            .cloud
            .lock()
            .kubernetes_versions
            .cluster_versions
            .get(&cluster.id),
        Some(&new)
    );
}

#[test]
fn a_failed_preload_stops_the_upgrade_before_cloudstack_is_asked() {
    let cluster = Cluster::start(1);
    let provider = cluster.shared.join("provider.yaml").display().to_string();
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", "{SHA-256}11");
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    let out = cluster.hook(
        &[
            "upgrade",
            "--to",
            "1.33.1",
            "--provider-manifest",
            &provider,
        ],
        Some("/nonexistent/ctr"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("k1-control-1: failed listing the node's images"),
        "{stderr}"
    );
    assert!(stderr.contains("the upgrade was not started"), "{stderr}");
    assert!(
        !cluster
            .cloud
            .calls()
            .iter()
            .any(|c| c.to_lowercase().starts_with("upgradekubernetescluster"))
    );
}
