//! The SQLite store: records round-trip, compare-and-set changes nothing when the state is not
//! the expected one, leases renew only for their owner, and two OS processes racing to move the
//! same clusters to `Updating` never both win one.

use std::process::{Command, Stdio};
use std::time::Duration;

use cks_rollout::adapters::store::SqliteStore;
use cks_rollout::model::{ClusterRecord, ClusterState, Lease, NodeType, NodeTypeSettings};
use cks_rollout::ports::Store;

fn record(id: &str) -> ClusterRecord {
    ClusterRecord {
        id: id.to_string(),
        name: format!("cluster-{id}"),
        state: ClusterState::Running,
        service_offering_id: "so-small".to_string(),
        control_count: 3,
        worker_count: 6,
        etcd_count: 0,
        settings: Default::default(),
        cores: 18,
        memory_mb: 36_864,
        cancel: false,
        last_error: None,
        lease: None,
    }
}

fn lease(owner: &str) -> Lease {
    Lease {
        owner: owner.to_string(),
        heartbeat_ms: 1,
    }
}

#[test]
fn compare_and_set_settings_flags_and_leases() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut store = SqliteStore::open(&dir.path().join("rollout.db")).expect("store opens");
    store.put(&record("k1")).expect("put");
    assert_eq!(store.load("k1").expect("load"), record("k1"));
    assert!(
        store
            .load("k2")
            .is_err_and(|e| e.message.contains("no cluster k2"))
    );

    assert!(
        !store
            .compare_and_set_state(
                "k1",
                ClusterState::Alert,
                ClusterState::Updating,
                Some(&lease("a"))
            )
            .expect("cas")
    );
    assert_eq!(store.load("k1").expect("load").state, ClusterState::Running);
    assert!(
        store
            .compare_and_set_state(
                "k1",
                ClusterState::Running,
                ClusterState::Updating,
                Some(&lease("a"))
            )
            .expect("cas")
    );
    assert!(
        !store
            .compare_and_set_state(
                "k1",
                ClusterState::Running,
                ClusterState::Updating,
                Some(&lease("b"))
            )
            .expect("cas")
    );

    let mut settings = std::collections::BTreeMap::new();
    settings.insert(
        NodeType::Worker,
        NodeTypeSettings {
            offering_id: Some("so-big".into()),
            root_disk_size_gb: Some(40),
            affinity_group_ids: None,
        },
    );
    assert!(
        !store
            .save_settings("k1", ClusterState::Running, &settings)
            .expect("save")
    );
    assert!(
        store
            .save_settings("k1", ClusterState::Updating, &settings)
            .expect("save")
    );

    assert!(
        store
            .renew_lease(
                "k1",
                &Lease {
                    owner: "a".into(),
                    heartbeat_ms: 99
                }
            )
            .expect("renew")
    );
    assert!(!store.renew_lease("k1", &lease("b")).expect("renew"));
    store.set_cancel("k1", true).expect("cancel");
    store
        .set_last_error("k1", Some("drain of w-3 blocked by default/web-pdb"))
        .expect("error");
    store.set_capacity("k1", 24, 49_152).expect("capacity");

    let reopened = SqliteStore::open(&dir.path().join("rollout.db")).expect("store reopens");
    let r = reopened.get("k1").expect("get");
    assert_eq!(r.state, ClusterState::Updating);
    assert_eq!(
        r.lease,
        Some(Lease {
            owner: "a".into(),
            heartbeat_ms: 99
        })
    );
    assert_eq!(r.settings, settings);
    assert!(r.cancel);
    assert_eq!(
        r.last_error.as_deref(),
        Some("drain of w-3 blocked by default/web-pdb")
    );
    assert_eq!((r.cores, r.memory_mb), (24, 49_152));
}

const CHILD_DB: &str = "CKS_STORE_RACE_DB";
const CHILD_NAME: &str = "CKS_STORE_RACE_NAME";
const CLUSTERS: usize = 300;

/// Run as a child process: waits for the start signal, then tries to take every cluster.
fn race_as_child(db: &str, name: &str) {
    let mut store = SqliteStore::open(std::path::Path::new(db)).expect("store opens");
    std::fs::write(format!("{db}.ready-{name}"), "").expect("ready signal");
    let go = format!("{db}.go");
    cks_fixtures::process::wait_for_path(std::path::Path::new(&go), Duration::from_secs(30))
        .expect("start signal");
    // The two processes walk the clusters in opposite orders, so they collide in the middle.
    let order: Vec<usize> = if name == "p1" {
        (0..CLUSTERS).collect()
    } else {
        (0..CLUSTERS).rev().collect()
    };
    for i in order {
        let id = format!("c{i:03}");
        if store
            .compare_and_set_state(
                &id,
                ClusterState::Running,
                ClusterState::Updating,
                Some(&lease(name)),
            )
            .expect("cas answers")
        {
            println!("won {id}");
        }
    }
}

#[test]
fn two_processes_racing_for_updating_never_both_win() {
    if let (Ok(db), Ok(name)) = (std::env::var(CHILD_DB), std::env::var(CHILD_NAME)) {
        race_as_child(&db, &name);
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("rollout.db");
    let mut store = SqliteStore::open(&db).expect("store opens");
    for i in 0..CLUSTERS {
        store.put(&record(&format!("c{i:03}"))).expect("put");
    }
    let exe = std::env::current_exe().expect("test binary");
    // The test's name inside the one test binary: `<module>::<fn>`, without the crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::two_processes_racing_for_updating_never_both_win");
    let children: Vec<_> = ["p1", "p2"]
        .iter()
        .map(|name| {
            Command::new(&exe)
                .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_DB, &db)
                .env(CHILD_NAME, name)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("child starts")
        })
        .collect();
    for name in ["p1", "p2"] {
        let ready = std::path::PathBuf::from(format!("{}.ready-{name}", db.display()));
        cks_fixtures::process::wait_for_path(&ready, Duration::from_secs(60)).expect("child ready");
    }
    std::fs::write(format!("{}.go", db.display()), "").expect("start signal");
    let mut wins: Vec<Vec<String>> = Vec::new();
    for child in children {
        let out = child.wait_with_output().expect("child ends");
        assert!(
            out.status.success(),
            "child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        wins.push(
            text.lines()
                .filter_map(|l| l.split_once("won ").map(|(_, id)| id.trim().to_string()))
                .collect(),
        );
    }
    for i in 0..CLUSTERS {
        let id = format!("c{i:03}");
        let winners: Vec<usize> = (0..2).filter(|p| wins[*p].contains(&id)).collect();
        assert_eq!(winners.len(), 1, "cluster {id} won by {winners:?}");
        let owner = store.get(&id).expect("get").lease.expect("a lease").owner;
        assert_eq!(
            owner,
            ["p1", "p2"][winners[0]],
            "the stored lease is the winner's"
        );
        assert_eq!(store.get(&id).expect("get").state, ClusterState::Updating);
    }
    eprintln!("p1 won {}, p2 won {}", wins[0].len(), wins[1].len());
}
