//! What `cks-iso` publishes is readable by all, what must stay secret is not: the public key
//! `keygen` writes and the tarballs `pull` writes are mode 0644, the private key 0600.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use cks_fixtures::demo::{DemoConfig, DemoUpstream};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("written")
        .permissions()
        .mode()
        & 0o777
}

fn cks_iso() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
}

#[test]
fn keygen_writes_the_public_key_0644_and_the_private_key_0600() {
    let dir = tempfile::tempdir().expect("dir");
    let prefix = dir.path().join("release");
    let output = cks_iso()
        .args(["keygen", "--out"])
        .arg(&prefix)
        .output()
        .expect("cks-iso keygen runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(mode(&dir.path().join("release.pub")), 0o644);
    assert_eq!(mode(&dir.path().join("release.key")), 0o600);
}

#[test]
fn pull_writes_its_tarballs_0644() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut command = cks_iso();
    command.arg("pull");
    for mirror in upstream.registry_mirrors() {
        command.args(["--registry-mirror", &mirror]);
    }
    for host in upstream.insecure_registries() {
        command.args(["--insecure-registry", &host]);
    }
    let images = upstream.images();
    let output = command
        .arg("--out")
        .arg(out.path())
        .args(images.iter().take(2))
        .output()
        .expect("cks-iso pull runs");
    assert!(output.status.success(), "{output:?}");
    let tarballs: Vec<_> = std::fs::read_dir(out.path())
        .expect("out dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tar"))
        .collect();
    assert_eq!(tarballs.len(), 2, "{tarballs:?}");
    for tarball in tarballs {
        assert_eq!(mode(&tarball), 0o644, "{}", tarball.display());
    }
}
