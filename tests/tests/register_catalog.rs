//! `cks-iso register --catalog` end to end, as a release engineer's CI runs it: ISOs of three
//! versions (two patches of 1.33, one of 1.32) catalogued and signed with `cks-iso catalog
//! --sign-key`, served over HTTP on loopback, registered with the `cks-iso` binary against the
//! CloudStack API fake with two zones, whose state the real Python `cs` client sets up and reads
//! back. One version is already present in one zone, two of an end-of-life minor are retired
//! (deleted when unused, disabled while a cluster runs it), only the newest patch per minor is
//! registered, `--dry-run` changes nothing, a second run does nothing, and every tampering (the
//! ISO's bytes, its signature, a catalog signed by another key, a re-signed catalog over a
//! changed ISO) is refused before CloudStack is called at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::http::FileServer;
use serde_json::Value;

use crate::register_iso::{stdout, the_error};

/// The `cks-iso` binary, built once for this file's many runs.
pub(crate) fn cks_iso() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY.get_or_init(crate::register_iso::cks_iso).clone()
}

pub(crate) const KEY: &str = "catalog-key";
pub(crate) const SECRET: &str = "catalog-secret";

/// ISOs built against the demo upstream (one upstream per version), built once for this file:
/// `cks-<version>-x86_64.iso` with its sidecar and SBOM, in a folder that lives as long as the
/// test binary.
fn built_isos() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("dir").keep();
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(async {
            for version in VERSIONS {
                let config = cks_fixtures::demo::DemoConfig {
                    kubernetes: version.to_string(),
                    ..Default::default()
                };
                let upstream = cks_e2e::start_upstream(config).await;
                let mut inputs = cks_e2e::demo_inputs(&upstream, &dir, "x86_64");
                inputs.build_name = Some(format!("cks-{version}"));
                cks_e2e::run_build(&inputs, Default::default())
                    .await
                    .expect("the demo build");
            }
        });
        dir
    })
}

/// The versions [`built_isos`] holds.
const VERSIONS: [&str; 3] = ["1.32.5", "1.33.1", "1.33.2"];

/// Copies the built ISO of `version` (with its sidecar and SBOM) into `dir`.
pub(crate) fn small_iso(dir: &Path, version: &str) -> PathBuf {
    let name = format!("cks-{version}-x86_64.iso");
    for suffix in ["", ".sha256", ".spdx.json"] {
        std::fs::copy(
            built_isos().join(format!("{name}{suffix}")),
            dir.join(format!("{name}{suffix}")),
        )
        .expect("copy a built ISO");
    }
    dir.join(name)
}

pub(crate) fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub(crate) fn cks(args: &[&str]) -> Output {
    Command::new(cks_iso())
        .args(args)
        .output()
        .expect("cks-iso runs")
}

pub(crate) struct World {
    pub(crate) cloud: CloudWorld,
    pub(crate) api: CloudStackFake,
}

