//! `cks-iso register` of one built ISO and `register --catalog` of a signed catalog, as a user
//! runs them, against the CloudStack fake playing each line the product claims (4.20.0, 4.20.x,
//! 4.22, 4.23) from CloudStack's own definitions, with `default.page.size` lowered to 1 so every
//! list is read page by page: both register and wait until Ready, and no call the binary made
//! (nor any field the fake answered) fell outside the line.

use cks_fixtures::cloudstack_api::Line;
use cks_fixtures::http::FileServer;

use crate::register_catalog::{cks, ok, small_iso};
use crate::register_iso::{build_iso, cloud, iso_name, register, stdout};

fn registers_on(line: Line) {
    let cloud = cloud();
    cloud.world.play(line);
    if cloud.world.definitions().is_none() {
        cks_fixtures::skip::skip(&format!(
            "../shared/upstream/cloudstack-api not found: CloudStack {line} cannot be played"
        ));
        return;
    }
    cloud.world.set_max_page_size(1);
    cloud.world.add_zone("zone-2", "zone2");
    cloud
        .world
        .add_ready_kubernetes_version("1.31.2", &format!("{{SHA-256}}{}", "ab".repeat(32)));

    let keys = tempfile::tempdir().expect("keys");
    let public = keys.path().join("release.pub");
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("release").display().to_string(),
    ]));
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
        &keys.path().join("release.key").display().to_string(),
    ]));

    let home = tempfile::tempdir().expect("temp home");
    let catalog = std::process::Command::new(crate::register_iso::cks_iso())
        .args(["register", "--catalog", &files.url("/catalog.json")])
        .args(["--zone", "all", "--require-signature", "--key"])
        .arg(&public)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", cloud.api.endpoint())
        .env("CLOUDSTACK_KEY", crate::register_iso::KEY)
        .env("CLOUDSTACK_SECRET", crate::register_iso::SECRET)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .env_remove("CLOUDSTACK_CONFIG")
        .env_remove("CLOUDSTACK_REGION")
        .output()
        .expect("cks-iso runs");
    ok(catalog);

    let versions: Vec<String> = cloud
        .world
        .kubernetes_versions()
        .into_iter()
        .filter(|(_, _, _, state)| state == "Ready")
        .map(|(_, version, _, _)| version)
        .collect();
    for wanted in ["1.32.5", "1.33.2"] {
        assert!(
            versions.iter().any(|v| v == wanted),
            "{line}: {wanted} registered and Ready: {versions:?}"
        );
    }
    let calls = cloud.world.calls();
    assert!(
        calls.iter().any(|call| call.contains("page=2")),
        "{line}: the lists were read page by page: {calls:#?}"
    );
    assert_eq!(
        cloud.world.conformance_violations(),
        Vec::<String>::new(),
        "{line}"
    );
}

#[test]
fn register_and_a_catalog_hold_to_cloudstack_4_20_0() {
    registers_on(Line::V4_20_0);
}

#[test]
fn register_and_a_catalog_hold_to_cloudstack_4_20() {
    registers_on(Line::V4_20);
}

#[test]
fn register_and_a_catalog_hold_to_cloudstack_4_22() {
    registers_on(Line::V4_22);
}

#[test]
fn register_and_a_catalog_hold_to_cloudstack_4_23() {
    registers_on(Line::V4_23);
}

/// Does every claimed line's fake hold definitions? Says why not (a skip) when they are absent.
fn lines_played() -> bool {
    if cks_fixtures::cloudstack_api::api_lines::definitions(Line::V4_22).is_none() {
        cks_fixtures::skip::skip("../shared/upstream/cloudstack-api not found");
        return false;
    }
    true
}

#[tokio::test(flavor = "multi_thread")]
async fn a_built_iso_registers_on_every_claimed_line_at_a_page_size_of_1() {
    if !lines_played() {
        return;
    }
    let built = build_iso().await;
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{}", iso_name(&built)));
    for line in [Line::V4_20_0, Line::V4_20, Line::V4_22, Line::V4_23] {
        let cloud = cloud();
        cloud.world.play(line);
        cloud.world.set_max_page_size(1);
        cloud.world.add_zone("zone-2", "zone2");
        cloud
            .world
            .add_ready_kubernetes_version("1.31.2", &format!("{{SHA-256}}{}", "ab".repeat(32)));
        let out = ok(register(&cloud, &built.iso, &url, &["--zone", "zone1"]));
        assert!(
            stdout(&out).contains("ISO Ready"),
            "{line}: {}",
            stdout(&out)
        );
        let calls = cloud.world.calls();
        assert!(
            calls.iter().any(|call| call.contains("page=2")),
            "{line}: the lists were read page by page: {calls:#?}"
        );
        assert_eq!(
            cloud.world.conformance_violations(),
            Vec::<String>::new(),
            "{line}"
        );
        assert!(
            cloud
                .world
                .kubernetes_versions()
                .iter()
                .any(|(_, v, _, state)| *v == built.version && state == "Ready"),
            "{line}"
        );
    }
}
