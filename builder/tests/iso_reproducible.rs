//! The same tree and time give a byte-identical image; any change to the tree or time changes it.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::iso_support::{Workspace, pack_cli, write_sample};
use cks_builder::iso::{BuildTime, PackOptions, pack};

fn sha(ws: &Workspace, tree: &std::path::Path, name: &str, time: i64) -> String {
    let out = ws.path(name);
    pack(tree, &out, &PackOptions::with_time(BuildTime::fixed(time)))
        .expect("pack")
        .sha256
}

#[test]
fn the_same_tree_and_epoch_give_the_same_sha256_even_with_other_mtimes_and_inodes() {
    let ws = Workspace::with_sample();
    let first = sha(&ws, &ws.tree(), "a.iso", 1_700_000_000);
    let second = sha(&ws, &ws.tree(), "b.iso", 1_700_000_000);
    assert_eq!(first, second);
    // A second copy written later (new inodes, new mtimes, other creation order) packs the same.
    let copy = ws.path("copy");
    write_sample(&copy);
    for entry in ["versions.txt", "docker/kube-apiserver:v1.33.13.tar"] {
        let path = copy.join(entry);
        let data = fs::read(&path).expect("read");
        fs::remove_file(&path).expect("rm");
        fs::write(&path, data).expect("rewrite");
    }
    fs::set_permissions(
        copy.join("docker/kube-apiserver:v1.33.13.tar"),
        fs::Permissions::from_mode(0o600),
    )
    .expect("chmod");
    assert_eq!(sha(&ws, &copy, "c.iso", 1_700_000_000), first);
    assert_eq!(
        fs::read(ws.path("a.iso")).expect("read a"),
        fs::read(ws.path("c.iso")).expect("read c"),
        "byte-identical"
    );
}

#[test]
fn a_changed_byte_name_mode_or_epoch_changes_the_sha256() {
    let ws = Workspace::with_sample();
    let base = sha(&ws, &ws.tree(), "base.iso", 1_700_000_000);
    assert_ne!(
        sha(&ws, &ws.tree(), "later.iso", 1_700_000_001),
        base,
        "epoch"
    );

    let edited = ws.path("edited");
    write_sample(&edited);
    fs::write(edited.join("versions.txt"), b"kubernetes v1.33.14\n").expect("edit");
    assert_ne!(
        sha(&ws, &edited, "edited.iso", 1_700_000_000),
        base,
        "content"
    );

    let renamed = ws.path("renamed");
    write_sample(&renamed);
    fs::rename(renamed.join("versions.txt"), renamed.join("Versions.txt")).expect("rename");
    assert_ne!(
        sha(&ws, &renamed, "renamed.iso", 1_700_000_000),
        base,
        "name"
    );

    let chmodded = ws.path("chmodded");
    write_sample(&chmodded);
    fs::set_permissions(
        chmodded.join("versions.txt"),
        fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    assert_ne!(
        sha(&ws, &chmodded, "chmodded.iso", 1_700_000_000),
        base,
        "mode"
    );
}

#[test]
fn the_cli_honours_source_date_epoch_for_byte_identical_images() {
    let ws = Workspace::with_sample();
    let tree = ws.tree().display().to_string();
    let mut shas = Vec::new();
    for name in ["one.iso", "two.iso"] {
        let out = ws.path(name).display().to_string();
        let output = pack_cli(&[&tree, &out], Some("1700000000"));
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        shas.push(fs::read(ws.path(name)).expect("image"));
    }
    assert_eq!(shas[0], shas[1]);
    let api = sha(&ws, &ws.tree(), "api.iso", 1_700_000_000);
    assert_eq!(
        fs::read(ws.path("api.iso")).expect("image"),
        shas[0],
        "CLI packs as the library does: {api}"
    );
}
