//! The `Store` contract, one suite for every store (SQLite and PostgreSQL), each opened by its
//! URL as the CLI opens it: records round-trip, compare-and-set changes nothing when the state
//! is not the expected one, a rollout begins once, leases renew only for their owner, cancel
//! and error flags stick, and connections in two OS processes racing to move hundreds of
//! clusters to `Updating` never both win one.

use std::collections::BTreeMap;
use std::ffi::OsStr;

use cks_rollout::adapters::store::{AnyStore, StoreUrl};
use cks_rollout::model::{ClusterRecord, ClusterState, Lease, NodeType, NodeTypeSettings};
use cks_rollout::ports::{PortErrorKind, Store};

use super::two_processes;

/// A Running cluster `id` with three control nodes and six workers.
pub fn record(id: &str) -> ClusterRecord {
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

/// A lease of `owner` with an early heartbeat.
pub fn lease(owner: &str) -> Lease {
    Lease {
        owner: owner.to_string(),
        heartbeat_ms: 1,
    }
}

/// The store at `url`, opened as the CLI opens it.
pub fn open(url: &str) -> AnyStore {
    let url: StoreUrl = url.parse().expect("a store URL");
    AnyStore::open(&url).expect("the store opens")
}

/// Every rule of the contract on the (empty) store at `url`, then read back through a second
/// connection.
pub fn the_contract_holds(url: &str) {
    let mut store = open(url);
    store.put(&record("k1")).expect("put");
    assert_eq!(store.load("k1").expect("load"), record("k1"));
    let missing = store.load("k2").expect_err("no k2");
    assert_eq!(missing.kind, PortErrorKind::NotFound);
    assert!(missing.message.contains("no cluster k2"), "{missing}");

    let cas = |store: &mut AnyStore, expected, owner: &str| {
        store
            .compare_and_set_state("k1", expected, ClusterState::Updating, Some(&lease(owner)))
            .expect("cas answers")
    };
    assert!(!cas(&mut store, ClusterState::Alert, "a"), "not in Alert");
    assert_eq!(store.load("k1").expect("load").state, ClusterState::Running);

    let mut settings = BTreeMap::new();
    settings.insert(
        NodeType::Worker,
        NodeTypeSettings {
            offering_id: Some("so-big".into()),
            root_disk_size_gb: Some(40),
            affinity_group_ids: None,
            ..Default::default()
        },
    );
    assert!(
        !store.request_cancel("k1").expect("cancel"),
        "no rollout runs to cancel"
    );
    store.set_cancel("k1", true).expect("a stale flag");
    assert!(
        store
            .begin_rollout("k1", ClusterState::Running, &lease("a"), &settings)
            .expect("begin")
    );
    let r = store.load("k1").expect("load");
    assert_eq!(
        (r.state, r.cancel, &r.settings),
        (ClusterState::Updating, false, &settings),
        "the move into Updating stores the settings and clears a stale cancel"
    );
    assert!(
        !store
            .begin_rollout("k1", ClusterState::Running, &lease("b"), &settings)
            .expect("begin"),
        "a second rollout loses"
    );
    assert!(
        !cas(&mut store, ClusterState::Running, "b"),
        "already Updating"
    );
    assert!(
        !store
            .save_settings("k1", ClusterState::Running, &BTreeMap::new())
            .expect("save")
    );
    assert!(
        store
            .save_settings("k1", ClusterState::Updating, &settings)
            .expect("save")
    );
    let renewed = Lease {
        owner: "a".into(),
        heartbeat_ms: 99,
    };
    assert!(store.renew_lease("k1", &renewed).expect("renew"));
    assert!(!store.renew_lease("k1", &lease("b")).expect("renew"));
    assert!(store.request_cancel("k1").expect("cancel"));
    store
        .set_last_error("k1", Some("drain of w-3 blocked by default/web-pdb"))
        .expect("error");
    store.set_capacity("k1", 24, 49_152).expect("capacity");

    let mut reopened = open(url);
    let r = reopened.get("k1").expect("get");
    assert_eq!(r.state, ClusterState::Updating);
    assert_eq!(r.lease, Some(renewed));
    assert_eq!(r.settings, settings);
    assert!(r.cancel);
    assert_eq!(
        r.last_error.as_deref(),
        Some("drain of w-3 blocked by default/web-pdb")
    );
    assert_eq!((r.cores, r.memory_mb), (24, 49_152));
    assert_eq!(reopened.ids().expect("ids"), ["k1"]);
}

const CHILD_URL: &str = "CKS_STORE_RACE_URL";
const CHILD_THREADS: &str = "CKS_STORE_RACE_THREADS";
const CLUSTERS: usize = 300;

/// In a child process of [`race`]: takes part and returns `true`; else `false`.
pub fn race_child() -> bool {
    let Some(name) = two_processes::child() else {
        return false;
    };
    let url = std::env::var(CHILD_URL).expect("the store URL");
    let threads: usize = std::env::var(CHILD_THREADS)
        .expect("the thread count")
        .parse()
        .expect("a thread count");
    // The connections open before the start, so they all race from it.
    let stores: Vec<AnyStore> = (0..threads).map(|_| open(&url)).collect();
    let handles: Vec<_> = stores
        .into_iter()
        .enumerate()
        .map(|(t, mut store)| {
            let owner = format!("{name}-t{t}");
            let p2 = name == "p2";
            std::thread::spawn(move || {
                // Each connection starts at a different cluster, and the two processes walk in
                // opposite directions, so they collide everywhere.
                let start = (t * CLUSTERS / threads + if p2 { 37 } else { 0 }) % CLUSTERS;
                let mut won = Vec::new();
                for k in 0..CLUSTERS {
                    let i = if p2 {
                        (start + CLUSTERS - k) % CLUSTERS
                    } else {
                        (start + k) % CLUSTERS
                    };
                    let id = format!("c{i:03}");
                    if store
                        .compare_and_set_state(
                            &id,
                            ClusterState::Running,
                            ClusterState::Updating,
                            Some(&lease(&owner)),
                        )
                        .expect("cas answers")
                    {
                        won.push(format!("won {id} {owner}"));
                    }
                }
                won
            })
        })
        .collect();
    for handle in handles {
        for line in handle.join().expect("thread ends") {
            println!("{line}");
        }
    }
    true
}

/// Two OS processes (this test binary again, running `test`), `threads` connections each,
/// race for the clusters of the store at `url`: each cluster is won exactly once, and the
/// stored lease is the winner's. Returns the wins per connection.
pub fn race(url: &str, threads: usize, test: &str) -> BTreeMap<String, usize> {
    let mut store = open(url);
    for i in 0..CLUSTERS {
        store.put(&record(&format!("c{i:03}"))).expect("put");
    }
    let threads = threads.to_string();
    let printed = two_processes::race(
        test,
        &[
            (CHILD_URL, OsStr::new(url)),
            (CHILD_THREADS, OsStr::new(&threads)),
        ],
    );
    let winners = two_processes::winners(&printed);
    let mut per_owner: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..CLUSTERS {
        let id = format!("c{i:03}");
        let won = winners.get(&id).cloned().unwrap_or_default();
        assert_eq!(won.len(), 1, "cluster {id} won by {won:?}");
        let r = store.get(&id).expect("get");
        assert_eq!(r.state, ClusterState::Updating);
        assert_eq!(
            r.lease.expect("a lease").owner,
            won[0],
            "the stored lease is the winner's"
        );
        *per_owner.entry(won[0].clone()).or_default() += 1;
    }
    eprintln!("wins per connection: {per_owner:?}");
    per_owner
}
