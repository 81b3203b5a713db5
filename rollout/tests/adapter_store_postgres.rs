//! The PostgreSQL store against a real server: records round-trip, compare-and-set changes
//! nothing when the state is not the expected one, leases renew only for their owner, the
//! schema is created with its version recorded and a newer one is refused, a lost connection
//! is reported as unavailable and the next call reconnects, and eight connections in two OS
//! processes racing to move hundreds of clusters to `Updating` never both win one.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use cks_fixtures::postgres::Postgres;
use cks_rollout::adapters::store::{AnyStore, PostgresStore, PostgresUrl, StoreUrl};
use cks_rollout::model::{ClusterRecord, ClusterState, Lease, NodeType, NodeTypeSettings};
use cks_rollout::ports::{PortErrorKind, Store};

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

fn lease(owner: &str) -> Lease {
    Lease {
        owner: owner.to_string(),
        heartbeat_ms: 1,
    }
}

fn open(url: &str) -> PostgresStore {
    let url: PostgresUrl = url.parse().expect("a PostgreSQL URL");
    PostgresStore::open(&url).expect("store opens")
}

#[test]
fn compare_and_set_settings_flags_and_leases_in_postgres() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let mut store = open(&pg.url());
    store.put(&record("k1")).expect("put");
    assert_eq!(store.load("k1").expect("load"), record("k1"));
    let missing = store.load("k2").expect_err("no k2");
    assert_eq!(missing.kind, PortErrorKind::NotFound);
    assert!(missing.message.contains("no cluster k2"), "{missing}");

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
    let mut settings = BTreeMap::new();
    settings.insert(
        NodeType::Worker,
        NodeTypeSettings {
            offering_id: Some("so-big".into()),
            root_disk_size_gb: Some(40),
            affinity_group_ids: None,
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
        "one transaction moved it, cleared the stale cancel and stored the settings"
    );
    assert!(
        !store
            .begin_rollout("k1", ClusterState::Running, &lease("b"), &settings)
            .expect("begin"),
        "a second rollout loses"
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

    // Another connection (through the URL selection, as the CLI opens it) sees all of it.
    let url: StoreUrl = pg.url().parse().expect("store URL");
    let mut reopened = AnyStore::open(&url).expect("store reopens");
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
    assert_eq!(
        pg.sql(
            "postgres",
            "SELECT state || ' ' || (record->'lease'->>'owner') FROM clusters WHERE id = 'k1'"
        )
        .expect("psql reads the row"),
        "Updating a",
        "the state column and the JSONB record agree"
    );
}

#[test]
fn the_schema_is_created_once_with_its_version_and_a_newer_one_is_refused() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    let url = pg.create_database("rollout").expect("database");
    let mut first = open(&url);
    assert_eq!(first.schema_version().expect("version"), 1);
    // A second open migrates nothing and keeps the data.
    first.put(&record("k1")).expect("put");
    let mut second = open(&url);
    assert_eq!(second.get("k1").expect("kept").id, "k1");
    assert_eq!(
        pg.sql("rollout", "SELECT count(*) FROM schema_version")
            .expect("psql"),
        "1"
    );

    pg.sql("rollout", "INSERT INTO schema_version (version) VALUES (7)")
        .expect("a newer tool's migration");
    let parsed: PostgresUrl = url.parse().expect("URL");
    let e = PostgresStore::open(&parsed).expect_err("a newer schema is refused");
    let text = e.to_string();
    assert!(
        text.contains("version 7") && text.contains("version 1"),
        "names both versions: {text}"
    );
    assert!(
        text.contains(&parsed.to_string()),
        "names the store: {text}"
    );
}

#[test]
fn a_password_in_the_url_is_used_and_never_shown() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    pg.sql(
        "postgres",
        "CREATE ROLE roller LOGIN PASSWORD 'pw-not-shown'",
    )
    .expect("role");
    pg.sql("postgres", "CREATE DATABASE roll OWNER roller")
        .expect("database");
    // Password authentication for this role, trust for the superuser the fixture uses.
    pg.require_password("roll", "roller").expect("pg_hba");
    let wrong: PostgresUrl = format!("postgres://roller:not-it@127.0.0.1:{}/roll", pg.port)
        .parse()
        .expect("URL");
    let e = PostgresStore::open(&wrong).expect_err("a wrong password is refused");
    assert!(!e.to_string().contains("not-it"), "{e}");
    let good = format!("postgres://roller:pw-not-shown@127.0.0.1:{}/roll", pg.port);
    let mut store = open(&good);
    store.put(&record("k1")).expect("put as the role");
    assert!(!format!("{store:?}").contains("pw-not-shown"));
    assert_eq!(
        store.url().to_string(),
        format!("postgres://roller@127.0.0.1:{}/roll", pg.port)
    );
    // An unreachable server: the error names the store, never the password.
    let closed = cks_fixtures::process::free_port().expect("port");
    let bad: PostgresUrl = format!("postgres://roller:pw-not-shown@127.0.0.1:{closed}/roll")
        .parse()
        .expect("URL");
    let e = PostgresStore::open(&bad).expect_err("nothing listens");
    let text = e.to_string();
    assert!(text.contains(&format!("127.0.0.1:{closed}")), "{text}");
    assert!(!text.contains("pw-not-shown"), "{text}");
}

