//! The PostgreSQL store against a real server: the store contract (every rule, and eight
//! connections in two OS processes racing for hundreds of clusters never both win one, both
//! taking part), with the state column and the JSONB record agreeing; beyond it, the schema is
//! created with its version recorded and a newer one is refused, a password is used and never
//! shown, a lost connection is reported as unavailable and the next call reconnects, and a
//! refusal by the server is not.

use cks_fixtures::postgres::Postgres;
use cks_rollout::adapters::store::{PostgresStore, PostgresUrl};
use cks_rollout::model::ClusterState;
use cks_rollout::ports::{PortErrorKind, Store};

use super::store_contract::{lease, race, race_child, record, the_contract_holds};
use super::two_processes::test_name;

fn open(url: &str) -> PostgresStore {
    let url: PostgresUrl = url.parse().expect("a PostgreSQL URL");
    PostgresStore::open(&url).expect("store opens")
}

#[test]
fn the_store_contract_holds_in_postgres() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    the_contract_holds(&pg.url());
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
    // The store's next call is the one that finds its connection closed.
    pg.terminate_backends("postgres", "application_name = 'cks-rollout'")
        .expect("terminate the store's backend");
    let e = store
        .renew_lease("k1", &lease("a"))
        .expect_err("the connection was lost");
    assert_eq!(e.kind, PortErrorKind::Unavailable, "{e}");
    // The next call has a new connection.
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

/// A server that answers with a refusal (here: the role lost its right to the table) is not
/// "unavailable for now": the engine does not wait it out as it waits out a lost connection.
#[test]
fn a_refusal_by_the_server_is_not_unavailable() {
    let pg = Postgres::start().expect("PostgreSQL starts");
    pg.sql("postgres", "CREATE ROLE roller LOGIN")
        .expect("role");
    pg.sql("postgres", "CREATE DATABASE roll OWNER roller")
        .expect("database");
    let mut store = open(&format!("postgres://roller@127.0.0.1:{}/roll", pg.port));
    store.put(&record("k1")).expect("put as the role");
    pg.sql("roll", "ALTER TABLE clusters OWNER TO postgres")
        .expect("the table taken from the role");
    let e = store
        .load("k1")
        .expect_err("the role may no longer read it");
    assert_eq!(e.kind, PortErrorKind::Other, "{e}");
    assert!(e.message.contains("permission denied"), "{e}");
}

#[test]
fn eight_connections_in_two_processes_racing_for_updating_never_both_win() {
    if race_child() {
        return;
    }
    let pg = Postgres::start().expect("PostgreSQL starts");
    let test = test_name(
        module_path!(),
        "eight_connections_in_two_processes_racing_for_updating_never_both_win",
    );
    let per_owner = race(&pg.url(), 4, &test);
    assert!(
        per_owner.keys().any(|o| o.starts_with("p1"))
            && per_owner.keys().any(|o| o.starts_with("p2")),
        "both processes took part: {per_owner:?}"
    );
}
