//! The fleet store against a real PostgreSQL server and a SQLite file: a fleet is created once;
//! eight workers, each with its own connection, changing one fleet 50 times each lose no
//! change (serialisable retries in PostgreSQL, `BEGIN IMMEDIATE` in SQLite); a change that
//! returns false writes nothing; an unknown fleet is a not-found error naming the fleets there.
//! In PostgreSQL the fleet table lives beside the rollout's in one database with its own schema
//! version, a newer one is refused, and a lost connection is unavailable and then replaced.

use std::thread;

use cks_fixtures::postgres::Postgres;
use cks_fixtures::skip::skip;
use cks_fleet::adapters::store;
use cks_fleet::model::{Actions, FleetPlan, FleetRecord, PlannedStage};
use cks_rollout::adapters::store::{PostgresStore, StoreUrl};
use cks_rollout::ports::PortErrorKind;

const WORKERS: usize = 8;
const CHANGES: u32 = 50;

/// A started server, or `None` (the test skipped) where PostgreSQL is not installed.
fn postgres() -> Option<Postgres> {
    match Postgres::start() {
        Ok(pg) => Some(pg),
        Err(e) if e.to_string().contains("is not installed") => {
            skip(&format!("no PostgreSQL here: {e}"));
            None
        }
        Err(e) => panic!("PostgreSQL starts: {e:#}"),
    }
}

fn url(text: &str) -> StoreUrl {
    text.parse().expect("a store URL")
}

fn record(id: &str) -> FleetRecord {
    let plan = FleetPlan {
        stages: vec![PlannedStage {
            name: "canary".into(),
            clusters: vec!["c1".into(), "c2".into()],
            parallelism: 1,
            soak_ms: 60_000,
            gates: vec![],
            halt_after: 1,
        }],
        actions: Actions::default(),
        windows: vec![],
        lease_ms: 30_000,
        gate_timeout_ms: 60_000,
        gate_env: vec![],
        skipped: vec![],
    };
    let cluster = |id: &str| {
        (
            id.to_string(),
            format!("k8s-{id}"),
            None,
            "1.30.2".to_string(),
        )
    };
    FleetRecord::new(id, 0, plan, [cluster("c1"), cluster("c2")])
}

/// Create once, a change that writes and one that does not, the store's clock, and an unknown
/// fleet's error, on the store at `url`.
fn create_change_get(url: &StoreUrl) {
    let mut fleets = store::open(url).expect("the store opens");
    let made = record("march");
    assert!(
        fleets.create(&made).expect("created"),
        "a new fleet is written"
    );
    let mut again = record("march");
    again.cancelled = true;
    assert!(
        !fleets.create(&again).expect("create again"),
        "a second create of the same fleet writes nothing"
    );
    assert_eq!(
        fleets.get("march").expect("read"),
        made,
        "the first record is kept"
    );

    let before = fleets.now_ms().expect("the store's clock");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    assert!(
        before.abs_diff(now) < 60_000,
        "store clock {before} vs {now}"
    );
    let mut seen = 0;
    fleets
        .change("march", &mut |r, now_ms| {
            seen = now_ms;
            r.halted = Some("stage canary: 1 failure".into());
            true
        })
        .expect("changed");
    assert!(
        seen >= before,
        "the change sees the store's clock: {seen} < {before}"
    );
    fleets
        .change("march", &mut |r, _| {
            r.halted = None;
            false
        })
        .expect("a change that declines");
    let kept = fleets.get("march").expect("read");
    assert_eq!(kept.halted.as_deref(), Some("stage canary: 1 failure"));
    assert_eq!(kept.clusters.len(), 2);

    let e = fleets.get("april").expect_err("no such fleet");
    let text = e.to_string();
    assert!(
        text.contains("no fleet april") && text.contains("its fleets: march"),
        "{text}"
    );
    let e = fleets
        .change("april", &mut |_, _| true)
        .expect_err("no such fleet");
    assert_eq!(e.kind, PortErrorKind::NotFound, "{e}");
    assert!(e.message.contains("no fleet april"), "{e}");
    assert_eq!(fleets.ids().expect("ids"), ["march"]);
}

/// Eight workers, each with its own connection, add one to the fleet's counter 50 times each.
fn race(url: &StoreUrl) {
    let mut fleets = store::open(url).expect("the store opens");
    fleets.create(&record("race")).expect("created");
    thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                let mut mine = store::open(url).expect("the store opens");
                for _ in 0..CHANGES {
                    mine.change("race", &mut |r, _| {
                        r.takeovers += 1;
                        true
                    })
                    .expect("a change lands");
                }
            });
        }
    });
    assert_eq!(
        fleets.get("race").expect("read").takeovers,
        WORKERS as u32 * CHANGES,
        "no change lost"
    );
}

#[test]
fn a_fleet_is_created_once_changed_without_losing_updates_and_an_unknown_one_is_named_in_postgres()
{
    let Some(pg) = postgres() else { return };
    let text = pg.create_database("fleet").expect("database");
    let url = url(&text);
    // The rollout's tables first, as when the fleet shares the rollout's store.
    let StoreUrl::Postgres(pg_url) = &url else {
        panic!("a PostgreSQL URL")
    };
    PostgresStore::open(pg_url).expect("the rollout's store opens");
    create_change_get(&url);
    race(&url);
    assert_eq!(
        pg.sql(
            "fleet",
            "SELECT record->>'takeovers' FROM fleets WHERE id = 'race'"
        )
        .expect("psql"),
        "400",
        "the JSONB record holds the count"
    );
    assert_eq!(
        pg.sql(
            "fleet",
            "SELECT (SELECT max(version) FROM fleet_schema_version) || ' ' || \
             (SELECT max(version) FROM schema_version) || ' ' || \
             (SELECT count(*) FROM clusters)"
        )
        .expect("psql"),
        "1 1 0",
        "the fleet's schema version beside the rollout's"
    );
}

#[test]
fn a_newer_fleet_schema_is_refused_and_a_lost_connection_is_replaced_in_postgres() {
    let Some(pg) = postgres() else { return };
    let text = pg.create_database("fleet").expect("database");
    let url = url(&text);
    let mut fleets = store::open(&url).expect("the store opens");
    fleets.create(&record("march")).expect("created");
    // A second open migrates nothing.
    drop(store::open(&url).expect("opens again"));
    // The store's next call is the one that finds its connection closed.
    pg.terminate_backends("fleet", "datname = 'fleet'")
        .expect("terminate the store's backend");
    let e = fleets
        .change("march", &mut |_, _| true)
        .expect_err("the connection was lost");
    assert_eq!(e.kind, PortErrorKind::Unavailable, "{e}");
    assert_eq!(fleets.get("march").expect("reconnected").id, "march");

    pg.sql(
        "fleet",
        "INSERT INTO fleet_schema_version (version) VALUES (9)",
    )
    .expect("a newer tool's migration");
    let e = store::open(&url).expect_err("a newer schema is refused");
    let text = e.to_string();
    assert!(
        text.contains("version 9") && text.contains("version 1") && text.contains(&url.to_string()),
        "names both versions and the store: {text}"
    );
}

#[test]
fn a_fleet_is_created_once_changed_without_losing_updates_and_an_unknown_one_is_named_in_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = url(&format!("sqlite:{}", dir.path().join("fleet.db").display()));
    create_change_get(&url);
    race(&url);
}
