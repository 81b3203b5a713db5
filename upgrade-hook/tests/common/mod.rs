//! A CKS control node for the tests: the real sshd on loopback, stand-in
//! `autoscale-kube-cluster` and `kubectl` scripts that record their arguments, a client key at a
//! path carrying a marker that must never show in any output, and a way to run the CLI.
#![allow(dead_code)] // each test file uses part of it

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::process::kill_pid_file;
use cks_fixtures::sshd::Sshd;
use serde_json::Value;
use tempfile::TempDir;

pub const ID: &str = "2f9c1e3a-5b7d-4c1e-9a0b-1c2d3e4f5a6b";
pub const IMAGE: &str = "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0";
pub const CCM_IMAGE: &str = "apache/cloudstack-kubernetes-provider:v1.2.0";
/// Put in the key file's path; must never show in any output.
pub const KEY_MARKER: &str = "KEYPATH-MARKER-7f3a";

pub const AUTOSCALE_SCRIPT: &str = r#"#!/bin/sh
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

pub const KUBECTL_SCRIPT: &str = r#"#!/bin/sh
dir=$(dirname "$0")
{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf ' [%s]' "$a"; done; echo; } >> "$dir/calls.log"
case "$*" in
  *"rollout status"*)
    if [ -f "$dir/rollout.exit" ]; then echo "error: timed out waiting for the condition" >&2; exit "$(cat "$dir/rollout.exit")"; fi
    name=$(printf '%s\n' "$@" | sed -n 's|^deployment/||p')
    echo "Waiting for deployment \"$name\" rollout to finish: 0 of 1 updated replicas are available..."
    echo "deployment \"$name\" successfully rolled out" ;;
  *"get secret cloudstack-secret"*)
    if [ -f "$dir/secret.missing" ]; then echo 'Error from server (NotFound): secrets "cloudstack-secret" not found' >&2; exit 1; fi
    echo "secret/cloudstack-secret" ;;
  *"apply -f"*) echo "deployment.apps/cloud-controller-manager configured" ;;
  *"get deployment cloud-controller-manager"*) printf '%s' "$(cat "$dir/ccm_image")" ;;
  *"get deployment"*) printf '%s' "$(cat "$dir/image")" ;;
  *) echo "unexpected kubectl call: $*" >&2; exit 9 ;;
esac
"#;

/// A node: sshd, a script directory with the stand-ins, and a client key at a marked path.
pub struct Node {
    pub sshd: Sshd,
    pub scripts: TempDir,
    pub secrets: TempDir,
}

impl Node {
    pub fn start() -> Node {
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
        fs::write(scripts.path().join("ccm_image"), CCM_IMAGE).expect("ccm image");
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

    pub fn key(&self) -> PathBuf {
        self.secrets.path().join(format!("id-{KEY_MARKER}"))
    }

    pub fn set(&self, file: &str, text: &str) {
        fs::write(self.scripts.path().join(file), text).expect("write control file");
    }

    pub fn calls(&self) -> Vec<String> {
        fs::read_to_string(self.scripts.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The arguments every run shares: where the node is and how to log in.
    pub fn base_args(&self, port: u16, key: &Path) -> Vec<String> {
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
    pub fn args(&self) -> Vec<String> {
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
    pub fn secrets(&self, keys: &[PathBuf]) -> Vec<String> {
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

pub struct Run {
    pub code: Option<i32>,
    pub json: Value,
    pub all_output: String,
}

pub fn hook(args: &[String]) -> Run {
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

pub fn assert_no_secret(run: &Run, secrets: &[String]) {
    for secret in secrets {
        assert!(
            !run.all_output.contains(secret.as_str()),
            "output leaks {secret:?}:\n{}",
            run.all_output
        );
    }
}

pub fn with(mut args: Vec<String>, extra: &[&str]) -> Vec<String> {
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}
