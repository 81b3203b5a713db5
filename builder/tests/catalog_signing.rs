//! The release engineer's catalog and signatures, with real tools: `cks-iso keygen` writes a
//! pair (the private key 0600, never overwritten), `cks-iso catalog --sign-key` signs each ISO,
//! checksum file and the catalog in the form Debian's `openssl dgst -sha256 -verify` accepts
//! (and our own verifier), a flipped byte is refused by both, `sha256sum -c` accepts the
//! per-minor checksum files, the catalog's entries are the same when written again, and the
//! private key never appears in any output or error. Nothing is signed that was not checked: an
//! ISO `verify` refuses, a sidecar that disagrees with its ISO and an empty folder are refused,
//! nothing written.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine;
use cks_signature::BlobKey;

const BUILT: i64 = 1_780_000_000;

fn cks_iso() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", text(&out));
    out
}

/// An ISO of `version` (x86_64) that passes `cks-iso verify`, with an SBOM beside it naming its
/// builder, in `dir`.
pub fn small_iso(dir: &Path, version: &str) -> PathBuf {
    let mut tree = crate::inspect_support::Tree::valid();
    tree.versions.kubernetes = version.into();
    tree.versions.built = Some(BUILT);
    tree.render();
    let packed = tree.pack("cks");
    let iso = dir.join(format!("cks-{version}-x86_64.iso"));
    std::fs::copy(&packed, &iso).expect("copy the ISO");
    let sbom = serde_json::json!({
        "spdxVersion": "SPDX-2.3",
        "creationInfo": { "created": "2026-05-28T20:26:40Z", "creators": ["Tool: cks-iso-0.1.0 (commit 0123456789ab)"] }
    });
    std::fs::write(
        dir.join(format!("cks-{version}-x86_64.iso.spdx.json")),
        sbom.to_string(),
    )
    .expect("write sbom");
    iso
}

/// `iso` with 16 bytes overwritten in the middle of the `k8s/kubeadm` it holds.
fn damage(iso: &Path) {
    let mut bytes = std::fs::read(iso).expect("iso");
    let kubeadm = crate::inspect_support::bytes(1, 20_000);
    let at = bytes
        .windows(64)
        .position(|w| w == &kubeadm[..64])
        .expect("the ISO holds kubeadm")
        + 10_000;
    bytes[at..at + 16].copy_from_slice(&[0x5a; 16]);
    std::fs::write(iso, bytes).expect("write");
}

pub(crate) fn keygen(dir: &Path) -> (PathBuf, PathBuf, String) {
    let prefix = dir.join("release");
    let out = ok(cks_iso()
        .args(["keygen", "--out"])
        .arg(&prefix)
        .output()
        .expect("cks-iso runs"));
    let key = dir.join("release.key");
    let private = std::fs::read_to_string(&key).expect("private key");
    assert!(
        !text(&out).contains(body_line(&private)),
        "keygen printed the key: {}",
        text(&out)
    );
    (key, dir.join("release.pub"), private)
}

/// A line of the key's base64 body (present in any copy of it).
fn body_line(pem: &str) -> &str {
    pem.lines().nth(1).expect("a PEM body line")
}

pub(crate) fn openssl_verify(public: &Path, sig_file: &Path, file: &Path) -> Output {
    let openssl = cks_fixtures::process::require_program("openssl", "openssl").expect("openssl");
    let b64 = std::fs::read_to_string(sig_file).expect("signature");
    let der = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .expect("base64 signature");
    let der_file = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(der_file.path(), der).expect("write der");
    Command::new(openssl)
        .args(["dgst", "-sha256", "-verify"])
        .arg(public)
        .arg("-signature")
        .arg(der_file.path())
        .arg(file)
        .output()
        .expect("openssl runs")
}

fn sha256_of(path: &Path) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(path).expect("read")).into()
}

