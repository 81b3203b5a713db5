//! `cks-upgrade-hook redeploy-autoscaler` and the library against the real OpenSSH server on
//! loopback: redeployed, skipped, and failed on the node.

use cks_upgrade_hook::ssh::{HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
use cks_upgrade_hook::{NodeLayout, Outcome, UpgradedCluster, redeploy_after_upgrade};
use std::process::Command;

use crate::common::*;

#[test]
fn redeploys_with_the_cks_arguments_and_reports_the_image() {
    let node = Node::start();
    let run = hook(&node.args());
    assert_eq!(
        run.code,
        Some(0),
        "{}\nsshd log:\n{}",
        run.all_output,
        node.sshd.log()
    );
    assert_eq!(run.json["outcome"], "redeployed", "{}", run.all_output);
    assert_eq!(run.json["images"], serde_json::json!([IMAGE]));
    assert_eq!(
        run.json["rollout_status"],
        "deployment \"cluster-autoscaler\" successfully rolled out"
    );
    assert_eq!(
        node.calls(),
        [
            format!("autoscale-kube-cluster [-i] [{ID}] [-e] [-M] [5] [-m] [1]"),
            "kubectl [-n] [kube-system] [rollout] [status] [deployment/cluster-autoscaler] [--timeout=120s]"
                .to_string(),
            "kubectl [-n] [kube-system] [get] [deployment] [cluster-autoscaler] [-o] \
             [jsonpath={.spec.template.spec.containers[*].image}]"
                .to_string(),
        ]
    );
    assert_no_secret(&run, &node.secrets(&[node.key()]));
}

#[test]
fn prints_a_readable_outcome_without_json() {
    let node = Node::start();
    let args: Vec<String> = node.args().into_iter().filter(|a| a != "--json").collect();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout.trim(),
        format!(
            "redeployed: the cluster autoscaler runs {IMAGE} (deployment \"cluster-autoscaler\" successfully rolled out)"
        )
    );
}

#[test]
fn skips_for_each_reason_without_touching_the_node() {
    let node = Node::start();
    let known_hosts = node
        .sshd
        .known_hosts()
        .expect("known_hosts")
        .display()
        .to_string();
    let base = with(
        node.base_args(node.sshd.port(), &node.key()),
        &["--known-hosts", &known_hosts],
    );
    for (extra, reason) in [
        (
            &["--disabled", "--min", "1", "--max", "5"][..],
            "autoscaling_disabled",
        ),
        (&["--max", "5"][..], "min_size_unset"),
        (&["--min", "1"][..], "max_size_unset"),
    ] {
        let run = hook(&with(base.clone(), extra));
        assert_eq!(run.code, Some(0), "{}", run.all_output);
        assert_eq!(run.json["outcome"], "skipped");
        assert_eq!(run.json["reason"], reason);
    }
    assert!(
        node.calls().is_empty(),
        "nothing may run: {:?}",
        node.calls()
    );
}

#[test]
fn a_remote_exit_1_is_a_warning_unless_strict() {
    let node = Node::start();
    node.set("autoscale.exit", "1");
    for (strict, code) in [(false, 0), (true, 1)] {
        let args = if strict {
            with(node.args(), &["--strict"])
        } else {
            node.args()
        };
        let run = hook(&args);
        assert_eq!(run.code, Some(code), "{}", run.all_output);
        assert_eq!(run.json["outcome"], "failed");
        assert_eq!(run.json["step"], "redeploy");
        assert_eq!(run.json["cause"]["kind"], "remote_exit");
        assert_eq!(run.json["cause"]["code"], 1);
        assert_eq!(
            run.json["cause"]["stderr_tail"],
            serde_json::json!([
                "deploying the autoscaler",
                "error: /opt/autoscaler/autoscaler_tmpl.yaml not found"
            ])
        );
        assert_no_secret(&run, &node.secrets(&[node.key()]));
    }
    // The rollout was never asked about.
    assert_eq!(node.calls().len(), 2);
}

