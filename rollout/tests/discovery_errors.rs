//! Each piece discovery cannot find is a one-line error naming what is missing and the flag
//! that supplies it: no kubeconfig in CloudStack, a port-forwarding rule absent, SSH refused,
//! a host key not trusted, etcdctl not installed on the node, the etcd certificates unreadable;
//! and a node and a VM that do not match block only the rollout of their own type.

use std::process::Output;

use crate::discovery_support::{Variant, cluster, cluster_with};

fn refused(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    assert!(!stderr.contains('\n'), "one line: {stderr}");
    assert!(stderr.starts_with("cks-rollout: "), "{stderr}");
    stderr
}

fn plan(c: &crate::discovery_support::Cluster) -> Output {
    c.rollout("plan")
        .args(["--offering", &format!("worker={}", c.big)])
        .output()
        .expect("runs")
}

#[test]
fn no_kubeconfig_in_cloudstack_names_the_kubeconfig_flag() {
    let c = cluster_with(&Variant {
        no_kubeconfig: true,
        ..Default::default()
    });
    let line = refused(&plan(&c));
    assert!(
        line.contains(&format!(
            "CloudStack has no kubeconfig for cluster {}",
            c.cluster_id
        )) && line.contains("pass --kubeconfig FILE"),
        "{line}"
    );
}

#[test]
fn an_absent_port_forwarding_rule_names_the_node_and_the_ssh_endpoint_flag() {
    let c = cluster_with(&Variant {
        no_rule_for: Some(1),
        ..Default::default()
    });
    let line = refused(&plan(&c));
    assert!(
        line.contains("no port-forwarding rule on 127.0.0.1 leads to port 22 of k1-control-2")
            && line.contains("--ssh-endpoint k1-control-2=HOST:PORT"),
        "{line}"
    );
}

#[test]
fn ssh_refused_and_an_unknown_host_key_name_their_flags() {
    let mut c = cluster();
    // An empty known_hosts: no node's key is trusted.
    let empty = c.dir().join("empty_known_hosts");
    std::fs::write(&empty, "").expect("empty known_hosts");
    let out = c
        .rollout_trusting("plan", &empty)
        .args(["--offering", &format!("worker={}", c.big)])
        .output()
        .expect("runs");
    let line = refused(&out);
    assert!(
        line.contains("SSH to k1-control-1: host key of 127.0.0.1:")
            && line.contains("--known-hosts file or pin it with --host-key-fingerprint"),
        "{line}"
    );

    for sshd in &mut c.sshds {
        sshd.stop();
    }
    let line = refused(&plan(&c));
    assert!(
        line.contains("SSH to k1-control-1 refused")
            && line.contains("--ssh-endpoint k1-control-1=HOST:PORT"),
        "{line}"
    );
}

#[test]
fn etcdctl_missing_on_the_node_names_the_etcdctl_flag() {
    let c = cluster_with(&Variant {
        no_etcdctl: true,
        ..Default::default()
    });
    let line = refused(&plan(&c));
    assert!(
        line.contains("etcdctl is not installed on k1-control-1")
            && line.contains("--etcdctl PATH"),
        "{line}"
    );
}

#[test]
fn unreadable_etcd_certificates_name_the_pki_dir_flag() {
    let c = cluster_with(&Variant {
        no_certificates: true,
        ..Default::default()
    });
    let line = refused(&plan(&c));
    assert!(
        line.contains("etcdctl on k1-control-1 could not read the etcd client certificates in /etc/kubernetes/pki/etcd")
            && line.contains("--etcd-pki-dir DIR"),
        "{line}"
    );
}

#[test]
fn a_node_and_a_vm_that_do_not_match_block_only_the_rollout_of_their_type() {
    let c = cluster_with(&Variant {
        stray_worker: true,
        ..Default::default()
    });
    // Same names, different addresses: the worker k1-node-2 and its VM are not matched.
    let line = refused(&plan(&c));
    assert!(
        line.contains("cannot roll out the worker nodes: VM k1-node-2 has no Kubernetes node")
            && line.contains("node k1-node-2 has no VM in the cluster"),
        "{line}"
    );
    let control = c
        .rollout("plan")
        .args(["--offering", &format!("control={}", c.big)])
        .output()
        .expect("runs");
    let shown = String::from_utf8_lossy(&control.stderr).to_string();
    assert!(control.status.success(), "{shown}");
    assert!(
        shown.contains("note: worker nodes: VM k1-node-2 has no Kubernetes node"),
        "{shown}"
    );
}
