//! `cks-upgrade-hook redeploy-autoscaler` against the real OpenSSH server on loopback, with
//! stand-in `autoscale-kube-cluster` and `kubectl` scripts that record their arguments.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::process::{free_port, kill_pid_file};
use cks_fixtures::sshd::{Sshd, keygen};
use cks_upgrade_hook::ssh::{HostKeyPolicy, NodeAddress, SshConfig, SshRunner};
use cks_upgrade_hook::{NodeLayout, Outcome, UpgradedCluster, redeploy_after_upgrade};
use serde_json::Value;
use tempfile::TempDir;

const ID: &str = "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b";
const IMAGE: &str = "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0";
/// Put in the key file's path; must never show in any output.
const KEY_MARKER: &str = "KEYPATH-MARKER-7f3a";

const AUTOSCALE_SCRIPT: &str = r#"#!/bin/sh
dir=$(dirname "$0")
{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf ' [%s]' "$a"; done; echo; } >> "$dir/calls.log"
if [ -f "$dir/autoscale.hang" ]; then echo $$ > "$dir/hang.pid"; exec sleep 60; fi
if [ -f "$dir/autoscale.exit" ]; then
  echo "deploying the autoscaler" >&2
  echo "error: /opt/autoscaler/autoscaler_tmpl.yaml not found" >&2
  exit "$(cat "$dir/autoscale.exit")"
fi
echo "deployment.apps/cluster-autoscaler configured"
"#;

const KUBECTL_SCRIPT: &str = r#"#!/bin/sh
dir=$(dirname "$0")
{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf ' [%s]' "$a"; done; echo; } >> "$dir/calls.log"
case "$*" in
  *"rollout status"*)
    if [ -f "$dir/rollout.exit" ]; then echo "error: timed out waiting for the condition" >&2; exit "$(cat "$dir/rollout.exit")"; fi
    echo 'Waiting for deployment "cluster-autoscaler" rollout to finish: 0 of 1 updated replicas are available...'
    echo 'deployment "cluster-autoscaler" successfully rolled out' ;;
  *"get deployment"*) printf '%s' "$(cat "$dir/image")" ;;
  *) echo "unexpected kubectl call: $*" >&2; exit 9 ;;
esac
"#;

/// A node: sshd, a script directory with the stand-ins, and a client key at a marked path.
struct Node {
    sshd: Sshd,
    scripts: TempDir,
    secrets: TempDir,
}

impl Node {
    fn start() -> Node {
        let sshd = Sshd::start().expect("sshd starts");
        let scripts = tempfile::tempdir().expect("script dir");
        for (name, text) in [
            ("autoscale-kube-cluster", AUTOSCALE_SCRIPT),
            ("kubectl", KUBECTL_SCRIPT),
        ] {
            let path = scripts.path().join(name);
            fs::write(&path, text).expect("write stand-in");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        fs::write(scripts.path().join("image"), IMAGE).expect("image");
        let secrets = tempfile::Builder::new()
            .prefix(KEY_MARKER)
            .tempdir()
            .expect("key dir");
        let key = secrets.path().join(format!("id-{KEY_MARKER}"));
        fs::copy(sshd.client_key(), &key).expect("copy key");
        fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).expect("chmod key");
        Node {
            sshd,
            scripts,
            secrets,
        }
    }

    fn key(&self) -> PathBuf {
        self.secrets.path().join(format!("id-{KEY_MARKER}"))
    }

    fn set(&self, file: &str, text: &str) {
        fs::write(self.scripts.path().join(file), text).expect("write control file");
    }

