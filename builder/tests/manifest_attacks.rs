//! Manifests that are not what they claim, read from an ISO: a 20 KB deeply nested YAML
//! document is one finding of `verify` and no crash of `verify` or `diff`; a JSON document where
//! the network manifest belongs is a finding naming what it holds.

use std::ffi::OsStr;

use crate::inspect_support::{Tree, cks_iso, stdout};
use cks_builder::inspect::{self, Problem};

/// 20 KB of YAML nested far deeper than any manifest: block mappings, then flow sequences.
pub fn deep_yaml() -> String {
    let mut text = String::new();
    for level in 0..120 {
        text.push_str(&" ".repeat(level));
        text.push_str("k:\n");
    }
    text.push_str(&" ".repeat(120));
    text.push_str("k: ");
    let rest = 20_000usize.saturating_sub(text.len()) / 2;
    text.push_str(&"[".repeat(rest));
    text.push_str(&"]".repeat(rest));
    text.push('\n');
    text
}

/// The findings `verify` (library and CLI) gives for `tree`, after checking the CLI exits 1
/// with no crash.
fn verify_findings(tree: &Tree) -> Vec<(String, Problem, String)> {
    let iso = tree.pack("hostile");
    let report = inspect::verify(&iso).expect("the ISO is readable");
    let output = cks_iso(&[OsStr::new("verify"), iso.as_os_str()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(!stderr.contains("overflow"), "{stderr}");
    for finding in &report.findings {
        assert!(
            stdout(&output).contains(&finding.to_string()),
            "{finding} printed"
        );
    }
    report
        .findings
        .into_iter()
        .map(|f| (f.path, f.problem, f.detail))
        .collect()
}

#[test]
fn a_deeply_nested_manifest_is_one_finding_of_verify_and_no_crash_of_diff() {
    let tree = Tree::valid();
    let deep = deep_yaml();
    assert!(
        deep.len() >= 19_000 && deep.len() <= 21_000,
        "{}",
        deep.len()
    );
    tree.put("network.yaml", deep.as_bytes(), 0o644);
    tree.render();
    let found = verify_findings(&tree);
    let manifest: Vec<_> = found
        .iter()
        .filter(|(path, _, _)| path == "network.yaml")
        .collect();
    assert_eq!(manifest.len(), 1, "{found:#?}");
    let (_, problem, detail) = manifest[0];
    assert_eq!(*problem, Problem::Manifest);
    assert!(
        detail.contains("nesting deeper than 100 levels at line"),
        "{detail}"
    );
    assert!(!detail.contains('\n'), "one line: {detail}");

    let good_tree = Tree::valid();
    let good = good_tree.pack("good");
    let hostile = tree.pack("hostile-again");
    let output = cks_iso(&[OsStr::new("diff"), good.as_os_str(), hostile.as_os_str()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "diff ends with a verdict: {output:?}"
    );
    assert!(!stderr.contains("overflow"), "{stderr}");
}

#[test]
fn a_json_document_as_the_network_manifest_is_a_finding_naming_its_keys() {
    let tree = Tree::valid();
    tree.put(
        "network.yaml",
        br#"{"name": "left-pad", "version": "1.3.0", "dist": {"tarball": "x"}}"#,
        0o644,
    );
    tree.render();
    let found = verify_findings(&tree);
    assert!(
        found
            .iter()
            .any(|(path, problem, detail)| path == "network.yaml"
                && *problem == Problem::Manifest
                && detail.contains("a JSON document with keys name, version, dist")),
        "{found:#?}"
    );
}