#[test]
fn a_lost_connection_is_unavailable_and_the_next_call_reconnects() {
    let mut pg = Postgres::start().expect("PostgreSQL starts");
    let mut store = open(&pg.url());
    store.put(&record("k1")).expect("put");
    pg.sql(
        "postgres",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cks-rollout'",
    )
    .expect("terminate the store's backend");
    let lost = store.renew_lease("k1", &lease("a"));
    if let Err(e) = &lost {
        assert_eq!(e.kind, PortErrorKind::Unavailable, "{e}");
    }
    // The next call has a new connection (the first may already have noticed the close).
    assert!(!store.renew_lease("k1", &lease("a")).expect("reconnected"));

    pg.kill().expect("server stops");
    let e = store.load("k1").expect_err("server down");
    assert_eq!(e.kind, PortErrorKind::Unavailable, "{e}");
    let e = store
        .compare_and_set_state("k1", ClusterState::Running, ClusterState::Updating, None)
        .expect_err("server down");
    assert_eq!(e.kind, PortErrorKind::Unavailable, "{e}");
    pg.resume().expect("server restarts");
    assert_eq!(store.load("k1").expect("reconnected").id, "k1");
}

const CHILD_URL: &str = "CKS_PG_RACE_URL";
const CHILD_NAME: &str = "CKS_PG_RACE_NAME";
const CHILD_GO: &str = "CKS_PG_RACE_GO";
const CLUSTERS: usize = 300;
const THREADS: usize = 4;

/// Run as a child process: `THREADS` connections, each trying to take every cluster in its own
/// order, after the start signal; prints `won <id> <owner>` per win.
fn race_as_child(url: &str, name: &str, go: &str) {
    let stores: Vec<PostgresStore> = (0..THREADS).map(|_| open(url)).collect();
    std::fs::write(format!("{go}.ready-{name}"), "").expect("ready signal");
    cks_fixtures::process::wait_for_path(std::path::Path::new(go), Duration::from_secs(60))
        .expect("start signal");
    let handles: Vec<_> = stores
        .into_iter()
        .enumerate()
        .map(|(t, mut store)| {
            let owner = format!("{name}-t{t}");
            std::thread::spawn(move || {
                // Each connection starts at a different cluster, so they collide everywhere.
                let start = (t * CLUSTERS / THREADS + if owner.starts_with("p2") { 37 } else { 0 })
                    % CLUSTERS;
                let mut won = Vec::new();
                for k in 0..CLUSTERS {
                    let id = format!("c{:03}", (start + k) % CLUSTERS);
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
}

#[test]
fn eight_connections_in_two_processes_racing_for_updating_never_both_win() {
    if let (Ok(url), Ok(name), Ok(go)) = (
        std::env::var(CHILD_URL),
        std::env::var(CHILD_NAME),
        std::env::var(CHILD_GO),
    ) {
        race_as_child(&url, &name, &go);
        return;
    }
    let pg = Postgres::start().expect("PostgreSQL starts");
    let url = pg.url();
    let mut store = open(&url);
    for i in 0..CLUSTERS {
        store.put(&record(&format!("c{i:03}"))).expect("put");
    }
    let signals = tempfile::tempdir().expect("temp dir");
    let go = signals.path().join("go");
    let exe = std::env::current_exe().expect("test binary");
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test =
        format!("{module}::eight_connections_in_two_processes_racing_for_updating_never_both_win");
    let children: Vec<_> = ["p1", "p2"]
        .iter()
        .map(|name| {
            Command::new(&exe)
                .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
                .env(CHILD_URL, &url)
                .env(CHILD_NAME, name)
                .env(CHILD_GO, &go)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("child starts")
        })
        .collect();
    for name in ["p1", "p2"] {
        let ready = std::path::PathBuf::from(format!("{}.ready-{name}", go.display()));
        cks_fixtures::process::wait_for_path(&ready, Duration::from_secs(60)).expect("child ready");
    }
    std::fs::write(&go, "").expect("start signal");
    let mut winners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for child in children {
        let out = child.wait_with_output().expect("child ends");
        assert!(
            out.status.success(),
            "child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            // libtest's "test ... " header may share the first line.
            let Some((_, won)) = line.split_once("won ") else {
                continue;
            };
            let mut words = won.split_whitespace();
            if let (Some(id), Some(owner)) = (words.next(), words.next()) {
                winners
                    .entry(id.to_string())
                    .or_default()
                    .push(owner.to_string());
            }
        }
    }
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
    assert!(
        per_owner.keys().any(|o| o.starts_with("p1"))
            && per_owner.keys().any(|o| o.starts_with("p2")),
        "both processes took part: {per_owner:?}"
    );
}