    fn calls(&self) -> Vec<String> {
        fs::read_to_string(self.scripts.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The arguments every run shares: where the node is and how to log in.
    fn base_args(&self, port: u16, key: &Path) -> Vec<String> {
        vec![
            "redeploy-autoscaler".into(),
            "--cluster-id".into(),
            ID.into(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            port.to_string(),
            "--user".into(),
            self.sshd.user().into(),
            "--key".into(),
            key.display().to_string(),
            "--script-dir".into(),
            self.scripts.path().display().to_string(),
            "--no-sudo".into(),
            "--json".into(),
        ]
    }

    /// The usual run: enabled, 1..5, trusting the real host key.
    fn args(&self) -> Vec<String> {
        let mut args = self.base_args(self.sshd.port(), &self.key());
        args.extend(["--min", "1", "--max", "5", "--known-hosts"].map(String::from));
        args.push(
            self.sshd
                .known_hosts()
                .expect("known_hosts")
                .display()
                .to_string(),
        );
        args
    }

    /// Every secret-looking string: the key file's path marker and each line of its contents.
    fn secrets(&self, keys: &[PathBuf]) -> Vec<String> {
        let mut secrets = vec![KEY_MARKER.to_string()];
        for key in keys {
            let text = fs::read_to_string(key).expect("read key");
            secrets.extend(
                text.lines()
                    .filter(|line| !line.starts_with("-----") && line.len() > 16)
                    .map(str::to_string),
            );
        }
        secrets
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        kill_pid_file(&self.scripts.path().join("hang.pid"));
    }
}

struct Run {
    code: Option<i32>,
    json: Value,
    all_output: String,
}

fn hook(args: &[String]) -> Run {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(args)
        .output()
        .expect("cks-upgrade-hook runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!("stdout is not JSON ({error}):\n{stdout}\nstderr:\n{stderr}")
    });
    Run {
        code: output.status.code(),
        json,
        all_output: format!("{stdout}{stderr}"),
    }
}

fn assert_no_secret(run: &Run, secrets: &[String]) {
    for secret in secrets {
        assert!(
            !run.all_output.contains(secret.as_str()),
            "output leaks {secret:?}:\n{}",
            run.all_output
        );
    }
}

fn with(mut args: Vec<String>, extra: &[&str]) -> Vec<String> {
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

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
fn sshd_not_running_is_connection_refused() {
    let node = Node::start();
    let port = free_port().expect("free port");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--insecure-host-key",
            "--strict",
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["cause"]["kind"], "transport");
    assert_eq!(run.json["cause"]["error"]["cause"], "connection_refused");
    assert_eq!(
        run.json["cause"]["error"]["target"],
        format!("127.0.0.1:{port}")
    );
    assert_no_secret(&run, &node.secrets(&[node.key()]));

    // The same with a pinned fingerprint, where the host key is scanned first.
    let fingerprint = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--host-key-fingerprint",
            &fingerprint,
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connection_refused",
        "{}",
        run.all_output
    );
}

#[test]
fn a_wrong_key_is_an_authentication_failure() {
    let node = Node::start();
    let wrong = node.secrets.path().join(format!("wrong-{KEY_MARKER}"));
    keygen(&wrong).expect("second key");
    let mut args = node.base_args(node.sshd.port(), &wrong);
    args.extend(["--min", "1", "--max", "5", "--strict", "--known-hosts"].map(String::from));
    args.push(
        node.sshd
            .known_hosts()
            .expect("known_hosts")
            .display()
            .to_string(),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["cause"]["error"]["cause"], "authentication");
    assert_eq!(run.json["cause"]["error"]["user"], node.sshd.user());
    assert!(node.calls().is_empty());
    assert_no_secret(&run, &node.secrets(&[node.key(), wrong]));
}

#[test]
fn an_unknown_host_key_is_refused() {
    let node = Node::start();
    let empty = node.secrets.path().join("empty_known_hosts");
    fs::write(&empty, "").expect("empty known_hosts");
    // A known_hosts trusting some other key for this host and port.
    let other_key = node.secrets.path().join("other_host");
    keygen(&other_key).expect("other host key");
    let other_pub = fs::read_to_string(other_key.with_extension("pub")).expect("pub");
    let mut fields = other_pub.split_whitespace();
    let (kind, blob) = (fields.next().expect("type"), fields.next().expect("blob"));
    let other = node.secrets.path().join("other_known_hosts");
    fs::write(
        &other,
        format!("[127.0.0.1]:{} {kind} {blob}\n", node.sshd.port()),
    )
    .expect("write");

    let real = node.sshd.host_fingerprint().expect("fingerprint");
    let changed =
        format!("has changed and you have requested strict checking. The server sent {real}.");
    for (file, says) in [
        (&empty, "No ED25519 host key is known"),
        (&other, changed.as_str()),
    ] {
        let mut args = node.base_args(node.sshd.port(), &node.key());
        args.extend(["--min", "1", "--max", "5", "--strict", "--known-hosts"].map(String::from));
        args.push(file.display().to_string());
        let run = hook(&args);
        assert_eq!(run.code, Some(1), "{}", run.all_output);
        assert_eq!(
            run.json["cause"]["error"]["cause"], "host_key_rejected",
            "{}",
            run.all_output
        );
        let detail = run.json["cause"]["error"]["detail"]
            .as_str()
            .expect("detail");
        assert!(detail.contains(says), "{detail}");
        assert_no_secret(&run, &node.secrets(&[node.key()]));
    }
    assert!(
        node.calls().is_empty(),
        "nothing may run on an unverified host"
    );
}

#[test]
fn the_pinned_fingerprint_is_checked() {
    let node = Node::start();
    let right = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(node.sshd.port(), &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--strict",
            "--host-key-fingerprint",
            &right,
        ]
        .map(String::from),
    );
    let ok = hook(&args);
    assert_eq!(ok.code, Some(0), "{}", ok.all_output);
    assert_eq!(ok.json["outcome"], "redeployed");
    assert_eq!(node.calls().len(), 3);

    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let mut args = node.base_args(node.sshd.port(), &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--strict",
            "--host-key-fingerprint",
            wrong,
        ]
        .map(String::from),
    );
    let refused = hook(&args);
    assert_eq!(refused.code, Some(1), "{}", refused.all_output);
    assert_eq!(refused.json["cause"]["error"]["cause"], "host_key_rejected");
    let detail = refused.json["cause"]["error"]["detail"]
        .as_str()
        .expect("detail");
    assert!(
        detail.contains(wrong) && detail.contains(&right),
        "{detail}"
    );
    assert_eq!(node.calls().len(), 3, "nothing more ran after the refusal");
}