pub(crate) fn register(world: &World, catalog: &str, public: &Path, extra: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("temp home");
    Command::new(cks_iso())
        .args(["register", "--catalog", catalog, "--zone", "all"])
        .args(["--latest-per-minor", "--retire-eol", "--key"])
        .arg(public)
        .args(extra)
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

/// Runs the real `cs` client against the fake and parses its JSON (`Null` for no answer).
fn cs(world: &World, args: &[&str]) -> Value {
    cs_at(&world.api.endpoint(), (KEY, SECRET), args)
}

/// Runs the real `cs` client against the fake at `endpoint` with `(key, secret)`.
pub(crate) fn cs_at(endpoint: &str, (key, secret): (&str, &str), args: &[&str]) -> Value {
    let program = cks_fixtures::process::require_program("cs", "python3-pip (pip install cs)")
        .expect("cs installed");
    let home = tempfile::tempdir().expect("temp home");
    let out = Command::new(program)
        .args(args)
        .env("HOME", home.path())
        .env("CLOUDSTACK_ENDPOINT", endpoint)
        .env("CLOUDSTACK_KEY", key)
        .env("CLOUDSTACK_SECRET", secret)
        .env("CLOUDSTACK_POLL_INTERVAL", "0.05")
        .output()
        .expect("cs runs");
    assert!(
        out.status.success(),
        "cs {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(&out.stdout).expect("cs prints JSON")
}

/// (semantic version, state, ISO state) of each version `cs` lists for `zone`.
fn versions_in(world: &World, zone: &str) -> Vec<(String, String, String)> {
    let listed = cs(
        world,
        &["listKubernetesSupportedVersions", &format!("zoneid={zone}")],
    );
    let mut out: Vec<(String, String, String)> = listed["kubernetessupportedversion"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|v| {
                    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
                    (s("semanticversion"), s("state"), s("isostate"))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

pub(crate) fn changes(world: &World) -> Vec<String> {
    world
        .cloud
        .calls()
        .into_iter()
        .filter(|c| {
            ["addkubernetes", "deletekubernetes", "updatekubernetes"]
                .iter()
                .any(|p| c.starts_with(p))
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
}

fn flip_byte(path: &Path) {
    let mut bytes = std::fs::read(path).expect("read");
    bytes[40_000] ^= 0x01;
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn a_signed_catalog_registers_what_each_zone_lacks_retires_eol_minors_and_refuses_tampering() {
    let keys = tempfile::tempdir().expect("keys");
    let key = keys.path().join("release.key");
    let public = keys.path().join("release.pub");
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("release").display().to_string(),
    ]));
    ok(cks(&[
        "keygen",
        "--out",
        &keys.path().join("attacker").display().to_string(),
    ]));

    let published = tempfile::tempdir().expect("published");
    let present = small_iso(published.path(), "1.32.5");
    small_iso(published.path(), "1.33.1");
    small_iso(published.path(), "1.33.2");
    let files = FileServer::start(published.path()).expect("file server");
    let base = files.url("/");
    let dir = published.path().display().to_string();
    ok(cks(&[
        "catalog",
        &dir,
        "--base-url",
        &base,
        "--sign-key",
        &key.display().to_string(),
    ]));
    let catalog_url = files.url("/catalog.json");

    let cloud = CloudWorld::new(KEY, SECRET);
    let api = CloudStackFake::start(cloud.clone()).expect("the CloudStack fake starts");
    let world = World { cloud, api };
    world.cloud.add_zone("zone-2", "zone2");
    // 1.32.5 is already registered in zone1, by `cs`, with the catalog's checksum.
    let sha = hex_sha256(&present);
    cs(
        &world,
        &[
            "addKubernetesSupportedVersion",
            "semanticversion=1.32.5",
            &format!("url={}", files.url("/cks-1.32.5-x86_64.iso")),
            &format!("checksum={{SHA-256}}{sha}"),
            "mincpunumber=2",
            "minmemory=2048",
            "zoneid=zone-1",
        ],
    );
    // Two of end-of-life minors: 1.30.4 unused in zone2, 1.31.2 in every zone, run by a cluster.
    // Both were registered from the catalog's folder.
    let other = format!("{{SHA-256}}{}", "ab".repeat(32));
    let eol = world
        .cloud
        .add_ready_kubernetes_version_in("1.30.4", &other, "zone-2");
    world
        .cloud
        .set_kubernetes_version_url(&eol, &files.url("/cks-1.30.4-x86_64.iso"));
    let used = world.cloud.add_ready_kubernetes_version("1.31.2", &other);
    world
        .cloud
        .set_kubernetes_version_url(&used, &files.url("/cks-1.31.2-x86_64.iso"));
    let cluster = world.cloud.add_cluster("prod", &[]);
    world.cloud.set_cluster_version(&cluster, &used);
    let calls_before = world.cloud.calls().len();

    // Tampering, each refused before any CloudStack call.
    let attacker_key = keys.path().join("attacker.key");
    // Each on a mirror of its own: the release's files, catalogued for the mirror's URL with
    // the release key, then changed.
    let tamper = |prepare: &dyn Fn(&Path, &str)| -> String {
        let evil = tempfile::tempdir().expect("evil");
        copy_dir(published.path(), evil.path());
        let server = FileServer::start(evil.path()).expect("file server");
        let mirror = server.url("/");
        let dir = evil.path().display().to_string();
        let key = key.display().to_string();
        ok(cks(&[
            "catalog",
            &dir,
            "--base-url",
            &mirror,
            "--sign-key",
            &key,
        ]));
        prepare(evil.path(), &mirror);
        let out = register(&world, &server.url("/catalog.json"), &public, &[]);
        the_error(&out)
    };
    let iso_133 = "cks-1.33.2-x86_64.iso";
    let bytes = tamper(&|d, _| flip_byte(&d.join(iso_133)));
    assert!(
        bytes.contains(iso_133) && bytes.contains("sha256"),
        "{bytes}"
    );
    let sig = tamper(&|d, _| {
        std::fs::copy(
            d.join("cks-1.32.5-x86_64.iso.sig"),
            d.join(format!("{iso_133}.sig")),
        )
        .expect("swap signature");
    });
    assert!(
        sig.contains("the ISO ") && sig.contains(iso_133) && sig.contains("not signed by --key"),
        "{sig}"
    );
    let other_signer = tamper(&|d, _| {
        cks_builder::signing::SigningKey::read(&attacker_key)
            .expect("key")
            .sign_file(&d.join("catalog.json"))
            .expect("signs");
    });
    assert!(
        other_signer.contains("the catalog") && other_signer.contains("not signed by --key"),
        "{other_signer}"
    );
    // The catalog re-signed by the release key over a changed ISO: the ISO's own signature
    // (made when it was built) refuses it.
    let resigned = tamper(&|d, _| {
        let iso = d.join(iso_133);
        flip_byte(&iso);
        let path = d.join("catalog.json");
        let mut catalog: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("catalog")).expect("JSON");
        for entry in catalog["isos"].as_array_mut().expect("isos") {
            if entry["file"] == iso_133 {
                entry["sha256"] = Value::from(hex_sha256(&iso));
            }
        }
        std::fs::write(&path, serde_json::to_string_pretty(&catalog).expect("JSON"))
            .expect("write");
        cks_builder::signing::SigningKey::read(&key)
            .expect("key")
            .sign_file(&path)
            .expect("signs");
    });
    assert!(
        resigned.contains(iso_133) && resigned.contains("not signed by --key"),
        "{resigned}"
    );
    // 64 KiB of random bytes listed as Kubernetes 1.35.0 in a catalog the release key signs,
    // with a signature by that key: hashed, signed, and still not an ISO `verify` accepts.
    let random = tamper(&|d, mirror| {
        let file = "cks-1.35.0-x86_64.iso";
        let bytes: Vec<u8> = (0..65_536u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let iso = d.join(file);
        std::fs::write(&iso, &bytes).expect("write");
        let signer = cks_builder::signing::SigningKey::read(&key).expect("key");
        signer.sign_file(&iso).expect("signs");
        let path = d.join("catalog.json");
        let mut catalog: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("catalog")).expect("JSON");
        catalog["isos"]
            .as_array_mut()
            .expect("isos")
            .push(serde_json::json!({
                "kubernetes_version": "1.35.0", "minor": "1.35", "arch": "x86_64",
                "file": file, "size": bytes.len(), "sha256": hex_sha256(&iso),
                "url": format!("{mirror}{file}"), "sbom": null,
                "signature": format!("{file}.sig"), "built": null, "builder": null
            }));
        std::fs::write(&path, serde_json::to_string_pretty(&catalog).expect("JSON"))
            .expect("write");
        signer.sign_file(&path).expect("signs");
    });
    assert!(
        random.contains("cks-1.35.0-x86_64.iso") && random.contains("nothing was registered"),
        "{random}"
    );
    assert_eq!(
        world.cloud.calls().len(),
        calls_before,
        "CloudStack was not called: {:?}",
        &world.cloud.calls()[calls_before..]
    );

    // --dry-run: the plan, nothing changed.
    let before = (versions_in(&world, "zone-1"), versions_in(&world, "zone-2"));
    let setup_changes = changes(&world).len();
    let dry = ok(register(&world, &catalog_url, &public, &["--dry-run"]));
    let table = stdout(&dry);
    for expected in ["would register", "would delete", "would disable", "present"] {
        assert!(table.contains(expected), "{expected}: {table}");
    }
    assert_eq!(
        changes(&world).len(),
        setup_changes,
        "--dry-run changed nothing: {:?}",
        changes(&world)
    );
    assert_eq!(
        (versions_in(&world, "zone-1"), versions_in(&world, "zone-2")),
        before
    );

    // The run: per zone, what it lacks.
    let run = ok(register(&world, &catalog_url, &public, &[]));
    let table = stdout(&run);
    assert!(table.starts_with("ZONE"), "{table}");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    let row = |zone: &str, version: &str, action: &str| {
        rows.iter().any(|r| {
            let cols: Vec<&str> = r.split_whitespace().collect();
            cols.len() >= 4 && cols[0] == zone && cols[1] == version && r.contains(action)
        })
    };
    assert!(row("zone1", "1.32.5", "present"), "{table}");
    assert!(row("zone1", "1.33.2", "registered"), "{table}");
    assert!(row("zone2", "1.32.5", "registered"), "{table}");
    assert!(row("zone2", "1.33.2", "registered"), "{table}");
    assert!(row("zone2", "1.30.4", "deleted"), "{table}");
    assert!(
        table.contains("1.31.2") && table.contains("disabled"),
        "{table}"
    );
    assert!(!table.contains("1.33.1"), "only the newest patch: {table}");
    let ready = |v: &str| (v.to_string(), "Enabled".to_string(), "Ready".to_string());
    let disabled = (
        "1.31.2".to_string(),
        "Disabled".to_string(),
        "Ready".to_string(),
    );
    assert_eq!(
        versions_in(&world, "zone-1"),
        [disabled.clone(), ready("1.32.5"), ready("1.33.2")]
    );
    assert_eq!(
        versions_in(&world, "zone-2"),
        [disabled, ready("1.32.5"), ready("1.33.2")]
    );

    // Again: nothing to do.
    let changed = changes(&world).len();
    let again = ok(register(&world, &catalog_url, &public, &[]));
    assert_eq!(changes(&world).len(), changed, "{:?}", changes(&world));
    assert!(
        stdout(&again).contains("nothing to do"),
        "{}",
        stdout(&again)
    );
}

/// The sha256 of the file at `path`, hex.
fn hex_sha256(path: &Path) -> String {
    cks_builder::digest::sha256_file(path)
        .expect("hash")
        .into_hex()
}