#[test]
fn keygen_writes_a_private_key_of_mode_0600_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("dir");
    let (key, public, private) = keygen(dir.path());
    let mode = std::fs::metadata(&key).expect("key").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(
        private.starts_with("-----BEGIN PRIVATE KEY-----"),
        "PKCS#8 PEM"
    );
    let public_pem = std::fs::read(&public).expect("public key");
    assert!(public_pem.starts_with(b"-----BEGIN PUBLIC KEY-----"));
    BlobKey::from_pem(&public_pem).expect("our verifier reads the public key");
    let openssl = cks_fixtures::process::require_program("openssl", "openssl").expect("openssl");
    let parsed = Command::new(&openssl)
        .args(["pkey", "-noout", "-text", "-in"])
        .arg(&key)
        .output()
        .expect("openssl runs");
    assert!(
        String::from_utf8_lossy(&parsed.stdout).contains("prime256v1"),
        "{}",
        text(&parsed)
    );

    let again = cks_iso()
        .args(["keygen", "--out"])
        .arg(dir.path().join("release"))
        .output()
        .expect("cks-iso runs");
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(&key.display().to_string()) && err.contains("never overwrites"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&key).expect("key"),
        private,
        "unchanged"
    );
}

#[test]
fn openssl_and_our_verifier_accept_the_signatures_and_refuse_a_flipped_byte() {
    let dir = tempfile::tempdir().expect("dir");
    let keys = tempfile::tempdir().expect("keys");
    let (key, public, _) = keygen(keys.path());
    let iso = small_iso(dir.path(), "1.33.2");
    ok(cks_iso()
        .arg("catalog")
        .arg(dir.path())
        .args(["--base-url", "http://images.example/cks"])
        .arg("--sign-key")
        .arg(&key)
        .output()
        .expect("cks-iso runs"));
    let sig = dir.path().join("cks-1.33.2-x86_64.iso.sig");
    let verified = openssl_verify(&public, &sig, &iso);
    assert!(
        verified.status.success() && text(&verified).contains("Verified OK"),
        "{}",
        text(&verified)
    );
    let ours = BlobKey::from_pem(&std::fs::read(&public).expect("pub")).expect("key");
    let sig_text = std::fs::read(&sig).expect("sig");
    ours.verify_sha256(&sha256_of(&iso), &sig_text)
        .expect("our verifier accepts it");
    for signed in ["catalog.json", "SHA256SUMS-1.33"] {
        let file = dir.path().join(signed);
        let out = openssl_verify(&public, &dir.path().join(format!("{signed}.sig")), &file);
        assert!(out.status.success(), "{signed}: {}", text(&out));
    }

    let mut bytes = std::fs::read(&iso).expect("iso");
    bytes[40_000] ^= 0x01;
    let tampered = dir.path().join("tampered.bin");
    std::fs::write(&tampered, &bytes).expect("write");
    let refused = openssl_verify(&public, &sig, &tampered);
    assert!(
        !refused.status.success() && text(&refused).contains("Verification failure"),
        "{}",
        text(&refused)
    );
    let err = ours
        .verify_sha256(&sha256_of(&tampered), &sig_text)
        .expect_err("our verifier refuses it");
    assert!(err.to_string().contains("does not match"), "{err}");
}

