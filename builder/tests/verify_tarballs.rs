//! `verify` on image tarballs a node could not use: compressed, a blob missing or corrupt, no
//! content for the ISO's arch, a digest other than versions.txt records. Each gives exactly one
//! finding on that tarball.

use std::fs;
use std::io::Write;

use crate::inspect_support::{IMAGES, Tree};
use cks_builder::inspect::{self, Finding, Problem};
use cks_builder::registry::index_json;

/// The findings, sorted by path.
fn findings(tree: &Tree) -> Vec<Finding> {
    let mut found = inspect::verify(&tree.pack("broken"))
        .expect("readable")
        .findings;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

fn only(tree: &Tree, path: &str, problem: Problem) -> Finding {
    let found = findings(tree);
    let kinds: Vec<(&str, Problem)> = found.iter().map(|f| (f.path.as_str(), f.problem)).collect();
    assert_eq!(kinds, [(path, problem)], "{found:#?}");
    found[0].clone()
}

/// The blobs of `reference`'s layout as (digest, bytes), with its index.json.
fn parts(
    tree: &Tree,
    reference: &str,
    seed: u64,
    multi: bool,
) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let contents = tree.layout(reference, seed, multi);
    let blobs = contents
        .blobs
        .iter()
        .map(|(d, p)| (d.clone(), fs::read(p).expect("blob")))
        .collect();
    (index_json(&contents), blobs)
}

#[test]
fn a_gzip_compressed_tarball_is_refused() {
    let tree = Tree::valid();
    let rel = Tree::tarball(IMAGES[3]);
    let plain = fs::read(tree.root().join(&rel)).expect("read");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).expect("gzip");
    tree.put(&rel, &gz.finish().expect("gzip"), 0o644);
    tree.render();
    // The image in it cannot be read, so its `image:` line has no usable tarball either.
    let found = findings(&tree);
    let kinds: Vec<(&str, Problem)> = found.iter().map(|f| (f.path.as_str(), f.problem)).collect();
    assert_eq!(
        kinds,
        [
            (rel.as_str(), Problem::Tarball),
            ("versions.txt", Problem::Image)
        ],
        "{found:#?}"
    );
    assert!(found[0].detail.contains("gzip"), "{}", found[0]);
}

#[test]
fn a_missing_layer_blob_is_named() {
    let tree = Tree::valid();
    let reference = IMAGES[4];
    let (index, mut blobs) = parts(&tree, reference, 4, false);
    let layer = blobs.remove(0).0; // the layer comes first
    tree.write_layout_tar(&Tree::tarball(reference), &index, &blobs);
    tree.render();
    let finding = only(&tree, &Tree::tarball(reference), Problem::Tarball);
    assert!(finding.detail.contains(&layer), "{finding}");
}

#[test]
fn a_corrupt_blob_is_named() {
    let tree = Tree::valid();
    let reference = IMAGES[5];
    let (index, mut blobs) = parts(&tree, reference, 5, false);
    blobs[0].1[100] ^= 0xff;
    tree.write_layout_tar(&Tree::tarball(reference), &index, &blobs);
    tree.render();
    let finding = only(&tree, &Tree::tarball(reference), Problem::Tarball);
    assert!(finding.detail.contains("corrupt"), "{finding}");
}

#[test]
fn an_index_without_the_isos_arch_is_refused() {
    let mut tree = Tree::valid();
    tree.versions.arch = cks_pinning::arch::Arch::Arm64;
    // Every tarball holds amd64 content only: the single-platform images' configs say amd64 and
    // the pause index has its arm64 manifest missing, so each tarball gets one finding.
    tree.render();
    let found = findings(&tree);
    let tarballs: Vec<&str> = found
        .iter()
        .filter(|f| f.problem == Problem::Tarball)
        .map(|f| f.path.as_str())
        .collect();
    let mut expected: Vec<String> = IMAGES.iter().map(|r| Tree::tarball(r)).collect();
    expected.sort();
    assert_eq!(tarballs, expected, "{found:#?}");
    assert_eq!(found.len(), IMAGES.len(), "{found:#?}");
}

#[test]
fn a_tarball_whose_digest_differs_from_its_image_line_is_an_image_finding() {
    let mut tree = Tree::valid();
    let reference = IMAGES[6];
    let recorded = tree.images[6].clone();
    tree.add_image(reference, 66, false);
    // versions.txt keeps the digest of the image as it was first pulled.
    tree.images
        .retain(|i| !i.to_string().starts_with(reference));
    tree.images.push(recorded.clone());
    tree.render();
    let found = findings(&tree);
    let kinds: Vec<(&str, Problem)> = found.iter().map(|f| (f.path.as_str(), f.problem)).collect();
    let tarball = Tree::tarball(reference);
    assert_eq!(
        kinds,
        [
            (tarball.as_str(), Problem::Image),
            ("versions.txt", Problem::Image)
        ],
        "{found:#?}"
    );
    assert!(
        found[0].detail.contains(recorded.digest().expect("pinned")),
        "{}",
        found[0]
    );
}

#[test]
fn etcd_without_an_etcd_version_and_a_lone_csi_manifest_are_named() {
    let mut tree = Tree::valid();
    tree.versions.etcd = None;
    tree.remove("snapshot-crds.yaml");
    tree.render();
    let found = findings(&tree);
    let kinds: Vec<(&str, Problem)> = found.iter().map(|f| (f.path.as_str(), f.problem)).collect();
    assert_eq!(
        kinds,
        [
            ("etcd/etcd-linux-amd64.tar.gz", Problem::Unexpected),
            ("snapshot-crds.yaml", Problem::MissingRequired)
        ],
        "{found:#?}"
    );
}

#[test]
fn two_cni_tarballs_are_ambiguous_for_the_node_glob() {
    let tree = Tree::valid();
    tree.put("cni/cni-plugins-linux-arm64.tgz", b"second", 0o644);
    tree.render();
    only(&tree, "cni/cni-plugins-*64.tgz", Problem::Ambiguous);
}