#[test]
fn a_command_that_hangs_past_the_timeout_is_stopped() {
    let node = Node::start();
    node.set("autoscale.hang", "");
    let args = with(
        node.args(),
        &["--timeout", "2", "--rollout-timeout", "1", "--strict"],
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["step"], "redeploy");
    assert_eq!(run.json["cause"]["error"]["cause"], "command_timeout");
    assert_eq!(run.json["cause"]["error"]["after_secs"], 2);
    assert_no_secret(&run, &node.secrets(&[node.key()]));
}

#[test]
fn a_server_that_never_answers_hits_the_connect_timeout() {
    let node = Node::start();
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--insecure-host-key",
            "--connect-timeout",
            "1",
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(0), "{}", run.all_output);
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connect_timeout",
        "{}",
        run.all_output
    );

    // With a pinned fingerprint the host key scan is what times out.
    let fingerprint = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--connect-timeout",
            "1",
            "--host-key-fingerprint",
            &fingerprint,
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connect_timeout",
        "{}",
        run.all_output
    );
    drop(silent);
}

#[test]
fn bad_arguments_exit_2_with_a_clear_message() {
    let node = Node::start();
    let mut args = node.args();
    let id = args.iter().position(|a| a == ID).expect("id arg");
    args[id] = "not-a-uuid".to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--cluster-id") && stderr.contains("not a UUID"),
        "{stderr}"
    );

    let mut args = node.args();
    let min = args.iter().position(|a| a == "--min").expect("--min") + 1;
    args[min] = "6".to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("minimum size 6 is above the maximum 5"),
        "{stderr}"
    );
    assert!(node.calls().is_empty());
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
