//! What the end-to-end fleet tests share: the stand-in kubectl the upgrade hook runs on a control
//! node, the workspace's other binaries, the events files and the children they start.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The stand-in kubectl the upgrade hook runs on the control node (over the real sshd).
pub const KUBECTL: &str = r#"#!/bin/sh
case "$*" in
  *"rollout status"*) echo "deployment successfully rolled out" ;;
  *"get secret cloudstack-secret"*) echo "secret/cloudstack-secret" ;;
  *"apply -f"*) echo "deployment.apps/cloud-controller-manager configured" ;;
  *"get deployment"*) printf '%s' "apache/cloudstack-kubernetes-provider:v1.2.0" ;;
  *) echo "unexpected kubectl call: $*" >&2; exit 9 ;;
esac
"#;

/// The workspace's binary `name` of package `package`, beside `cks-fleet`; built when missing
/// (a run of this crate's tests alone).
pub fn tool(package: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_cks-fleet"))
        .parent()
        .map(Path::to_path_buf)
        .expect("the binaries' folder");
    let path = dir.join(name);
    if !path.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let built = Command::new(cargo)
            .args(["build", "-p", package, "--bin", name])
            .status()
            .expect("cargo runs");
        assert!(built.success(), "{name} builds");
    }
    path
}

/// The JSON lines of an events file (none while it is missing).
pub fn events_of(path: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits until `done`, checking every 100 ms, failing the test after `limit`.
pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Children killed (and reaped) when dropped, unless they ended.
pub struct Killed(pub Vec<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
