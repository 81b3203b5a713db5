//! The one-ISO `cks-iso register` vouching only for what it checked, end to end against the
//! CloudStack API fake: `--require-signature --key` refuses an unsigned ISO and one signed by
//! another key before CloudStack is called, and registers one the key signed; the aarch64 ISO
//! of a version registered for x86_64 is added beside it (as the real `cs` client lists them),
//! and `--replace` deletes nothing of the other arch.

use std::path::{Path, PathBuf};
use std::process::Command;

use cks_fixtures::http::FileServer;

use crate::register_iso::{
    KEY, SECRET, build_iso, build_iso_for, cks_iso, cloud, iso_name, register, stdout, the_error,
};

/// A key pair from `cks-iso keygen` in `dir`: (private, public).
fn keygen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let out = Command::new(cks_iso())
        .args(["keygen", "--out"])
        .arg(dir.join(name))
        .output()
        .expect("cks-iso runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        dir.join(format!("{name}.key")),
        dir.join(format!("{name}.pub")),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn require_signature_refuses_an_unsigned_or_otherwise_signed_iso_before_cloudstack() {
    let built = build_iso().await;
    let files = FileServer::start(built.dir.path()).expect("file server");
    let url = files.url(&format!("/{}", iso_name(&built)));
    let keys = tempfile::tempdir().expect("keys");
    let (key, public) = keygen(keys.path(), "release");
    let (other, _) = keygen(keys.path(), "other");
    let cloud = cloud();
    let public = public.display().to_string();
    let flags = ["--require-signature", "--key", public.as_str()];

    let unsigned = the_error(&register(&cloud, &built.iso, &url, &flags));
    assert!(
        unsigned.contains("--require-signature") && unsigned.contains("has no signature"),
        "{unsigned}"
    );
    cks_builder::signing::SigningKey::read(&other)
        .expect("key")
        .sign_file(&built.iso)
        .expect("signs");
    let foreign = the_error(&register(&cloud, &built.iso, &url, &flags));
    assert!(foreign.contains("is not signed by --key"), "{foreign}");
    assert!(
        cloud.world.calls().is_empty(),
        "CloudStack was not called: {:?}",
        cloud.world.calls()
    );

    cks_builder::signing::SigningKey::read(&key)
        .expect("key")
        .sign_file(&built.iso)
        .expect("signs");
    let signed = register(&cloud, &built.iso, &url, &flags);
    assert!(
        signed.status.success() && stdout(&signed).contains("registered Kubernetes"),
        "{}",
        String::from_utf8_lossy(&signed.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_aarch64_iso_of_a_version_registered_for_x86_64_registers_beside_it() {
    let (amd, arm) = tokio::join!(build_iso_for("x86_64"), build_iso_for("aarch64"));
    assert_eq!(amd.version, arm.version);
    let amd_files = FileServer::start(amd.dir.path()).expect("file server");
    let arm_files = FileServer::start(arm.dir.path()).expect("file server");
    let amd_url = amd_files.url(&format!("/{}", iso_name(&amd)));
    let arm_url = arm_files.url(&format!("/{}", iso_name(&arm)));
    let cloud = cloud();
    let first = register(&cloud, &amd.iso, &amd_url, &[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // Not "another checksum": another arch, and --replace leaves the x86_64 version alone.
    let second = register(&cloud, &arm.iso, &arm_url, &["--replace"]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(
        !stdout(&second).contains("replacing"),
        "{}",
        stdout(&second)
    );
    let listed = crate::register_catalog::cs_at(
        &cloud.api.endpoint(),
        (KEY, SECRET),
        &["listKubernetesSupportedVersions"],
    );
    let mut seen: Vec<(String, String, String)> = listed["kubernetessupportedversion"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            (s("semanticversion"), s("arch"), s("name"))
        })
        .collect();
    seen.sort();
    let v = &amd.version;
    assert_eq!(
        seen,
        [
            (v.clone(), "aarch64".to_string(), format!("v{v}-aarch64")),
            (v.clone(), "x86_64".to_string(), format!("v{v}-x86_64")),
        ]
    );
    assert!(
        !cloud
            .world
            .calls()
            .iter()
            .any(|c| c.starts_with("deletekubernetes")),
        "nothing deleted"
    );
}
