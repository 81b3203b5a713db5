//! One owner on a real PostgreSQL store: a CloudStack stop job that outlasts the lease timeout
//! keeps its rollout's lease renewed, so a second process's `scan` and `run` take nothing; and a
//! `simulate --store` process never takes a cluster another one is rolling out.

use std::process::Stdio;
use std::time::Duration;

use crate::adapter_cli_postgres::{bin, cluster_in, live, open, stops, text};
use crate::adapter_support::WORKERS;
use cks_fixtures::postgres::Postgres;
use cks_fixtures::process::wait_until;
use cks_rollout::model::ClusterState;

#[test]
fn a_stop_job_longer_than_the_lease_keeps_the_cluster_from_a_second_scan_and_run() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let (c, url) = cluster_in(&pg);
    // The first stop takes far longer than the 3 s lease.
    c.cloud
        .slow_next("stopVirtualMachine", Duration::from_secs(12));
    let lease = ["--lease-timeout", "3s", "--poll-interval", "200ms"];
    let first = live(&c, "run", &url)
        .args(["--offering", &format!("worker={}", c.big)])
        .args(["--maxunavailable", "1", "--drain-timeout", "30s"])
        .args(lease)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    wait_until(
        "the first stop job started",
        Duration::from_secs(60),
        || stops(&c) >= 1,
    )
    .expect("the rollout reached its first stop");
    let beat = |url: &str| {
        open(url)
            .get(&c.cluster_id)
            .ok()
            .and_then(|r| r.lease)
            .map(|l| (l.owner, l.heartbeat_ms))
    };
    let (owner, at_stop) = beat(&url).expect("the rollout holds a lease");
    // The job is still running while the heartbeat, stamped by PostgreSQL's clock, moves on
    // past the lease timeout: the lease is renewed while CloudStack works.
    wait_until(
        "the heartbeat renewed past the lease timeout during the stop",
        Duration::from_secs(60),
        || beat(&url).is_some_and(|(_, ms)| ms >= at_stop + 4_000),
    )
    .expect("renewed while the job runs");
    let vm = c.cloud.vm_named(WORKERS[0]).expect("vm");
    assert_eq!(vm.state, "Stopping", "the stop job is still running");

    let scan = live(&c, "scan", &url).args(lease).output().expect("runs");
    assert!(scan.status.success(), "{}", text(&scan));
    assert!(
        text(&scan).contains("holds the lease: left alone"),
        "{}",
        text(&scan)
    );
    let second = live(&c, "run", &url)
        .args(["--offering", &format!("worker={}", c.big)])
        .args(lease)
        .output()
        .expect("runs");
    assert!(!second.status.success(), "{}", text(&second));
    assert!(text(&second).contains("Updating"), "{}", text(&second));
    let record = open(&url).get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Updating);
    assert_eq!(record.lease.map(|l| l.owner), Some(owner), "the same owner");
    assert_eq!(stops(&c), 1, "the second process stopped nothing");

    let out = first.wait_with_output().expect("ends");
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(stops(&c), WORKERS.len(), "each worker stopped once");
    let record = open(&url).get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running);
    assert!(record.lease.is_none(), "released");
}

/// A simulated cluster big enough that its rollout is still running when the test looks.
const BIG: &str = r#"
id: big-1
name: big
service_offering: small
offerings:
  - { id: small, name: small, cpu_cores: 2, memory_mb: 4096 }
  - { id: large, name: large, cpu_cores: 4, memory_mb: 8192 }
control: { count: 3 }
workers: { count: 60 }
"#;

fn stopped(out: &std::process::Output) -> usize {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("stop: stopped"))
        .count()
}

#[test]
fn two_simulate_processes_on_one_postgres_store_never_both_stop_nodes() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("sim").expect("database");
    let dir = tempfile::tempdir().expect("temp dir");
    let cluster = dir.path().join("big.yaml");
    std::fs::write(&cluster, BIG).expect("description");
    let simulate = || {
        let mut cmd = bin();
        cmd.args(["simulate", "--cluster"])
            .arg(&cluster)
            .args(["--store", &url, "run", "--offering", "worker=large"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    };
    for _ in 0..3 {
        let first = simulate().spawn().expect("starts");
        wait_until(
            "the first process's rollout",
            Duration::from_secs(60),
            || {
                open(&url)
                    .get("big-1")
                    .is_ok_and(|r| r.state == ClusterState::Updating)
            },
        )
        .expect("the first process is Updating");
        let owner = open(&url).get("big-1").ok().and_then(|r| r.lease);
        let second = simulate().output().expect("runs");
        let first = first.wait_with_output().expect("ends");
        assert!(first.status.success(), "{}", text(&first));
        assert_eq!(second.status.code(), Some(1), "{}", text(&second));
        assert!(
            text(&second).contains("rollout in progress"),
            "{}",
            text(&second)
        );
        assert_eq!(stopped(&first), 60, "{}", text(&first));
        assert_eq!(stopped(&second), 0, "{}", text(&second));
        let owner = owner.expect("a lease").owner;
        assert!(
            owner.starts_with("simulator@"),
            "an owner of its own: {owner}"
        );
    }
}
