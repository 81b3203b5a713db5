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
        .add_ready_kubernetes_version("1.33.1", &format!("{{SHA-256}}{}", cluster.sha256));
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
        .find(&format!(
            "k1-node-1: sent {} tarballs",
            cluster.images.len()
        ))
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
        .add_ready_kubernetes_version("1.33.1", &format!("{{SHA-256}}{}", cluster.sha256));
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

#[test]
fn an_iso_other_than_the_version_s_is_refused_before_a_node_or_cloudstack_is_touched() {
    let cluster = Cluster::start(1);
    let provider = cluster.shared.join("provider.yaml").display().to_string();
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    // CloudStack answers the checksum without the {SHA-256} prefix it was registered with.
    let registered = "5e".repeat(32);
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", &registered);
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    for extra in [&[][..], &["--no-preload"][..]] {
        let mut args = vec![
            "upgrade",
            "--to",
            "1.33.1",
            "--provider-manifest",
            &provider,
        ];
        args.extend_from_slice(extra);
        let out = cluster.hook(&args, None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{extra:?}: {stderr}");
        assert!(
            stderr.contains(&cluster.sha256) && stderr.contains(&registered),
            "names both sums: {stderr}"
        );
        assert!(
            stderr.contains("CloudStack holds for version v1.33.1"),
            "{stderr}"
        );
        assert!(
            !cluster
                .cloud
                .calls()
                .iter()
                .any(|c| c.to_lowercase().starts_with("upgradekubernetescluster"))
        );
        assert!(cluster.nodes[0].images().is_empty());
        assert!(!cluster.nodes[0].own.path().join("spool").exists());
        assert!(!cluster.nodes[0].own.path().join("provider.yaml").exists());
    }
}
