//! `cks-iso register --catalog` refusing what it must not trust, end to end against the CloudStack
//! API fake: a catalog used without `--key` only with `--allow-unsigned` (one warning), a catalog
//! served again with an older serial than the last applied (or below `--min-serial`), an expired
//! one and an empty one, each signed by the release key, refused with nothing changed; and
//! `--retire-eol` reaching only the catalog's own versions of minors older than its oldest, in
//! the zones asked for, every deletion listed by `--dry-run` first. A catalog past its size
//! limit, unsigned, or without URLs is refused naming it.

use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::http::FileServer;
use serde_json::Value;

use crate::register_catalog::{KEY, SECRET, World, changes, cks, cks_iso, ok, register, small_iso};
use crate::register_iso::{stdout, the_error};

/// Rewrites `dir/catalog.json` with `change` and signs it again with `key`.
fn rewrite_catalog(dir: &Path, key: &Path, change: &dyn Fn(&mut Value)) {
    let path = dir.join("catalog.json");
    let mut catalog: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("catalog")).expect("JSON");
    change(&mut catalog);
    std::fs::write(&path, serde_json::to_string_pretty(&catalog).expect("JSON")).expect("write");
    cks_builder::signing::SigningKey::read(key)
        .expect("key")
        .sign_file(&path)
        .expect("signs");
}

/// `register --catalog URL` with `args` (no default flags).
fn register_bare(world: &World, catalog: &str, args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp home");
    Command::new(cks_iso())
        .args(["register", "--catalog", catalog])
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", world.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("CLOUDSTACK_REGION")
        .output()
        .expect("cks-iso runs")
}

#[test]
fn an_unsigned_replayed_expired_or_empty_catalog_is_refused() {
    let keys = tempfile::tempdir().expect("keys");
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("release").display().to_string(),
    ]));
    let (key, public) = (
        keys.path().join("release.key"),
        keys.path().join("release.pub"),
    );
    let public_text = public.display().to_string();
    let published = tempfile::tempdir().expect("published");
    small_iso(published.path(), "1.33.2");
    let files = FileServer::start(published.path()).expect("file server");
    let dir = published.path().display().to_string();
    let sign = |serial: &str| {
        ok(cks(&[
            "catalog",
            &dir,
            "--base-url",
            &files.url("/"),
            "--sign-key",
            &key.display().to_string(),
            "--serial",
            serial,
        ]))
    };
    sign("100");
    let world = {
        let cloud = CloudWorld::new(KEY, SECRET);
        let api = CloudStackFake::start(cloud.clone()).expect("the CloudStack fake starts");
        World { cloud, api }
    };
    let url = files.url("/catalog.json");

    // No --key: refused, unless --allow-unsigned, which warns once.
    let unkeyed = the_error(&register_bare(&world, &url, &["--dry-run"]));
    assert!(
        unkeyed.contains("--key PUB is required") && unkeyed.contains("--allow-unsigned"),
        "{unkeyed}"
    );
    let allowed = ok(register_bare(
        &world,
        &url,
        &["--allow-unsigned", "--dry-run"],
    ));
    let stderr = String::from_utf8_lossy(&allowed.stderr);
    assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
    assert!(stderr.contains("--allow-unsigned"), "{stderr}");
    assert!(
        stdout(&allowed).contains("would register"),
        "{}",
        stdout(&allowed)
    );

    // Serial 200 applied; serial 100 served again afterwards is refused, as is --min-serial.
    sign("200");
    ok(register_bare(
        &world,
        &url,
        &["--key", &public_text, "--no-wait"],
    ));
    assert_eq!(
        std::fs::read_to_string(keys.path().join("release.pub.serial")).expect("state"),
        "200\n"
    );
    sign("100");
    let replayed = the_error(&register_bare(&world, &url, &["--key", &public_text]));
    assert!(replayed.contains("serial 100, below 200"), "{replayed}");
    sign("200");
    let below = the_error(&register_bare(
        &world,
        &url,
        &["--key", &public_text, "--min-serial", "300"],
    ));
    assert!(below.contains("serial 200, below 300"), "{below}");

    // Expired, and empty: each signed by the release key, each refused.
    let calls = changes(&world).len();
    rewrite_catalog(published.path(), &key, &|c| {
        c["expires"] = Value::from("2020-01-01T00:00:00Z");
    });
    let expired = the_error(&register_bare(&world, &url, &["--key", &public_text]));
    assert!(
        expired.contains("expired at 2020-01-01T00:00:00Z"),
        "{expired}"
    );
    sign("300");
    rewrite_catalog(published.path(), &key, &|c| {
        c["isos"] = Value::Array(Vec::new());
        c["checksums"] = Value::Array(Vec::new());
    });
    let empty = the_error(&register_bare(
        &world,
        &url,
        &["--key", &public_text, "--retire-eol"],
    ));
    assert!(empty.contains("lists no ISO"), "{empty}");
    assert_eq!(changes(&world).len(), calls, "nothing changed");
}

