//! The lease rules on both real stores: the heartbeat stamped with the database's clock, a
//! renewal that compares owner and heartbeat, the scanner's take-over in one compare-and-set,
//! and the end of a rollout only by the lease that holds it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::store_contract::{lease, open, record};
use cks_fixtures::postgres::Postgres;
use cks_rollout::model::{ClusterState, Lease};
use cks_rollout::ports::Store;

const LONG: Duration = Duration::from_secs(3600);

fn the_lease_rules_hold(url: &str) {
    let mut store = open(url);
    store.put(&record("k1")).expect("put");
    let settings = Default::default();
    assert!(
        store
            .begin_rollout("k1", ClusterState::Running, &lease("a"), &settings)
            .expect("begin")
    );
    let held = store.load("k1").expect("load").lease.expect("a lease");
    let host_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    assert_eq!(held.owner, "a");
    assert!(
        held.heartbeat_ms.abs_diff(host_ms) < 60_000,
        "the database's clock stamps it, not the 1 given: {}",
        held.heartbeat_ms
    );

    let mut mine = held.clone();
    assert!(store.hold_lease("k1", &mut mine, LONG).expect("hold"));
    assert!(mine.heartbeat_ms > held.heartbeat_ms, "renewed");
    let mut stale = held.clone();
    assert!(
        !store.hold_lease("k1", &mut stale, LONG).expect("hold"),
        "a heartbeat other than the stored one is not the holder"
    );
    let mut other = Lease {
        owner: "b".into(),
        heartbeat_ms: mine.heartbeat_ms,
    };
    assert!(!store.hold_lease("k1", &mut other, LONG).expect("hold"));
    assert!(
        !store
            .hold_lease("k1", &mut mine.clone(), Duration::ZERO)
            .expect("hold"),
        "a lease older than its timeout by the database's clock is lost"
    );

    assert!(
        !store
            .expire_lease("k1", Some(&mine), LONG)
            .expect("scan cas"),
        "fresh: left to its owner"
    );
    assert!(
        !store
            .expire_lease("k1", Some(&held), Duration::ZERO)
            .expect("scan cas"),
        "renewed since the scanner read it"
    );
    assert!(
        store
            .expire_lease("k1", Some(&mine), Duration::ZERO)
            .expect("scan cas")
    );
    let r = store.load("k1").expect("load");
    assert_eq!((r.state, r.lease), (ClusterState::Alert, None));
    assert!(!store.hold_lease("k1", &mut mine, LONG).expect("hold"));
    assert!(
        !store
            .end_rollout("k1", &mine, LONG, ClusterState::Running)
            .expect("end"),
        "the lease that lost the cluster cannot end its rollout"
    );

    assert!(
        store
            .begin_rollout("k1", ClusterState::Alert, &lease("c"), &settings)
            .expect("begin")
    );
    let c = store.load("k1").expect("load").lease.expect("a lease");
    assert!(
        store
            .end_rollout("k1", &c, LONG, ClusterState::Running)
            .expect("end")
    );
    let r = store.load("k1").expect("load");
    assert_eq!((r.state, r.lease), (ClusterState::Running, None));
}

#[test]
fn the_lease_rules_hold_in_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    the_lease_rules_hold(&format!(
        "sqlite:{}",
        dir.path().join("rollout.db").display()
    ));
}

#[test]
fn the_lease_rules_hold_in_postgres() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    the_lease_rules_hold(&pg.url());
}