#[test]
fn a_failed_rollout_is_reported_at_its_step() {
    let node = Node::start();
    node.set("rollout.exit", "1");
    let run = hook(&node.args());
    assert_eq!(run.code, Some(0));
    assert_eq!(run.json["step"], "rollout_status");
    assert_eq!(run.json["cause"]["code"], 1);
    assert_eq!(
        run.json["cause"]["stderr_tail"][0],
        "error: timed out waiting for the condition"
    );
}

#[test]
fn the_library_redeploys_through_the_real_ssh_runner() {
    let node = Node::start();
    let mut cluster = UpgradedCluster::new(ID, true, Some(2), Some(7));
    cluster.layout =
        NodeLayout::new(&node.scripts.path().display().to_string(), false).expect("layout");
    let address = NodeAddress::BehindNat {
        public_address: "127.0.0.1".to_string(),
        port: node.sshd.port(),
    };
    let policy = HostKeyPolicy::KnownHosts {
        path: node.sshd.known_hosts().expect("known_hosts"),
    };
    let runner = SshRunner::new(SshConfig::new(
        address,
        node.sshd.user(),
        &node.key(),
        policy,
    ));
    let outcome = redeploy_after_upgrade(&cluster, &runner);
    let Outcome::Redeployed {
        command, images, ..
    } = &outcome
    else {
        panic!("expected a redeploy, got {outcome}");
    };
    assert!(
        command.ends_with(&format!("/autoscale-kube-cluster -i {ID} -e -M 7 -m 2")),
        "{command}"
    );
    assert_eq!(images, &[IMAGE.to_string()]);
    assert_eq!(
        node.calls()[0],
        format!("autoscale-kube-cluster [-i] [{ID}] [-e] [-M] [7] [-m] [2]")
    );
    let debug = format!("{outcome:?} {outcome}");
    assert!(!debug.contains(KEY_MARKER), "{debug}");
}

#[test]
fn key_and_known_hosts_paths_with_ssh_tokens_work() {
    let node = Node::start();
    let odd = node.secrets.path().join("odd %d ${HOME} ~dir");
    std::fs::create_dir(&odd).expect("odd dir");
    let key = odd.join("id %h");
    std::fs::copy(node.key(), &key).expect("copy key");
    let known_hosts = odd.join("known hosts %u");
    std::fs::copy(node.sshd.known_hosts().expect("known_hosts"), &known_hosts).expect("copy");
    let mut args = node.base_args(node.sshd.port(), &key);
    args.extend(["--min", "1", "--max", "5", "--strict", "--known-hosts"].map(String::from));
    args.push(known_hosts.display().to_string());
    let run = hook(&args);
    assert_eq!(run.code, Some(0), "{}", run.all_output);
    assert_eq!(run.json["outcome"], "redeployed", "{}", run.all_output);
}

#[test]
fn a_short_timeout_alone_shortens_the_rollout_wait_to_fit() {
    let node = Node::start();
    let run = hook(&with(node.args(), &["--timeout", "20s"]));
    assert_eq!(run.code, Some(0), "{}", run.all_output);
    assert_eq!(run.json["outcome"], "redeployed", "{}", run.all_output);
    assert_eq!(
        node.calls()[1],
        "kubectl [-n] [kube-system] [rollout] [status] [deployment/cluster-autoscaler] [--timeout=18s]"
    );
}

#[test]
fn an_explicit_rollout_wait_longer_than_the_timeout_is_refused() {
    let node = Node::start();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(with(
            node.args(),
            &["--timeout", "20s", "--rollout-timeout", "30s"],
        ))
        .output()
        .expect("cks-upgrade-hook runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--rollout-timeout 30 must be at least 1 and less than --timeout 20"),
        "{stderr}"
    );
    assert!(node.calls().is_empty(), "nothing ran on the node");
}
