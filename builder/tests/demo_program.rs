//! The demo program (`cks-demo`, in the fixtures crate) against this `cks-iso`: it starts the
//! offline upstream, runs the real `cks-iso build` and `cks-iso verify` as subprocesses; and the
//! product binary carries none of the test servers.

use std::path::Path;

use cks_fixtures::demo::run::{DemoRun, find_cks_iso, run};
use cks_pinning::arch::Arch;

const CKS_ISO: &str = env!("CARGO_BIN_EXE_cks-iso");

#[test]
fn the_demo_builds_and_verifies_with_the_real_cks_iso() {
    let out = tempfile::tempdir().expect("out dir");
    let iso = run(&DemoRun {
        cks_iso: CKS_ISO.into(),
        out: out.path().to_path_buf(),
        arch: Arch::Arm64,
    })
    .expect("the demo builds and verifies");
    assert_eq!(iso, out.path().join("cks-demo-1.33.13-aarch64.iso"));
    let sidecar = std::fs::read_to_string(out.path().join("cks-demo-1.33.13-aarch64.iso.sha256"))
        .expect("the sidecar");
    assert!(sidecar.ends_with("  cks-demo-1.33.13-aarch64.iso\n"), "{sidecar}");
}

#[test]
fn the_demo_names_a_cks_iso_that_does_not_run() {
    let out = tempfile::tempdir().expect("out dir");
    let missing = out.path().join("no-such-cks-iso");
    let err = run(&DemoRun {
        cks_iso: missing.clone(),
        out: out.path().join("iso"),
        arch: Arch::Amd64,
    })
    .expect_err("nothing to run");
    assert!(
        format!("{err:#}").contains(&missing.display().to_string()),
        "{err:#}"
    );
}

#[test]
fn the_demo_finds_cks_iso_beside_itself_then_on_path() {
    let dir = Path::new(CKS_ISO).parent().expect("target dir");
    let beside = find_cks_iso(Some(&dir.join("cks-demo")), None);
    assert_eq!(beside.as_deref(), Some(Path::new(CKS_ISO)));
    let elsewhere = tempfile::tempdir().expect("dir");
    let on_path = find_cks_iso(
        Some(&elsewhere.path().join("cks-demo")),
        Some(dir.as_os_str()),
    );
    assert_eq!(on_path.as_deref(), Some(Path::new(CKS_ISO)));
    assert_eq!(find_cks_iso(Some(&elsewhere.path().join("cks-demo")), None), None);
}

#[test]
fn the_product_binary_carries_no_test_server() {
    let binary = std::fs::read(CKS_ISO).expect("read cks-iso");
    // Strings only the fixtures' in-process registry and demo upstream hold.
    for marker in ["injected fault", "cks-demo-upstream-"] {
        let found = binary
            .windows(marker.len())
            .any(|window| window == marker.as_bytes());
        assert!(!found, "cks-iso contains {marker:?}");
    }
}
