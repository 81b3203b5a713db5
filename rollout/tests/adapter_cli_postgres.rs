//! `cks-rollout --store postgres://...` against a real PostgreSQL server, the CloudStack and
//! Kubernetes fakes and a real etcd: two `run` processes on one cluster, of which exactly one
//! wins `Updating`; a rollout whose database goes away mid-batch finishes the batch, leaves no
//! node down and stops, and once its lease expires `scan` moves the cluster to Alert; and
//! `simulate --store` runs the simulator with its record in the database.

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::adapter_support::{Cluster, WORKERS, cluster};
use cks_fixtures::postgres::Postgres;
use cks_rollout::adapters::store::{PostgresStore, PostgresUrl};
use cks_rollout::model::{ClusterState, ROLLOUT_ANNOTATION};
use cks_rollout::ports::Store;

pub(crate) fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub(crate) fn open(url: &str) -> PostgresStore {
    let url: PostgresUrl = url.parse().expect("a PostgreSQL URL");
    PostgresStore::open(&url).expect("store opens")
}

/// The adapter cluster with its record copied into a PostgreSQL database.
pub(crate) fn cluster_in(pg: &Postgres) -> (Cluster, String) {
    let c = cluster();
    let url = pg.create_database("rollout").expect("database");
    let record = c.store.get(&c.cluster_id).expect("record");
    open(&url).put(&record).expect("record in PostgreSQL");
    (c, url)
}

pub(crate) fn live(c: &Cluster, command: &str, store: &str) -> Command {
    let mut cmd = bin();
    cmd.arg(command)
        .args(["--cluster-id", &c.cluster_id, "--store", store])
        .arg("--kubeconfig")
        .arg(&c.kubeconfig)
        .env("CLOUDSTACK_ENDPOINT", &c.cloud_endpoint)
        .env("CLOUDSTACK_KEY", "e2e-key")
        .env("CLOUDSTACK_SECRET", "e2e-secret")
        .env("CLOUDSTACK_POLL_INTERVAL", "0.01")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("CKS_ROLLOUT_STORE");
    for (node, url) in &c.control {
        cmd.arg("--control-endpoint").arg(format!("{node}={url}"));
    }
    for m in &c.etcd.members {
        cmd.arg("--etcd-endpoint")
            .arg(format!("{}={}", m.name, m.client_url));
    }
    cmd
}

pub(crate) fn stops(c: &Cluster) -> usize {
    c.cloud
        .calls()
        .iter()
        .filter(|call| call.starts_with("stopvirtualmachine"))
        .count()
}

