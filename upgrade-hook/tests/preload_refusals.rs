//! What `preload` refuses before anything reaches a node: an ISO whose sha256 is not the
//! checksum CloudStack holds for the version (or the one `--sha256` gives), an ISO `verify`
//! rejects or cannot read; and on the node, a spool folder it does not own alone (a symlink,
//! another user's, one others may write to). And what is sent is what was checked: another ISO
//! put at the path after the check is never read.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::Path;

use crate::preload_iso::sha256_file;
use crate::preload_nodes::{Cluster, TestNode};

/// Runs `preload --json` with `extra` and `--iso iso`, the rest as [`Cluster::hook`] gives.
fn preload_with(cluster: &Cluster, iso: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["preload", "--json"];
    args.extend_from_slice(extra);
    let out = cluster.hook_iso(&args, iso);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// Nothing of the ISO reached `node`: no image, no spool folder.
fn untouched(node: &TestNode) {
    assert!(node.images().is_empty(), "{:?}", node.images());
    assert!(!node.own.path().join("spool").exists());
}

#[test]
fn an_iso_whose_sha256_is_not_the_version_s_checksum_in_cloudstack_is_refused() {
    let cluster = Cluster::start(1);
    // CloudStack answers the checksum without the {SHA-256} prefix it was registered with.
    let registered = "c0".repeat(32);
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.13", &registered);
    let (code, text) = preload_with(&cluster, &cluster.iso, &["--to", "1.33.13"]);
    assert_eq!(code, Some(2), "{text}");
    assert_eq!(text.trim().lines().count(), 1, "{text}");
    assert!(
        text.contains(&format!("its sha256 is {}", cluster.sha256)) && text.contains(&registered),
        "names both sums: {text}"
    );
    assert!(text.contains("nothing was sent to a node"), "{text}");
    untouched(&cluster.nodes[0]);

    let (code, text) = preload_with(&cluster, &cluster.iso, &["--sha256", &"d1".repeat(32)]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("but --sha256 is"), "{text}");
    untouched(&cluster.nodes[0]);

    // The version registered with this ISO's checksum: preloaded.
    cluster
        .cloud
        .add_ready_kubernetes_version("1.33.14", &cluster.sha256);
    let (code, text) = preload_with(&cluster, &cluster.iso, &["--to", "v1.33.14"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(cluster.nodes[0].images(), cluster.expected());
}

#[test]
fn an_iso_verify_rejects_or_cannot_read_is_refused_even_with_its_own_sha256() {
    let cluster = Cluster::start(1);
    // The tree with one manifest changed after versions.txt recorded it.
    let tree = &cluster.tree;
    let manifest = "network.yaml";
    let original = tree.read(manifest);
    tree.put(
        manifest,
        format!("{original}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  hostPID: true\n  containers:\n  - name: x\n    image: registry.k8s.io/pause:3.10\n    securityContext:\n      privileged: true\n").as_bytes(),
        0o644,
    );
    let forged = tree.pack("forged");
    tree.put(manifest, original.as_bytes(), 0o644);
    let (code, text) = preload_with(&cluster, &forged, &["--sha256", &sha256_file(&forged)]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("verify finds"), "{text}");
    assert!(text.contains(manifest), "names the file: {text}");
    untouched(&cluster.nodes[0]);

    let garbage = tree.scratch().join("garbage.iso");
    fs::write(&garbage, vec![7u8; 64 * 1024]).expect("garbage");
    let (code, text) = preload_with(&cluster, &garbage, &["--sha256", &sha256_file(&garbage)]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("garbage.iso"), "{text}");
    untouched(&cluster.nodes[0]);

    // A folder has no sha256 to compare.
    let (code, text) = preload_with(&cluster, &tree.root(), &["--sha256", &cluster.sha256]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("a folder has no sha256"), "{text}");
    untouched(&cluster.nodes[0]);
}

#[test]
fn a_spool_folder_the_commands_user_does_not_own_alone_is_refused() {
    let cluster = Cluster::start(1);
    let node = &cluster.nodes[0];
    let spool = node.own.path().join("spool");
    let elsewhere = node.own.path().join("elsewhere");
    fs::create_dir(&elsewhere).expect("elsewhere");
    fs::set_permissions(&elsewhere, fs::Permissions::from_mode(0o700)).expect("chmod");
    let refused = |what: &str| {
        let (out, reports) = cluster.preload();
        assert_eq!(out.status.code(), Some(1), "{what}: {reports}");
        assert_eq!(reports[0]["outcome"], "failed", "{what}: {reports}");
        assert_eq!(
            reports[0]["step"], "creating the spool folder on the node",
            "{what}: {reports}"
        );
        assert_eq!(reports[0]["bytes_sent"], 0, "{what}: {reports}");
        assert!(node.images().is_empty(), "{what}");
        assert_eq!(
            fs::read_dir(&elsewhere).expect("elsewhere").count(),
            0,
            "{what}: nothing written through it"
        );
        reports[0]["detail"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    // A symlink to a folder of the right owner and mode.
    symlink("elsewhere", &spool).expect("symlink");
    let detail = refused("a symlink");
    assert!(detail.contains("symbolic link"), "{detail}");
    fs::remove_file(&spool).expect("rm");

    // Another user's folder.
    fs::create_dir(&spool).expect("spool");
    fs::set_permissions(&spool, fs::Permissions::from_mode(0o700)).expect("chmod");
    std::os::unix::fs::chown(&spool, Some(65534), Some(65534)).expect("chown");
    let detail = refused("another user's folder");
    assert!(detail.contains("65534:700:directory"), "{detail}");

    // The commands' user's, but writable by everyone.
    std::os::unix::fs::chown(&spool, Some(0), Some(0)).expect("chown");
    fs::set_permissions(&spool, fs::Permissions::from_mode(0o777)).expect("chmod");
    let detail = refused("a folder everyone may write to");
    assert!(detail.contains(":777:directory"), "{detail}");
    fs::remove_dir(&spool).expect("rm");

    // Created afresh: the commands' user's, mode 0700.
    let (out, reports) = cluster.preload();
    assert_eq!(out.status.code(), Some(0), "{reports}");
    let meta = fs::symlink_metadata(&spool).expect("spool");
    assert!(meta.is_dir());
    assert_eq!(meta.mode() & 0o7777, 0o700);
    assert_eq!(
        meta.uid(),
        fs::metadata(node.own.path()).expect("own").uid()
    );
    assert_eq!(node.images(), cluster.expected());
}

#[test]
fn another_iso_put_at_the_path_after_the_check_is_never_sent() {
    let mut cluster = Cluster::start(1);
    // Another valid ISO, its pause image different.
    cluster
        .tree
        .add_image("registry.k8s.io/pause:3.10", 99, true);
    cluster.tree.render();
    let other = cluster.tree.pack("other");
    assert_ne!(sha256_file(&other), cluster.sha256);
    // The node's ctr, on its first call (after the check, before any copy), puts it at the path.
    let scratch = cluster.tree.scratch();
    let (ctr, flag) = (scratch.join("swapping-ctr"), scratch.join("swapped"));
    fs::write(
        &ctr,
        format!(
            "#!/bin/sh\nif [ ! -e '{}' ]; then : > '{}'; mv -f '{}' '{}'; fi\nexec '{}' \"$@\"\n",
            flag.display(),
            flag.display(),
            other.display(),
            cluster.iso.display(),
            cluster.shared.join("bin/ctr").display()
        ),
    )
    .expect("ctr");
    fs::set_permissions(&ctr, fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = cluster.hook(
        &["preload", "--json", "--sha256", &cluster.sha256],
        Some(ctr.to_str().expect("utf-8")),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(flag.exists(), "the ISO was swapped during the run");
    assert_ne!(sha256_file(&cluster.iso), cluster.sha256);
    assert_eq!(cluster.nodes[0].images(), cluster.expected(), "{text}");
}
