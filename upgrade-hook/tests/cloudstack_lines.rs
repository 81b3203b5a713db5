//! `cks-upgrade-hook upgrade` against the CloudStack fake playing each line the product claims
//! (4.20.0, 4.20.x, 4.22, 4.23) from CloudStack's own definitions, with `default.page.size`
//! lowered to 1: the upgrade is followed to its end, and no call the binary made (nor any field
//! the fake answered) fell outside the line.

use cks_fixtures::cloudstack_api::Line;

use crate::redeploy_from_cluster_id::{Cluster, all};

fn upgrades_on(line: Line) {
    let cluster = Cluster::start(true);
    cluster.cloud.play(line);
    if cluster.cloud.definitions().is_none() {
        cks_fixtures::skip::skip(&format!(
            "../shared/upstream/cloudstack-api not found: CloudStack {line} cannot be played"
        ));
        return;
    }
    cluster.cloud.set_max_page_size(1);
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", "{SHA-256}11");
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    std::fs::write(cluster.manifest(), "kind: Deployment\n").expect("manifest");
    let mut args = cluster.args("upgrade");
    args.extend([
        "--to".to_string(),
        "v1.33.1".to_string(),
        "--no-preload".to_string(),
    ]);
    let out = cluster.run(&args);
    assert_eq!(out.status.code(), Some(0), "{line}: {}", all(&out));
    assert_eq!(
        cluster.cloud.cluster_state(&cluster.id),
        "Running",
        "{line}"
    );
    assert_eq!(
        cluster.cloud.conformance_violations(),
        Vec::<String>::new(),
        "{line}"
    );
}

#[test]
fn upgrade_holds_to_cloudstack_4_20_0() {
    upgrades_on(Line::V4_20_0);
}

#[test]
fn upgrade_holds_to_cloudstack_4_20() {
    upgrades_on(Line::V4_20);
}

#[test]
fn upgrade_holds_to_cloudstack_4_22() {
    upgrades_on(Line::V4_22);
}

#[test]
fn upgrade_holds_to_cloudstack_4_23() {
    upgrades_on(Line::V4_23);
}