#[test]
fn two_run_processes_on_one_postgres_store_exactly_one_wins_updating() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let (c, url) = cluster_in(&pg);
    let children: Vec<_> = (0..2)
        .map(|_| {
            live(&c, "run", &url)
                .args(["--offering", &format!("worker={}", c.big)])
                .args(["--maxunavailable", "2", "--drain-timeout", "30s"])
                .args(["--poll-interval", "20ms"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("starts")
        })
        .collect();
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
    assert!(text(winners[0]).contains("restarted 6 node(s)"));
    assert_eq!(
        stops(&c),
        6,
        "each worker restarted once, by the winner only"
    );

    let record = open(&url).get(&c.cluster_id).expect("record");
    assert_eq!(record.state, ClusterState::Running);
    let status = live(&c, "status", &url)
        .arg("--json")
        .output()
        .expect("runs");
    assert!(status.status.success(), "{}", text(&status));
    let view: serde_json::Value = serde_json::from_slice(&status.stdout).expect("JSON view");
    assert_eq!(view["workernodesoutofdate"], 0);
}

#[test]
fn a_rollout_that_loses_its_database_mid_batch_leaves_no_node_down_and_scan_alerts() {
    let mut pg = Postgres::start().expect("PostgreSQL starts");
    let (c, url) = cluster_in(&pg);
    // Slow boots, so the database goes away while the first batch's node is down.
    {
        let mut kube = c.kube.lock();
        kube.stale_ready = true;
        kube.boot_delay = Duration::from_millis(1500);
    }
    let child = live(&c, "run", &url)
        .args(["--offering", &format!("worker={}", c.big)])
        .args(["--maxunavailable", "1", "--drain-timeout", "30s"])
        // Waiting for the batch's node needs CloudStack and Kubernetes, not the store: a run
        // that waited for the batch to time out would end naming the wait, not the store.
        .args(["--poll-interval", "50ms", "--batch-timeout", "120s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    cks_fixtures::process::wait_until("the first worker stopped", Duration::from_secs(60), || {
        stops(&c) >= 1
    })
    .expect("the rollout reached its first batch");
    pg.kill().expect("the database goes away");
    let out = child.wait_with_output().expect("ends");
    let shown = text(&out);
    assert!(!out.status.success(), "{shown}");
    assert!(shown.contains("cluster store"), "names the store: {shown}");

    assert_eq!(
        stops(&c),
        1,
        "no batch started without the database: {shown}"
    );
    // No VM is left stopped: the batch's node was started again before the run gave up.
    for name in WORKERS {
        assert_eq!(
            c.cloud.vm_named(name).expect("vm").state,
            "Running",
            "{name} is up: {shown}"
        );
    }
    cks_fixtures::process::wait_until("every node Ready", Duration::from_secs(20), || {
        // The fake marks booted nodes Ready when it is read, as the API server would.
        c.kube.lock().settle_boots();
        WORKERS.iter().all(|n| c.kube.is_ready(n))
    })
    .expect("the restarted node boots");
    // A node still cordoned carries the rollout's annotation, so the next run settles it.
    for name in WORKERS {
        let node = c.kube.node(name).expect("node");
        if node["spec"].get("unschedulable").is_some() {
            assert!(
                node["metadata"]["annotations"]
                    .get(ROLLOUT_ANNOTATION)
                    .is_some(),
                "{name} cordoned without the rollout's mark: {shown}"
            );
        }
    }

    pg.resume().expect("the database comes back");
    let record = open(&url).get(&c.cluster_id).expect("record");
    assert_eq!(
        record.state,
        ClusterState::Updating,
        "still owned by the lost run"
    );
    assert!(record.lease.is_some());
    // A lease renewed within the timeout (an hour here, however slow the machine) is alive.
    let early = live(&c, "scan", &url)
        .args(["--lease-timeout", "3600s"])
        .output()
        .expect("runs");
    assert!(
        text(&early).contains("holds the lease: left alone"),
        "{}",
        text(&early)
    );
    // Once the lease is 2 s old, with no owner renewing it, the scanner takes the cluster over.
    let mut scan = None;
    cks_fixtures::process::wait_until("the lease to expire", Duration::from_secs(60), || {
        let out = live(&c, "scan", &url)
            .args(["--lease-timeout", "2s"])
            .output()
            .expect("runs");
        let moved = !text(&out).contains("holds the lease: left alone");
        scan = Some(out);
        moved
    })
    .expect("the lease expires");
    let scan = scan.expect("scanned");
    assert!(scan.status.success(), "{}", text(&scan));
    assert!(text(&scan).contains("moved to Alert"), "{}", text(&scan));
    assert_eq!(
        open(&url).get(&c.cluster_id).expect("record").state,
        ClusterState::Alert
    );
}

fn example() -> String {
    format!(
        "{}/examples/simulate-cluster.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn simulate_with_a_postgres_store_keeps_the_record_there_and_replays_the_same_steps() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("sim").expect("database");
    let args = [
        "--offering",
        "worker=large",
        "--root-disk-size",
        "worker=40",
        "--maxunavailable",
        "2",
    ];
    let alone = bin()
        .args(["simulate", "--cluster", &example(), "--seed", "3", "run"])
        .args(args)
        .output()
        .expect("runs");
    assert!(alone.status.success(), "{}", text(&alone));
    let backed = bin()
        .args(["simulate", "--cluster", &example(), "--seed", "3"])
        .args(["--store", &url, "run"])
        .args(args)
        .output()
        .expect("runs");
    let shown = text(&backed);
    assert!(backed.status.success(), "{shown}");
    assert!(shown.contains("invariants: all held"), "{shown}");
    assert_eq!(
        String::from_utf8_lossy(&backed.stdout),
        String::from_utf8_lossy(&alone.stdout),
        "the database answers as the simulated store does"
    );

    let mut store = open(&url);
    let ids = store.ids().expect("ids");
    assert_eq!(ids.len(), 1, "{ids:?}");
    let record = store.get(&ids[0]).expect("record");
    assert_eq!(record.state, ClusterState::Running);
    assert!(record.lease.is_none(), "released");
    let worker = &record.settings[&cks_rollout::model::NodeType::Worker];
    assert_eq!(worker.offering_id.as_deref(), Some("large"));
    assert_eq!(worker.root_disk_size_gb, Some(40));

    // A cluster Updating in the database is not replaced.
    store
        .compare_and_set_state(&ids[0], ClusterState::Running, ClusterState::Updating, None)
        .map(|_| ())
        .expect("cas");
    let refused = bin()
        .args(["simulate", "--cluster", &example(), "--store", &url, "plan"])
        .output()
        .expect("runs");
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("rollout in progress"),
        "{}",
        text(&refused)
    );
}
