//! What `verify` accepts, the real containerd imports as a node does (`ctr -n k8s.io image
//! import`) under the references and digests of versions.txt; the tarball `verify` rejects for
//! a missing `io.containerd.image.name` (and a tag-only ref name) is imported under another
//! name, which nodes never use.

use crate::inspect_support::{IMAGES, Tree};
use cks_builder::inspect::{self, Problem};
use cks_fixtures::containerd::Containerd;

#[test]
fn tarballs_that_verify_are_imported_under_their_versions_txt_references_and_digests() {
    let tree = Tree::valid();
    let report = inspect::verify(&tree.pack("valid")).expect("readable");
    assert!(report.is_clean(), "{:#?}", report.findings);

    let containerd = Containerd::start().expect("containerd starts");
    for reference in IMAGES {
        containerd
            .import(&tree.root().join(Tree::tarball(reference)), None)
            .unwrap_or_else(|e| panic!("{e:#}\n{}", containerd.log()));
    }
    let mut listed: Vec<(String, String)> = containerd
        .images()
        .expect("ctr image ls")
        .into_iter()
        .map(|i| (i.name, i.digest))
        .collect();
    listed.sort();
    let mut expected: Vec<(String, String)> = tree
        .images
        .iter()
        .map(|i| {
            let pinned = i.to_string();
            let (name, digest) = pinned.split_once('@').expect("pinned");
            (name.to_string(), digest.to_string())
        })
        .collect();
    expected.sort();
    assert_eq!(listed, expected);
}

#[test]
fn a_tarball_verify_rejects_for_its_missing_name_is_not_imported_under_its_reference() {
    let tree = Tree::valid();
    let reference = IMAGES[2];
    tree.strip_containerd_name(reference, 2, false);
    tree.render();
    let report = inspect::verify(&tree.pack("unnamed")).expect("readable");
    let problems: Vec<_> = report.findings.iter().map(|f| f.problem).collect();
    assert_eq!(problems, [Problem::Tarball], "{:#?}", report.findings);

    let containerd = Containerd::start().expect("containerd starts");
    let _ = containerd.import(&tree.root().join(Tree::tarball(reference)), None);
    let listed = containerd.images().expect("ctr image ls");
    assert!(
        listed.iter().all(|i| i.name != reference),
        "imported under its reference after all: {listed:?}"
    );
}
