//! No CloudStack answer grows `cks-iso register`'s memory: against a server whose answer never
//! ends, `register --catalog` stops at the answer limit with an error naming the limit and
//! `--max-answer-size`, its peak memory (measured by `/usr/bin/time -v`) well under 100 MiB.

use std::process::Command;

use cks_fixtures::endless::{
    CLOUDSTACK_LIST_ITEM, CLOUDSTACK_LIST_OPENING, EndlessServer, peak_memory,
};

use cks_fixtures::http::FileServer;

use crate::catalog_signing::small_iso;

/// `cks-iso register --catalog` of a catalog of one small ISO, against `server`.
fn register(server: &EndlessServer, catalog: &std::path::Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command
        .arg("register")
        .arg("--catalog")
        .arg(catalog)
        .arg("--no-wait")
        .arg("--allow-unsigned")
        .args(extra)
        .env(
            "CLOUDSTACK_ENDPOINT",
            format!("{}/client/api", server.url()),
        )
        .env("CLOUDSTACK_KEY", "key")
        .env("CLOUDSTACK_SECRET", "secret")
        .env_remove("CLOUDSTACK_CONFIG");
    command
}

#[test]
fn register_against_an_endless_answer_stops_at_the_limit_under_100_mib() {
    let server =
        EndlessServer::start(CLOUDSTACK_LIST_OPENING, CLOUDSTACK_LIST_ITEM).expect("server");
    let dir = tempfile::tempdir().expect("temp dir");
    small_iso(dir.path(), "1.33.1");
    let images = FileServer::start(dir.path()).expect("image server");
    let made = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .arg("catalog")
        .arg(dir.path())
        .arg("--base-url")
        .arg(images.base_url())
        .output()
        .expect("cks-iso runs");
    assert!(made.status.success(), "{made:?}");
    let catalog = dir.path().join("catalog.json");

    let run = peak_memory(register(&server, &catalog, &[])).expect("cks-iso runs");
    let stderr = String::from_utf8_lossy(&run.output.stderr).into_owned();
    println!(
        "cks-iso register, endless answer: peak memory {} KiB, {} bytes sent",
        run.max_rss_kib,
        server.bytes_sent()
    );
    assert!(!run.output.status.success(), "{stderr}");
    assert!(
        stderr.contains("32 MiB") && stderr.contains("--max-answer-size"),
        "{stderr}"
    );
    assert!(
        run.max_rss_kib < 100 * 1024,
        "peak memory {} KiB",
        run.max_rss_kib
    );

    let run =
        peak_memory(register(&server, &catalog, &["--max-answer-size", "3MiB"])).expect("runs");
    let stderr = String::from_utf8_lossy(&run.output.stderr).into_owned();
    assert!(
        stderr.contains("3 MiB") && stderr.contains("--max-answer-size"),
        "the flag sets the limit: {stderr}"
    );
}