#[test]
fn the_catalog_lists_each_iso_in_a_stable_order_with_a_checksum_file_per_minor() {
    let dir = tempfile::tempdir().expect("dir");
    let old = small_iso(dir.path(), "1.32.9");
    small_iso(dir.path(), "1.33.13");
    let iso = small_iso(dir.path(), "1.33.2");
    let run = || {
        ok(cks_iso()
            .arg("catalog")
            .arg(dir.path())
            .args(["--base-url", "https://images.example/cks/"])
            .output()
            .expect("cks-iso runs"))
    };
    run();
    let first = std::fs::read(dir.path().join("catalog.json")).expect("catalog");
    let catalog: serde_json::Value = serde_json::from_slice(&first).expect("JSON");
    assert_eq!(catalog["schema_version"], 1);
    let files: Vec<&str> = catalog["isos"]
        .as_array()
        .expect("isos")
        .iter()
        .map(|i| i["file"].as_str().expect("file"))
        .collect();
    assert_eq!(
        files,
        [
            "cks-1.32.9-x86_64.iso",
            "cks-1.33.2-x86_64.iso",
            "cks-1.33.13-x86_64.iso"
        ]
    );
    assert!(catalog["serial"].as_u64().is_some(), "{catalog}");
    assert!(
        catalog["expires"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{catalog}"
    );
    let entry = &catalog["isos"][1];
    let digest = hex::encode(sha256_of(&iso));
    assert_eq!(entry["sha256"], digest.as_str());
    assert_eq!(entry["kubernetes_version"], "1.33.2");
    assert_eq!(entry["minor"], "1.33");
    assert_eq!(entry["arch"], "x86_64");
    assert_eq!(entry["size"], std::fs::metadata(&iso).expect("iso").len());
    assert_eq!(
        entry["url"],
        "https://images.example/cks/cks-1.33.2-x86_64.iso"
    );
    assert_eq!(entry["sbom"], "cks-1.33.2-x86_64.iso.spdx.json");
    assert_eq!(entry["signature"], serde_json::Value::Null);
    assert_eq!(entry["built"], "2026-05-28T20:26:40Z");
    assert_eq!(entry["builder"]["version"], "0.1.0");
    assert_eq!(entry["builder"]["commit"], "0123456789ab");
    assert_eq!(catalog["checksums"][0]["file"], "SHA256SUMS-1.32");
    assert_eq!(catalog["checksums"][1]["file"], "SHA256SUMS-1.33");
    let sums = std::fs::read_to_string(dir.path().join("SHA256SUMS-1.33")).expect("sums");
    assert_eq!(sums.lines().count(), 2, "{sums}");
    assert!(
        sums.contains(&format!("{digest}  cks-1.33.2-x86_64.iso")),
        "{sums}"
    );
    for minor in ["1.32", "1.33"] {
        let out = Command::new("sha256sum")
            .args(["-c", &format!("SHA256SUMS-{minor}")])
            .current_dir(dir.path())
            .output()
            .expect("sha256sum runs");
        assert!(out.status.success(), "{}", text(&out));
    }

    run();
    let again: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("catalog.json")).expect("catalog"))
            .expect("JSON");
    assert_eq!(
        (&again["isos"], &again["checksums"]),
        (&catalog["isos"], &catalog["checksums"]),
        "the same ISOs give the same entries"
    );
    std::fs::remove_file(&old).expect("remove 1.32");
    let out = run();
    assert!(
        !dir.path().join("SHA256SUMS-1.32").exists(),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("removed"), "{}", text(&out));
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_private_key_is_never_printed() {
    let dir = tempfile::tempdir().expect("dir");
    let keys = tempfile::tempdir().expect("keys");
    let (key, _, private) = keygen(keys.path());
    let secret = body_line(&private).to_string();
    small_iso(dir.path(), "1.33.2");
    let catalog = |key: &Path, extra: &[&str]| {
        cks_iso()
            .arg("catalog")
            .arg(dir.path())
            .arg("--sign-key")
            .arg(key)
            .args(extra)
            .output()
            .expect("cks-iso runs")
    };
    let json = ok(catalog(&key, &["--json"]));
    assert!(!text(&json).contains(&secret));
    serde_json::from_slice::<serde_json::Value>(&json.stdout).expect("JSON");

    // Readable by others: refused, naming the file and the fix.
    let exposed = keys.path().join("exposed.key");
    std::fs::write(&exposed, &private).expect("copy");
    std::fs::set_permissions(&exposed, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = catalog(&exposed, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("chmod 600"), "{}", text(&out));
    assert!(!text(&out).contains(&secret));

    // A damaged key: refused without quoting it.
    let damaged = keys.path().join("damaged.key");
    let cut: String = private.lines().take(3).collect::<Vec<_>>().join("\n");
    std::fs::write(&damaged, format!("{cut}\n-----END PRIVATE KEY-----\n")).expect("write");
    std::fs::set_permissions(&damaged, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    for out in [
        catalog(&damaged, &[]),
        catalog(&damaged, &["--json"]),
        cks_iso()
            .args(["build", "--sign-key"])
            .arg(&damaged)
            .args(["--json", "--output-path"])
            .arg(dir.path().join("out"))
            .args(["--kubernetes-version", "1.33.2"])
            .output()
            .expect("cks-iso runs"),
    ] {
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let all = text(&out);
        assert!(
            all.contains("damaged.key") && all.contains("PKCS#8"),
            "{all}"
        );
        assert!(!all.contains(&secret), "the key leaked: {all}");
    }
}

#[test]
fn a_build_with_a_sign_key_writes_a_signature_openssl_accepts_and_the_catalog_lists_it() {
    let upstream =
        cks_fixtures::demo::DemoUpstream::start(&cks_fixtures::demo::DemoConfig::default())
            .expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let keys = tempfile::tempdir().expect("keys");
    let (key, public, private) = keygen(keys.path());
    let mut command = cks_iso();
    command
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .env("CI", "true")
        .arg("build")
        .arg(out.path())
        .args([
            "1.33.13",
            "1.6.2",
            "1.33.0",
            &upstream.network_yaml(),
            &upstream.dashboard_yaml(),
            "cks-1.33.13",
            "x86_64",
            "--json",
        ])
        .arg("--sign-key")
        .arg(&key)
        .arg("--trusted-root")
        .arg(upstream.trusted_root());
    for m in upstream.mirrors() {
        command.args(["--mirror", &m]);
    }
    for m in upstream.registry_mirrors() {
        command.args(["--registry-mirror", &m]);
    }
    for r in upstream.insecure_registries() {
        command.args(["--insecure-registry", &r]);
    }
    let built = ok(command.output().expect("cks-iso runs"));
    assert!(
        !text(&built).contains(body_line(&private)),
        "the key leaked"
    );
    let json: serde_json::Value = serde_json::from_slice(&built.stdout).expect("JSON");
    let iso = out.path().join("cks-1.33.13-x86_64.iso");
    let sig = out.path().join("cks-1.33.13-x86_64.iso.sig");
    assert_eq!(json["signature"], sig.display().to_string());
    let verified = openssl_verify(&public, &sig, &iso);
    assert!(verified.status.success(), "{}", text(&verified));

    ok(cks_iso()
        .arg("catalog")
        .arg(out.path())
        .output()
        .expect("cks-iso runs"));
    let catalog: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("catalog.json")).expect("catalog"))
            .expect("JSON");
    let entry = &catalog["isos"][0];
    assert_eq!(entry["kubernetes_version"], "1.33.13");
    assert_eq!(entry["signature"], "cks-1.33.13-x86_64.iso.sig");
    assert_eq!(entry["sbom"], "cks-1.33.13-x86_64.iso.spdx.json");
    assert_eq!(entry["url"], serde_json::Value::Null);
    assert_eq!(entry["builder"]["name"], "cks-iso");
    assert_eq!(entry["builder"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(catalog["generator"]["name"], "cks-iso");
    assert!(
        entry["built"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{entry}"
    );
}

/// `cks-iso catalog DIR --sign-key KEY`.
fn sign_catalog(dir: &Path, key: &Path) -> Output {
    cks_iso()
        .arg("catalog")
        .arg(dir)
        .arg("--sign-key")
        .arg(key)
        .output()
        .expect("cks-iso runs")
}

#[test]
fn an_empty_folder_a_damaged_iso_and_a_disagreeing_sidecar_are_never_signed() {
    let keys = tempfile::tempdir().expect("keys");
    let (key, _, _) = keygen(keys.path());
    let empty = tempfile::tempdir().expect("dir");
    let out = sign_catalog(empty.path(), &key);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("holds no *.iso"), "{}", text(&out));
    assert_eq!(std::fs::read_dir(empty.path()).expect("dir").count(), 0);

    // 16 bytes overwritten in the middle of a file the ISO holds: `verify` finds it.
    let dir = tempfile::tempdir().expect("dir");
    let iso = small_iso(dir.path(), "1.33.2");
    damage(&iso);
    let out = sign_catalog(dir.path(), &key);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("cks-1.33.2-x86_64.iso") && text(&out).contains("cks-iso verify"),
        "{}",
        text(&out)
    );
    for unsigned in [
        "catalog.json",
        "catalog.json.sig",
        "cks-1.33.2-x86_64.iso.sig",
    ] {
        assert!(!dir.path().join(unsigned).exists(), "{unsigned}");
    }

    // A sound ISO whose sidecar names another digest.
    let dir = tempfile::tempdir().expect("dir");
    let iso = small_iso(dir.path(), "1.33.2");
    std::fs::write(
        cks_builder::iso::sidecar_path(&iso),
        format!("{}  cks-1.33.2-x86_64.iso\n", "0".repeat(64)),
    )
    .expect("write");
    let out = sign_catalog(dir.path(), &key);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("says sha256 0000"), "{}", text(&out));
    assert!(!dir.path().join("catalog.json.sig").exists());
}
