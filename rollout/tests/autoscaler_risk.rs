//! On CloudStack 4.21 and later (read with `listCapabilities`), with autoscaling enabled,
//! moving the workers, the control nodes or the etcd nodes off the cluster's default offering
//! is refused unless the risk is accepted, naming apache/cloudstack#11994; on 4.20 or without
//! autoscaling it is not.

use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};

const KEY: &str = "risk-key";
const SECRET: &str = "risk-secret";

struct Cloud {
    world: CloudWorld,
    cluster_id: String,
    big: String,
    api: CloudStackFake,
    dir: tempfile::TempDir,
}

fn cloud() -> Cloud {
    let world = CloudWorld::new(KEY, SECRET);
    let small = world.add_service_offering("small", 2, 4096);
    let big = world.add_service_offering("big", 4, 8192);
    let disk = world.add_disk_offering("custom", 0);
    let control = world.add_vm("k1-control-1", &small, 20, &disk, &[]);
    let worker = world.add_vm("k1-node-1", &small, 20, &disk, &[]);
    let cluster_id = world.add_cluster("k1", &[control, worker]);
    let api = CloudStackFake::start(world.clone()).expect("CloudStack fake");
    Cloud {
        world,
        cluster_id,
        big,
        api,
        dir: tempfile::tempdir().expect("temp dir"),
    }
}

impl Cloud {
    fn plan(&self, extra: &[&str]) -> Output {
        self.plan_moving("worker", extra)
    }

    fn plan_moving(&self, node_type: &str, extra: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
            .current_dir(self.dir.path())
            .args(["plan", "--cluster-id", &self.cluster_id])
            .args(["--offering", &format!("{node_type}={}", self.big)])
            .args(extra)
            .env("CLOUDSTACK_ENDPOINT", self.api.endpoint())
            .env("CLOUDSTACK_KEY", KEY)
            .env("CLOUDSTACK_SECRET", SECRET)
            .env_remove("CLOUDSTACK_CONFIG")
            .env_remove("KUBECONFIG")
            .env_remove("CKS_ROLLOUT_STORE")
            .env("TMPDIR", self.dir.path())
            .output()
            .expect("runs")
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_worker_move_with_autoscaling_on_4_21_is_refused_naming_the_bug_unless_accepted() {
    let c = cloud();
    c.world.set_cloudstack_version("4.21.0.0");
    c.world.set_autoscaling(&c.cluster_id, true);
    let out = c.plan(&[]);
    let text = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("apache/cloudstack#11994")
            && text.contains("--accept-autoscaler-risk")
            && text.contains("CloudStack 4.21"),
        "{text}"
    );
    assert_eq!(text.trim_end().lines().count(), 1, "one line: {text}");

    // Accepted: a note, and the command goes on (to discovery, which finds no kubeconfig here).
    let out = c.plan(&["--accept-autoscaler-risk"]);
    let text = stderr(&out);
    assert!(text.contains("note: risk accepted"), "{text}");
    assert!(!text.contains("pass --accept-autoscaler-risk"), "{text}");
}

#[test]
fn a_control_or_etcd_move_with_autoscaling_on_4_21_is_refused_too() {
    let c = cloud();
    c.world.set_cloudstack_version("4.21.0.0");
    c.world.set_autoscaling(&c.cluster_id, true);
    for node_type in ["control", "etcd"] {
        let out = c.plan_moving(node_type, &[]);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains("apache/cloudstack#11994")
                && text.contains(&format!("{node_type} nodes to {}", c.big)),
            "{text}"
        );
    }
}

#[test]
fn no_refusal_before_4_21_or_without_autoscaling() {
    let c = cloud();
    c.world.set_cloudstack_version("4.20.1.0");
    c.world.set_autoscaling(&c.cluster_id, true);
    let text = stderr(&c.plan(&[]));
    assert!(!text.contains("11994"), "{text}");
    c.world.set_cloudstack_version("4.22.0.0");
    c.world.set_autoscaling(&c.cluster_id, false);
    let text = stderr(&c.plan(&[]));
    assert!(!text.contains("11994"), "{text}");
}
