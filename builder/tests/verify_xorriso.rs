//! `verify` reads ISOs packed by xorriso too. The script packs with `-R`, which keeps the build
//! host's modes: the layout writer's tarballs are private (0600) temp files on disk, and verify
//! names each of them. `-r` (modes made world-readable, as our writer does) verifies clean.

use std::process::Command;

use crate::inspect_support::{IMAGES, Tree};
use cks_builder::inspect::{self, Problem};
use cks_fixtures::process::require_program;

fn xorriso(tree: &Tree, name: &str, rock_ridge: &str, label: &str) -> std::path::PathBuf {
    let program = require_program("xorriso", "xorriso").expect("xorriso installed");
    let out = tree.scratch().join(format!("{name}.iso"));
    let status = Command::new(program)
        .args([
            "-as", "mkisofs", "-J", rock_ridge, "-l", "-quiet", "-V", label, "-o",
        ])
        .arg(&out)
        .arg(tree.root())
        .status()
        .expect("run xorriso");
    assert!(status.success(), "xorriso failed: {status}");
    out
}

#[test]
fn a_complete_tree_packed_with_rationalised_modes_verifies_clean() {
    let tree = Tree::valid();
    let report = inspect::verify(&xorriso(&tree, "r", "-r", "CDROM")).expect("readable");
    assert!(report.is_clean(), "{:#?}", report.findings);
    // and versions.txt and the SBOM
    assert_eq!(report.files, tree.file_entries().len() + 2);
}

#[test]
fn packing_with_host_modes_leaves_private_tarballs_that_verify_names() {
    let tree = Tree::valid();
    let report = inspect::verify(&xorriso(&tree, "R", "-R", "CKS")).expect("readable");
    let mut found: Vec<(String, Problem)> = report
        .findings
        .iter()
        .map(|f| (f.path.clone(), f.problem))
        .collect();
    found.sort();
    let mut expected: Vec<(String, Problem)> = IMAGES
        .iter()
        .map(|r| (Tree::tarball(r), Problem::Mode))
        .collect();
    expected.push(("/".to_string(), Problem::VolumeId));
    expected.sort();
    assert_eq!(found, expected, "{:#?}", report.findings);
    let mode = report
        .findings
        .iter()
        .find(|f| f.problem == Problem::Mode)
        .expect("a mode finding");
    assert!(mode.detail.contains("0600"), "{mode}");
}
