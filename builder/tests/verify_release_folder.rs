//! `cks-iso verify --key PUB DIR|ISO` on a release folder of the demo upstream: a good folder
//! verifies; a tampered sidecar, a missing `.sig`, a foreign SBOM and a tampered catalog are
//! each named on a line of their own, and the run fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_fixtures::demo::run::release_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `cks-iso verify --key PUB PATH`.
fn verify(public: &Path, path: &Path) -> Output {
    Command::new(CKS_ISO)
        .arg("verify")
        .arg("--key")
        .arg(public)
        .arg(path)
        .output()
        .expect("cks-iso runs")
}

/// Runs `change` on `file`, checks that verifying `path` fails with a line starting with
/// `named` and containing `detail`, then puts `file` back.
fn named_when(
    public: &Path,
    path: &Path,
    file: &Path,
    change: impl FnOnce(&Path),
    named: &Path,
    detail: &str,
) {
    let saved = std::fs::read(file).ok();
    change(file);
    let failed = verify(public, path);
    let stdout = text(&failed.stdout);
    assert_eq!(failed.status.code(), Some(1), "{stdout}");
    let prefix = format!("{}: ", named.display());
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(&prefix) && l.contains(detail)),
        "no `{prefix}...{detail}` line: {stdout}"
    );
    match saved {
        Some(bytes) => std::fs::write(file, bytes).expect("put back"),
        None => {
            let _ = std::fs::remove_file(file);
        }
    }
}

#[test]
fn a_release_folder_verifies_and_each_tampered_file_is_named() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let (key, public, _) = crate::catalog_signing::keygen(work.path());
    let out = work.path().join("out");
    let released = Command::new(CKS_ISO)
        .args(release_args(&upstream, &out, &[]))
        .args(["--minors", "1", "--arch", "x86_64", "--sign-key"])
        .arg(&key)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs");
    assert!(released.status.success(), "{}", text(&released.stderr));

    let good = verify(&public, &out);
    assert!(
        good.status.success(),
        "{}{}",
        text(&good.stdout),
        text(&good.stderr)
    );
    assert!(
        text(&good.stdout).starts_with("OK: "),
        "{}",
        text(&good.stdout)
    );

    let iso = out.join("cks-1.33.13-x86_64.iso");
    let beside = |suffix: &str| -> PathBuf {
        let mut name = iso.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let sidecar = beside(".sha256");
    named_when(
        &public,
        &out,
        &sidecar,
        |f| {
            std::fs::write(f, format!("{}  cks-1.33.13-x86_64.iso\n", "0".repeat(64)))
                .expect("write")
        },
        &sidecar,
        "its sha256 differs from its sidecar",
    );
    let sig = beside(".sig");
    named_when(
        &public,
        &out,
        &sig,
        |f| std::fs::remove_file(f).expect("remove"),
        &sig,
        "missing",
    );
    let sbom = beside(".spdx.json");
    named_when(
        &public,
        &out,
        &sbom,
        |f| {
            std::fs::write(f, b"{\"spdxVersion\": \"SPDX-2.3\", \"packages\": []}\n")
                .expect("write")
        },
        &sbom,
        "not the sbom.spdx.json the ISO carries",
    );
    // The catalog's sha256 of the ISO changed: its signature and its entry are both named.
    let catalog = out.join("catalog.json");
    let tamper = |f: &Path| {
        let text = std::fs::read_to_string(f).expect("catalog");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let sha256 = value["isos"][0]["sha256"]
            .as_str()
            .expect("sha256")
            .to_string();
        std::fs::write(f, text.replace(&sha256, &"1".repeat(64))).expect("write");
    };
    named_when(
        &public,
        &out,
        &catalog,
        tamper,
        &catalog,
        "its sha256 is 1111",
    );
    named_when(
        &public,
        &out,
        &catalog,
        tamper,
        &out.join("catalog.json.sig"),
        "does not verify",
    );
    let sums = out.join("SHA256SUMS-1.33");
    named_when(
        &public,
        &out,
        &sums,
        |f| std::fs::write(f, b"").expect("write"),
        &sums,
        "does not list the ISOs",
    );

    // One ISO with its neighbours: the same checks of what is beside it.
    assert!(verify(&public, &iso).status.success());
    named_when(
        &public,
        &iso,
        &sig,
        |f| std::fs::remove_file(f).expect("remove"),
        &sig,
        "missing",
    );
    // Everything put back: the folder verifies again.
    assert!(verify(&public, &out).status.success());
}
