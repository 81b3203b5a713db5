//! What `cks-upgrade-hook` prints is safe for a terminal and warns as the other binaries do:
//! CloudStack's error text reaches stderr with its control characters escaped, and a plain
//! `http://` endpoint off this host is warned about once.

use std::process::Command;

use crate::redeploy_from_cluster_id::{API_KEY, Cluster, SECRET_KEY, all};

#[test]
fn cloudstacks_error_text_is_printed_with_its_escape_sequences_escaped() {
    let cluster = Cluster::start(true);
    let old = cluster
        .cloud
        .add_ready_kubernetes_version("1.32.4", "{SHA-256}00");
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.1", "{SHA-256}11");
    cluster.cloud.set_cluster_version(&cluster.id, &old);
    // Text that would retitle the terminal, clear it and turn it red.
    cluster
        .cloud
        .fail_next_upgrade("Failed\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31m on VM k1-node-1");
    let mut args = cluster.args("upgrade");
    args.extend(["--to", "1.33.1", "--no-preload"].map(str::to_string));
    let out = cluster.run(&args);
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CloudStack says: Failed\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{1b}[31m on VM"),
        "{stderr}"
    );
    assert!(
        !out.stderr.contains(&0x1b) && !out.stdout.contains(&0x1b),
        "no raw escape reaches the terminal: {stderr}"
    );
}

#[test]
fn a_plain_http_endpoint_off_this_host_is_warned_about_once() {
    let cluster = Cluster::start(true);
    let out = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(cluster.args("redeploy"))
        .env(
            "CLOUDSTACK_ENDPOINT",
            "http://cloudstack.invalid/client/api",
        )
        .env("CLOUDSTACK_KEY", API_KEY)
        .env("CLOUDSTACK_SECRET", SECRET_KEY)
        .env_remove("CLOUDSTACK_CONFIG")
        .output()
        .expect("cks-upgrade-hook runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = stderr
        .lines()
        .filter(|l| {
            l.starts_with("cks-upgrade-hook: warning: the CloudStack endpoint http://cloudstack.invalid/client/api is plain http://")
        })
        .count();
    assert_eq!(warned, 1, "{stderr}");
    assert!(stderr.contains("unencrypted"), "{stderr}");

    let quiet = cluster.run(&cluster.args("redeploy"));
    assert!(
        !String::from_utf8_lossy(&quiet.stderr).contains("plain http://"),
        "a loopback endpoint is not warned about: {}",
        all(&quiet)
    );
}
