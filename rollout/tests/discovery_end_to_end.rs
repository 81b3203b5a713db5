//! `cks-rollout plan` and `run` with nothing but the CloudStack credentials and the cluster's
//! SSH key (and a known_hosts for the nodes): the kubeconfig comes from
//! `getKubernetesClusterConfig`, each control node's API server is `https://<InternalIP>:6443`,
//! and etcd is checked by `etcdctl` run through `sudo` over SSH on a control node, reaching the
//! real 3-member etcd whose member names are unlike the node names. With one member stopped,
//! preflight refuses a control restart that would lose quorum.

use serde_json::Value;

use crate::discovery_support::{CONTROL, WORKERS, cluster, text};

fn stops(calls: &[String]) -> usize {
    calls
        .iter()
        .filter(|c| c.starts_with("stopvirtualmachine"))
        .count()
}

#[test]
fn plan_and_run_need_only_the_cluster_id_the_ssh_key_and_the_known_hosts() {
    let c = cluster();
    let offerings = [
        "--offering".to_string(),
        format!("control={}", c.big),
        "--offering".to_string(),
        format!("worker={}", c.big),
    ];

    let plan = c
        .rollout("plan")
        .args(&offerings)
        .arg("--json")
        .output()
        .expect("runs");
    assert!(plan.status.success(), "{}", text(&plan));
    let plan: Value = serde_json::from_slice(&plan.stdout).expect("JSON plan");
    let phases: Vec<&str> = plan["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| p["node_type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(phases, ["control", "worker"], "{plan}");
    for batch in plan["phases"][0]["batches"].as_array().expect("batches") {
        assert_eq!(batch["preflight"]["verdict"], "pass", "{batch}");
    }
    // The etcd check went over SSH as the cloud user, through sudo.
    let sessions: String = c.sshds.iter().map(|s| s.log()).collect();
    assert!(
        sessions.contains("Accepted publickey for cloud"),
        "{sessions}"
    );
    let fetched = c.cloud.calls();
    assert!(
        fetched
            .iter()
            .any(|call| call.starts_with("getkubernetesclusterconfig")),
        "{fetched:?}"
    );
    assert!(
        fetched
            .iter()
            .any(|call| call.starts_with("listportforwardingrules")),
        "{fetched:?}"
    );
    // Each control node's own API server was asked, on its InternalIP.
    let requests = c.kube.requests();
    assert!(!requests.is_empty());

    let run = c
        .rollout("run")
        .args(&offerings)
        .args(["--poll-interval", "50ms", "--drain-timeout", "30s"])
        .output()
        .expect("runs");
    let shown = text(&run);
    assert!(run.status.success(), "{shown}");
    assert!(
        shown.contains(&format!(
            "restarted {} node(s)",
            CONTROL.len() + WORKERS.len()
        )),
        "{shown}"
    );
    for name in CONTROL.iter().chain(WORKERS.iter()) {
        let vm = c.cloud.vm_named(name).expect("vm");
        assert_eq!(
            vm.service_offering_id, c.big,
            "{name} moved to the new offering"
        );
    }
    // The kubeconfig CloudStack handed out is not left behind, nor printed.
    let left: Vec<_> = std::fs::read_dir(c.tmp()).expect("tmp").collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(
        !shown.contains(crate::discovery_support::KUBE_TOKEN),
        "{shown}"
    );
}

#[test]
fn with_one_etcd_member_stopped_preflight_refuses_a_control_restart_that_loses_quorum() {
    let mut c = cluster();
    // The member on k1-control-2 (etcd-bravo) stops.
    c.etcd.stop_member(1).expect("stops");
    let before = stops(&c.cloud.calls());
    let control = format!("control={}", c.big);

    let plan = c
        .rollout("plan")
        .args(["--offering", &control])
        .output()
        .expect("runs");
    let shown = text(&plan);
    assert!(plan.status.success(), "{shown}");
    assert!(
        shown.contains("k1-control-1")
            && shown.contains("etcd quorum: 1 of the other members healthy, 2 of 3 needed"),
        "{shown}"
    );

    let run = c
        .rollout("run")
        .args(["--offering", &control, "--poll-interval", "50ms"])
        .output()
        .expect("runs");
    let shown = text(&run);
    assert!(!run.status.success(), "{shown}");
    assert!(shown.contains("etcd quorum"), "{shown}");
    assert_eq!(
        stops(&c.cloud.calls()),
        before,
        "no control VM was stopped: {shown}"
    );
    for name in CONTROL {
        assert_eq!(
            c.cloud.vm_named(name).expect("vm").service_offering_id,
            c.small
        );
    }
}

#[test]
fn help_shows_the_short_form_first_and_the_overrides_after() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .arg("--help")
        .output()
        .expect("runs");
    let help = text(&out);
    let short = help
        .find("cks-rollout plan --cluster-id X --ssh-key K --known-hosts F --offering worker=...")
        .expect("the short form");
    let overrides = help
        .find("Overrides of what is found: --kubeconfig")
        .expect("the overrides");
    assert!(short < overrides, "{help}");
    let plan = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(["plan", "--help"])
        .output()
        .expect("runs");
    let plan = text(&plan);
    for flag in [
        "--ssh-key",
        "--known-hosts",
        "--host-key-fingerprint",
        "--ssh-endpoint",
        "--etcd-pki-dir",
        "--etcdctl",
    ] {
        assert!(plan.contains(flag), "{flag}: {plan}");
    }
}

#[test]
fn pinned_host_key_fingerprints_per_node_replace_the_known_hosts_file() {
    let c = cluster();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
    cmd.current_dir(c.dir())
        .args(["plan", "--cluster-id", &c.cluster_id])
        .arg("--ssh-key")
        .arg(&c.key)
        .args(["--offering", &format!("control={}", c.big)])
        .env("CLOUDSTACK_ENDPOINT", c.cloud_api.endpoint())
        .env("CLOUDSTACK_KEY", "disc-key")
        .env("CLOUDSTACK_SECRET", "disc-secret")
        .env("TMPDIR", c.tmp())
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("KUBECONFIG");
    for (name, sshd) in CONTROL.iter().zip(&c.sshds) {
        let pin = sshd.host_fingerprint().expect("fingerprint");
        cmd.arg("--host-key-fingerprint")
            .arg(format!("{name}={pin}"));
    }
    let out = cmd.output().expect("runs");
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("phase control"), "{shown}");

    // A pin no node's key has, for every node: each is refused, and the error names the flag.
    let mut wrong = std::process::Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
    wrong
        .current_dir(c.dir())
        .args(["plan", "--cluster-id", &c.cluster_id])
        .arg("--ssh-key")
        .arg(&c.key)
        .args(["--offering", &format!("control={}", c.big)])
        .arg("--host-key-fingerprint")
        .arg(format!("SHA256:{}", "A".repeat(43)))
        .env("CLOUDSTACK_ENDPOINT", c.cloud_api.endpoint())
        .env("CLOUDSTACK_KEY", "disc-key")
        .env("CLOUDSTACK_SECRET", "disc-secret")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("KUBECONFIG");
    let out = wrong.output().expect("runs");
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("SSH to k1-control-1: host key of 127.0.0.1:")
            && shown.contains("--host-key-fingerprint"),
        "{shown}"
    );
}
