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
    assert!(
        sidecar.ends_with("  cks-demo-1.33.13-aarch64.iso\n"),
        "{sidecar}"
    );
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
    assert_eq!(
        find_cks_iso(Some(&elsewhere.path().join("cks-demo")), None),
        None
    );
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

#[test]
fn the_demo_data_is_a_valid_node() {
    use cks_builder::fetch::Edit;
    use cks_builder::inspect::opt_bin_commands;
    // The kubelet units, rewritten as a build rewrites them, run only what the ISO ships.
    for unit in ["nonoss/kubelet.service", "nonoss/10-kubeadm.conf"] {
        let text = std::fs::read(cks_fixtures::shared::data(unit)).expect("the demo unit");
        let mut editor = Edit::usr_bin_to_opt_bin().editor().expect("the edit");
        let mut out = Vec::new();
        editor.feed(&text, &mut out);
        editor.finish(&mut out);
        let commands = opt_bin_commands(&String::from_utf8(out).expect("UTF-8"));
        assert!(!commands.is_empty(), "{unit} runs the kubelet");
        for (line, command) in commands {
            assert_eq!(command, "kubelet", "{unit} line {line}");
        }
    }
    // The CSI manifest's driver image is the release versions.txt records as `csi-driver:`.
    let csi = cks_fixtures::demo::DemoConfig::default().csi;
    let text = cks_fixtures::demo::manifests::CSI_TEXT;
    let drivers: Vec<String> = cks_pinning::manifest::images(text)
        .expect("the demo CSI manifest")
        .into_iter()
        .filter(|i| i.contains("/cloudstack-csi-driver:"))
        .collect();
    assert!(!drivers.is_empty());
    for driver in drivers {
        assert!(
            driver.ends_with(&format!(":{}", csi.trim_start_matches('v'))),
            "{driver} is not the CSI release {csi}"
        );
    }
}
