//! The PostgreSQL store over TLS against the real server serving a certificate from a CA the
//! test makes, with every connection in clear refused by the server and the store's role
//! logging in with SCRAM: `verify-full` and `verify-ca` connect with that CA and are refused
//! with another; `verify-full` without a CA (the default off this host) trusts only the
//! system's roots, so the test CA's certificate is refused; `verify-full` also refuses a
//! certificate for another host name, which `verify-ca` accepts; `require` without a CA still
//! encrypts; channel binding is required with TLS, so a server that logs in without it is
//! refused unless the URL asks for less; and the server sees the store's connection as TLS.

use std::path::Path;

use cks_fixtures::postgres::Postgres;
use cks_fixtures::tls::TestCa;
use cks_rollout::adapters::store::postgres_tls::SslMode;
use cks_rollout::adapters::store::{PostgresStore, PostgresUrl};

/// PostgreSQL serving `pair` over TLS and refusing plain connections, with the role `roller`
/// logging in to its database `roll` by SCRAM (which binds to the TLS channel).
fn tls_server(cert: &str, key: &str) -> Postgres {
    let pg = Postgres::start().expect("PostgreSQL starts");
    pg.sql("postgres", "CREATE ROLE roller LOGIN PASSWORD 'pw-roller'")
        .expect("role");
    pg.sql("postgres", "CREATE DATABASE roll OWNER roller")
        .expect("database");
    pg.require_password("roll", "roller").expect("pg_hba");
    pg.serve_tls(cert, key).expect("TLS on");
    pg.require_tls().expect("plain refused");
    pg
}

/// The store's URL for `roller` on 127.0.0.1 with `query`.
fn url(pg: &Postgres, query: &str) -> PostgresUrl {
    format!(
        "postgres://roller:pw-roller@127.0.0.1:{}/roll?{query}",
        pg.port
    )
    .parse()
    .expect("a URL")
}

fn write_ca(dir: &Path, name: &str, ca: &TestCa) -> String {
    let path = dir.join(name);
    std::fs::write(&path, ca.cert_pem()).expect("CA file");
    path.display().to_string()
}

/// True when every connection of the store (application_name cks-rollout) is TLS.
fn store_connection_is_tls(pg: &Postgres) -> bool {
    pg.sql(
        "postgres",
        "SELECT count(*) > 0 AND bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'cks-rollout'",
    )
    .expect("psql reads pg_stat_ssl")
        == "t"
}

#[test]
fn verify_full_connects_with_the_servers_ca_and_is_refused_with_another() {
    let ca = TestCa::new().expect("CA");
    let other = TestCa::new().expect("another CA");
    let pair = ca.server().expect("server certificate for 127.0.0.1");
    let pg = tls_server(&pair.cert, &pair.key);
    let dir = tempfile::tempdir().expect("temp dir");
    let good = write_ca(dir.path(), "ca.pem", &ca);
    let wrong = write_ca(dir.path(), "other.pem", &other);

    let full = url(&pg, &format!("sslmode=verify-full&sslrootcert={good}"));
    assert_eq!(full.tls().mode, SslMode::VerifyFull);
    let store = PostgresStore::open(&full).expect("verify-full with the right CA");
    assert!(
        store_connection_is_tls(&pg),
        "the store's connection is TLS"
    );
    drop(store);

    for mode in ["verify-full", "verify-ca"] {
        let refused = url(&pg, &format!("sslmode={mode}&sslrootcert={wrong}"));
        let e = PostgresStore::open(&refused).expect_err("another CA is refused");
        let text = e.to_string();
        assert!(
            text.contains("certificate") || text.contains("UnknownIssuer"),
            "{mode}: {text}"
        );
    }
    // The server refuses plain connections: sslmode=disable cannot reach it.
    let plain = url(&pg, "sslmode=disable");
    let e = PostgresStore::open(&plain).expect_err("plain is refused");
    assert!(
        e.to_string().contains("no encryption") || e.to_string().contains("pg_hba.conf"),
        "{e}"
    );
}

