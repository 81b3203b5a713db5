//! The `cks-rollout` command line: `simulate plan|run` on the example cluster description, and,
//! against the CloudStack and Kubernetes fakes with a real etcd, two `run` processes on one
//! SQLite store, of which exactly one wins `Updating`; then `status`, `cancel` and `scan`.

use std::process::{Command, Output, Stdio};

use crate::adapter_support::{CONTROL, Cluster, cluster, text};
use cks_rollout::model::ClusterState;
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
}

fn example() -> String {
    format!(
        "{}/examples/simulate-cluster.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn simulate_run_prints_every_step_the_view_and_the_invariants_verdict() {
    let out = bin()
        .args(["simulate", "--cluster", &example(), "--seed", "3", "run"])
        .args([
            "--offering",
            "worker=large",
            "--root-disk-size",
            "worker=40",
            "--maxunavailable",
            "2",
        ])
        .output()
        .expect("runs");
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    // Steps are named as the events file names them.
    for step in [
        "preflight",
        "annotate",
        "cordon",
        "drain",
        "stop",
        "change_offering",
        "resize_disk",
        "start_vm",
        "verify",
        "uncordon",
        "release",
    ] {
        assert!(
            shown.contains(&format!("{step}:")),
            "no {step} step in\n{shown}"
        );
    }
    assert!(
        shown.contains("worker: 6 node(s), offering large, root disk 40 GB"),
        "{shown}"
    );
    assert!(shown.contains("invariants: all held"), "{shown}");

    let again = bin()
        .args(["simulate", "--cluster", &example(), "--seed", "3", "run"])
        .args([
            "--offering",
            "worker=large",
            "--root-disk-size",
            "worker=40",
            "--maxunavailable",
            "2",
        ])
        .output()
        .expect("runs");
    assert_eq!(
        again.stdout, out.stdout,
        "the same seed replays the same run"
    );
}

#[test]
fn simulate_plan_json_and_a_failing_run_exit_codes() {
    let out = bin()
        .args([
            "--json",
            "simulate",
            "--cluster",
            &example(),
            "plan",
            "--offering",
            "worker=large",
            "--maxunavailable",
            "2",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).expect("JSON plan");
    assert_eq!(plan["worker_batch_size"], 2);
    assert_eq!(plan["phases"][0]["node_type"], "worker");

    let dir = tempfile::tempdir().expect("temp dir");
    let spec = std::fs::read_to_string(example())
        .expect("example")
        .replace(
            "  # - { fault: never_ready, node: w-3 }",
            "  - { fault: never_ready, node: w-3 }",
        );
    let path = dir.path().join("never-ready.yaml");
    std::fs::write(&path, spec).expect("write");
    let out = bin()
        .args(["simulate", "--cluster"])
        .arg(&path)
        .args(["run", "--offering", "worker=large"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("lasterror:") && text(&out).contains("w-3"),
        "{}",
        text(&out)
    );

    let out = bin()
        .args(["simulate", "--cluster", "/nonexistent.yaml", "plan"])
        .output()
        .expect("runs");
    // The cluster description is the user's input: a missing one is status 2.
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("/nonexistent.yaml"), "{}", text(&out));
    let out = bin()
        .args([
            "simulate",
            "--cluster",
            &example(),
            "plan",
            "--offering",
            "worker",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("--offering \"worker\": expected TYPE=VALUE"),
        "{}",
        text(&out)
    );
}

fn live(c: &Cluster, command: &str) -> Command {
    c.cli(command)
}

fn live_at(c: &Cluster, command: &str, store: &std::path::Path) -> Command {
    c.cli_at(command, store)
}

#[test]
fn two_run_processes_on_one_store_exactly_one_wins_updating() {
    let c = cluster();
    let start = |_: usize| {
        live(&c, "run")
            .args([
                "--offering",
                &format!("worker={}", c.big),
                "--maxunavailable",
                "2",
            ])
            .args(["--drain-timeout", "30s", "--poll-interval", "20ms"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts")
    };
    let children: Vec<_> = (0..2).map(start).collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("ends"))
        .collect();
    let winners: Vec<&Output> = outs.iter().filter(|o| o.status.success()).collect();
    let losers: Vec<&Output> = outs.iter().filter(|o| !o.status.success()).collect();
    assert_eq!(
        winners.len(),
        1,
        "{}\n---\n{}",
        text(&outs[0]),
        text(&outs[1])
    );
    let lost = text(losers[0]);
    assert_eq!(losers[0].status.code(), Some(1), "{lost}");
    assert!(
        lost.contains("Updating") || lost.contains("no longer Running"),
        "{lost}"
    );
    let won = text(winners[0]);
    assert!(won.contains("restarted 6 node(s)"), "{won}");
    assert!(
        won.contains("worker: 6 node(s)") && won.contains("0 out of date"),
        "{won}"
    );

    let record = c.store.get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running);
    let stops = c
        .cloud
        .calls()
        .iter()
        .filter(|call| call.starts_with("stopvirtualmachine"))
        .count();
    assert_eq!(stops, 6, "each worker restarted once, by the winner only");

    let status = live(&c, "status").arg("--json").output().expect("runs");
    assert!(status.status.success(), "{}", text(&status));
    let view: Value = serde_json::from_slice(&status.stdout).expect("JSON view");
    assert_eq!(view["state"], "Running");
    assert_eq!(view["workernodesoutofdate"], 0);

    let cancel = live(&c, "cancel").output().expect("runs");
    assert_eq!(cancel.status.code(), Some(1));
    assert!(
        text(&cancel).contains("no rollout is running"),
        "{}",
        text(&cancel)
    );
    let scan = live(&c, "scan").output().expect("runs");
    assert!(scan.status.success(), "{}", text(&scan));
    assert!(
        text(&scan).contains("not Updating: nothing to do"),
        "{}",
        text(&scan)
    );
    let _ = CONTROL;
}

#[test]
fn status_imports_a_new_cluster_from_cloudstack_and_refuses_without_credentials() {
    let c = cluster();
    let dir = tempfile::tempdir().expect("temp dir");
    let fresh = dir.path().join("fresh.db");
    let out = live_at(&c, "status", &fresh)
        .arg("--json")
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    let view: Value = serde_json::from_slice(&out.stdout).expect("JSON view");
    assert_eq!(view["state"], "Running");
    assert_eq!(view["cores"], 18, "9 VMs of 2 cores");
    let imported = cks_rollout::adapters::store::SqliteStore::open(&fresh)
        .expect("store")
        .get(&c.cluster_id)
        .expect("record");
    assert_eq!(
        (
            imported.control_count,
            imported.worker_count,
            imported.etcd_count
        ),
        (3, 6, 0)
    );
    assert_eq!(imported.service_offering_id, c.small);

    let missing = dir.path().join("missing.db");
    let out = live_at(&c, "status", &missing)
        .env_remove("CLOUDSTACK_ENDPOINT")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("CLOUDSTACK_ENDPOINT"), "{}", text(&out));
    assert!(!missing.exists(), "nothing is left behind");
}
