//! `cks-rollout plan` for a cluster CloudStack does not know fails naming it, and leaves no
//! store behind: no `cks-rollout.db` in the working directory, nor at `--store`.

use std::process::Command;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};

const UNKNOWN: &str = "0b7e3f52-9c1d-4a8e-b6f0-2d4c6e8a1b3f";

fn plan_unknown(cloud: &CloudStackFake, cwd: &std::path::Path, store: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-rollout"));
    command
        .current_dir(cwd)
        .args(["plan", "--cluster-id", UNKNOWN, "--offering", "worker=big"])
        .env("CLOUDSTACK_ENDPOINT", cloud.endpoint())
        .env("CLOUDSTACK_KEY", "e2e-key")
        .env("CLOUDSTACK_SECRET", "e2e-secret")
        .env_remove("CLOUDSTACK_CONFIG");
    if let Some(store) = store {
        command.args(["--store", store]);
    }
    let out = command.output().expect("cks-rollout runs");
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains(UNKNOWN), "{shown}");
    shown
}

#[test]
fn plan_of_an_unknown_cluster_creates_no_store() {
    let world = CloudWorld::new("e2e-key", "e2e-secret");
    world.add_service_offering("big", 4, 8192);
    let cloud = CloudStackFake::start(world).expect("CloudStack fake");
    let cwd = tempfile::tempdir().expect("working dir");
    let shown = plan_unknown(&cloud, cwd.path(), None);
    assert!(shown.contains("no Kubernetes cluster with id"), "{shown}");
    let left: Vec<_> = std::fs::read_dir(cwd.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(left.is_empty(), "left in the working directory: {left:?}");
    let store = cwd.path().join("elsewhere.db");
    plan_unknown(&cloud, cwd.path(), Some(store.to_str().expect("UTF-8")));
    assert!(!store.exists(), "no store at --store");
}