#[test]
fn retire_eol_leaves_newer_hand_registered_and_other_zone_versions() {
    let keys = tempfile::tempdir().expect("keys");
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("release").display().to_string(),
    ]));
    let (key, public) = (
        keys.path().join("release.key"),
        keys.path().join("release.pub"),
    );
    let published = tempfile::tempdir().expect("published");
    small_iso(published.path(), "1.32.5");
    small_iso(published.path(), "1.33.2");
    let files = FileServer::start(published.path()).expect("file server");
    ok(cks(&[
        "catalog",
        &published.path().display().to_string(),
        "--base-url",
        &files.url("/"),
        "--sign-key",
        &key.display().to_string(),
    ]));
    let world = {
        let cloud = CloudWorld::new(KEY, SECRET);
        let api = CloudStackFake::start(cloud.clone()).expect("the CloudStack fake starts");
        World { cloud, api }
    };
    world.cloud.add_zone("zone-2", "zone2");
    let other = format!("{{SHA-256}}{}", "ab".repeat(32));
    let add = |version: &str, zone: Option<&str>, url: String| {
        let id = match zone {
            Some(zone) => world
                .cloud
                .add_ready_kubernetes_version_in(version, &other, zone),
            None => world.cloud.add_ready_kubernetes_version(version, &other),
        };
        world.cloud.set_kubernetes_version_url(&id, &url);
    };
    let ours = |version: &str| files.url(&format!("/cks-{version}-x86_64.iso"));
    add("1.34.0", Some("zone-1"), ours("1.34.0"));
    add(
        "1.30.9",
        Some("zone-1"),
        "https://elsewhere.example/mine.iso".into(),
    );
    add("1.30.4", Some("zone-2"), ours("1.30.4"));
    add("1.31.2", None, ours("1.31.2"));
    add("1.31.3", Some("zone-1"), ours("1.31.3"));
    let url = files.url("/catalog.json");
    let public = public.display().to_string();
    let flags = ["--key", public.as_str(), "--zone", "zone1", "--retire-eol"];

    let dry = ok(register_bare(
        &world,
        &url,
        &[&flags[..], &["--dry-run"]].concat(),
    ));
    let table = stdout(&dry);
    let deletions: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("would delete") || l.contains("would disable"))
        .collect();
    assert_eq!(deletions.len(), 1, "{table}");
    assert!(deletions[0].contains("1.31.3"), "{table}");
    ok(register_bare(
        &world,
        &url,
        &[&flags[..], &["--no-wait"]].concat(),
    ));
    let left: Vec<String> = world
        .cloud
        .kubernetes_versions()
        .into_iter()
        .map(|(_, version, _, _)| version)
        .collect();
    for kept in ["1.34.0", "1.30.9", "1.30.4", "1.31.2"] {
        assert!(left.iter().any(|v| v == kept), "{kept} kept: {left:?}");
    }
    assert!(!left.iter().any(|v| v == "1.31.3"), "{left:?}");
}

#[test]
fn a_catalog_past_its_limit_unsigned_or_without_urls_is_refused_naming_it() {
    let keys = tempfile::tempdir().expect("keys");
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("release").display().to_string(),
    ]));
    let public = keys.path().join("release.pub");
    let published = tempfile::tempdir().expect("published");
    small_iso(published.path(), "1.33.2");
    let files = FileServer::start(published.path()).expect("file server");
    ok(cks(&[
        "catalog",
        &published.path().display().to_string(),
        "--base-url",
        &files.url("/"),
    ]));
    let cloud = CloudWorld::new(KEY, SECRET);
    let api = CloudStackFake::start(cloud.clone()).expect("the CloudStack fake starts");
    let world = World { cloud, api };
    let url = files.url("/catalog.json");

    let large = the_error(&register(&world, &url, &public, &["--catalog-limit", "50"]));
    assert!(
        large.contains(&url) && large.contains("50 bytes") && large.contains("--catalog-limit"),
        "{large}"
    );
    let file = published.path().join("catalog.json").display().to_string();
    let large_file = the_error(&register(
        &world,
        &file,
        &public,
        &["--catalog-limit", "50"],
    ));
    assert!(
        large_file.contains(&file) && large_file.contains("--catalog-limit"),
        "{large_file}"
    );
    let unsigned = the_error(&register(&world, &url, &public, &[]));
    assert!(
        unsigned.contains("catalog.json.sig") && unsigned.contains("404"),
        "{unsigned}"
    );

    // Without --base-url a catalog read from a file cannot say where CloudStack downloads from.
    ok(cks(&["catalog", &published.path().display().to_string()]));
    let home = tempfile::tempdir().expect("home");
    let no_url = Command::new(cks_iso())
        .args(["register", "--catalog", &file, "--allow-unsigned"])
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", world.api.endpoint())
        .env("CLOUDSTACK_KEY", KEY)
        .env("CLOUDSTACK_SECRET", SECRET)
        .env_remove("CLOUDSTACK_CONFIG")
        .output()
        .expect("cks-iso runs");
    let no_url = the_error(&no_url);
    assert!(
        no_url.contains("has no url") && no_url.contains("--base-url"),
        "{no_url}"
    );
    assert!(
        world.cloud.calls().is_empty(),
        "CloudStack was not called: {:?}",
        world.cloud.calls()
    );
}
