//! `cks-iso show ISO`: versions.txt as the ISO holds it (the same bytes `isoinfo -R -x` reads)
//! and the SBOM in brief, components with versions and images with digests, as text or JSON.

use std::path::Path;
use std::process::Command;

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::process::require_program;
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

fn show(iso: &Path, extra: &[&str]) -> String {
    let output = Command::new(CKS_ISO)
        .arg("show")
        .arg(iso)
        .args(extra)
        .output()
        .expect("cks-iso runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn show_prints_versions_txt_and_the_sbom_read_without_mounting() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let built = Command::new(CKS_ISO)
        .args(build_args(&upstream, out.path(), Arch::Amd64))
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .expect("cks-iso runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let iso = out.path().join("cks-demo-1.33.13-x86_64.iso");
    let isoinfo = require_program("isoinfo", "genisoimage").expect("isoinfo installed");
    let extracted = Command::new(isoinfo)
        .arg("-i")
        .arg(&iso)
        .args(["-R", "-x", "/versions.txt"])
        .output()
        .expect("isoinfo runs");
    let versions_txt = String::from_utf8(extracted.stdout).expect("UTF-8");
    assert!(
        versions_txt.starts_with("kubernetes: 1.33.13\n"),
        "{versions_txt}"
    );

    let json: serde_json::Value = serde_json::from_str(&show(&iso, &["--json"])).expect("JSON");
    assert_eq!(json["versions_txt"], versions_txt.as_str());
    assert_eq!(json["volume_id"], "CDROM");
    let components = json["sbom"]["components"].as_array().expect("components");
    assert!(
        components
            .iter()
            .any(|c| c["name"] == "kubeadm" && c["version"] == "1.33.13"),
        "{components:?}"
    );
    let images = json["sbom"]["images"].as_array().expect("images");
    let pause = images
        .iter()
        .find(|i| i["reference"] == "registry.k8s.io/pause:3.10")
        .unwrap_or_else(|| panic!("no pause image: {images:?}"));
    let digest = pause["digest"].as_str().expect("digest");
    // The same digest versions.txt records for the image.
    assert!(
        versions_txt.contains(digest),
        "{digest} not in {versions_txt}"
    );

    let text = show(&iso, &[]);
    assert!(
        text.contains(&format!("# versions.txt\n{versions_txt}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("registry.k8s.io/pause:3.10@{digest}\n")),
        "{text}"
    );
    assert!(text.contains("# sbom.spdx.json: components\n"), "{text}");
}