#[test]
fn verify_ca_accepts_a_certificate_for_another_name_that_verify_full_refuses() {
    let ca = TestCa::new().expect("CA");
    let pair = ca
        .server_named("db.example")
        .expect("certificate for db.example");
    let pg = tls_server(&pair.cert, &pair.key);
    let dir = tempfile::tempdir().expect("temp dir");
    let good = write_ca(dir.path(), "ca.pem", &ca);

    let e = PostgresStore::open(&url(
        &pg,
        &format!("sslmode=verify-full&sslrootcert={good}"),
    ))
    .expect_err("the name 127.0.0.1 is not on the certificate");
    assert!(e.to_string().contains("certificate"), "{e}");
    let _store = PostgresStore::open(&url(&pg, &format!("sslmode=verify-ca&sslrootcert={good}")))
        .expect("verify-ca checks the chain only");
    assert!(store_connection_is_tls(&pg));
}

#[test]
fn require_without_a_ca_still_encrypts() {
    let ca = TestCa::new().expect("CA");
    let pair = ca.server().expect("server certificate");
    let pg = tls_server(&pair.cert, &pair.key);
    let _store = PostgresStore::open(&url(&pg, "sslmode=require")).expect("require connects");
    assert!(store_connection_is_tls(&pg));
    // Loopback without sslmode: libpq's prefer, which takes the TLS the server offers.
    let _default = PostgresStore::open(&pg.url().parse().expect("url")).expect("prefer connects");
    assert!(store_connection_is_tls(&pg));
}

#[test]
fn verify_full_without_a_ca_trusts_the_system_roots_only() {
    let ca = TestCa::new().expect("CA");
    let pair = ca.server().expect("server certificate for 127.0.0.1");
    let pg = tls_server(&pair.cert, &pair.key);
    let dir = tempfile::tempdir().expect("temp dir");
    let good = write_ca(dir.path(), "ca.pem", &ca);

    // What a server off this host gets by default: verify-full to the system's roots, which
    // never issued the test CA's certificate.
    let default = url(&pg, "sslmode=verify-full");
    assert_eq!(default.tls().root_cert, None);
    let e = PostgresStore::open(&default).expect_err("a certificate no system root signed");
    assert!(
        e.to_string().contains("certificate") || e.to_string().contains("UnknownIssuer"),
        "{e}"
    );
    for asked in [
        "sslmode=verify-full&sslrootcert=system",
        "sslrootcert=system",
    ] {
        let e = PostgresStore::open(&url(&pg, asked)).expect_err("system roots only");
        assert!(e.to_string().contains("certificate"), "{asked}: {e}");
    }
    let _store = PostgresStore::open(&url(
        &pg,
        &format!("sslrootcert={good}&sslmode=verify-full"),
    ))
    .expect("the server's CA given with sslrootcert");
    assert!(store_connection_is_tls(&pg));
}

#[test]
fn with_tls_the_login_must_bind_to_the_channel_unless_the_url_asks_for_less() {
    let ca = TestCa::new().expect("CA");
    let pair = ca.server().expect("server certificate");
    let pg = tls_server(&pair.cert, &pair.key);
    let dir = tempfile::tempdir().expect("temp dir");
    let good = write_ca(dir.path(), "ca.pem", &ca);

    // The superuser logs in by trust, without SCRAM: nothing binds the login to the TLS
    // channel, as with a server that relays the login through a TLS connection of its own.
    let trusted = |query: &str| -> PostgresUrl {
        format!("postgres://postgres@127.0.0.1:{}/postgres?{query}", pg.port)
            .parse()
            .expect("a URL")
    };
    let bound = trusted(&format!("sslmode=verify-full&sslrootcert={good}"));
    assert_eq!(
        bound.tls().channel_binding,
        postgres::config::ChannelBinding::Require
    );
    let e = PostgresStore::open(&bound).expect_err("a login without channel binding");
    assert!(e.to_string().contains("channel binding"), "{e}");
    let asked = trusted(&format!(
        "sslmode=verify-full&sslrootcert={good}&channel_binding=prefer"
    ));
    assert!(asked.tls().warning().is_none(), "loopback: nothing to warn");
    let _store = PostgresStore::open(&asked).expect("less, as the URL asks");

    // SCRAM with channel binding (SCRAM-SHA-256-PLUS) passes the requirement.
    let _store = PostgresStore::open(&url(
        &pg,
        &format!("sslmode=verify-full&sslrootcert={good}"),
    ))
    .expect("SCRAM bound to the channel");
    assert!(store_connection_is_tls(&pg));
}
