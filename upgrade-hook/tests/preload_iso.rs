//! The new ISO of the preload tests: the builder's valid CKS tree (real OCI-layout tarballs,
//! manifests, `versions.txt` and SBOM, so `verify` finds nothing wrong) with a large etcd image
//! added (so a copy can be cut off mid-file), packed with the builder's writer.

use std::fs;
use std::path::{Path, PathBuf};

use cks_builder::registry::{LayoutContents, OCI_MANIFEST, write_tarball};
use cks_pinning::image::ImageRef;
use sha2::{Digest, Sha256};

#[path = "../../builder/tests/inspect_support/mod.rs"]
mod inspect_support;

pub use inspect_support::Tree;

/// The large image added to the tree.
pub const ETCD: &str = "registry.k8s.io/etcd:3.5.21-0";

/// One image tarball of the test ISO.
#[derive(Debug, Clone)]
pub struct IsoImage {
    /// Its file name in `docker/`.
    pub file: String,
    /// The image's full reference.
    pub name: String,
    /// The digest containerd records on import.
    pub digest: String,
    /// The tarball's size.
    pub size: u64,
}

/// The packed ISO, its sha256 and its images.
pub struct NewIso {
    /// The tree (kept for its temporary folder).
    pub tree: Tree,
    /// The ISO.
    pub path: PathBuf,
    /// Its sha256, hex.
    pub sha256: String,
    /// Its images, in the tree's order.
    pub images: Vec<IsoImage>,
}

fn blob(dir: &Path, data: &[u8]) -> (String, PathBuf, u64) {
    let hex = hex::encode(Sha256::digest(data));
    let path = dir.join(&hex);
    fs::write(&path, data).expect("blob");
    (format!("sha256:{hex}"), path, data.len() as u64)
}

/// Adds `reference` with one uncompressed layer holding a file of `len` bytes.
fn add_large_image(tree: &mut Tree, reference: &str, len: usize, seed: u64) {
    let dir = tree.scratch().join("large-blobs");
    fs::create_dir_all(&dir).expect("blobs dir");
    let data = inspect_support::bytes(seed, len);
    let mut layer = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_ustar();
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    layer
        .append_data(&mut header, "data.bin", data.as_slice())
        .expect("layer");
    let (layer, layer_path, layer_size) = blob(&dir, &layer.into_inner().expect("layer tar"));
    let config = format!(
        r#"{{"architecture":"amd64","os":"linux","rootfs":{{"type":"layers","diff_ids":["{layer}"]}}}}"#
    );
    let (config, config_path, config_size) = blob(&dir, config.as_bytes());
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_MANIFEST}","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config}","size":{config_size}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{layer}","size":{layer_size}}}]}}"#
    );
    let (digest, manifest_path, size) = blob(&dir, manifest.as_bytes());
    let contents = LayoutContents {
        name: reference.to_string(),
        media_type: OCI_MANIFEST.to_string(),
        digest: digest.clone(),
        size,
        blobs: vec![
            (layer, layer_path),
            (config, config_path),
            (digest.clone(), manifest_path),
        ],
        docker: None,
    };
    write_tarball(&tree.root().join(Tree::tarball(reference)), &contents).expect("tarball");
    let pinned = ImageRef::parse(reference)
        .expect("reference")
        .with_digest(&digest)
        .expect("digest");
    tree.images.push(pinned);
}

/// The sha256 of the file at `path`, hex.
pub fn sha256_file(path: &Path) -> String {
    hex::encode(Sha256::digest(fs::read(path).expect("read")))
}

impl NewIso {
    /// The valid tree with the large etcd image, packed as `new.iso`.
    pub fn build() -> NewIso {
        let mut tree = Tree::valid();
        add_large_image(&mut tree, ETCD, 3_000_000, 77);
        tree.render();
        let path = tree.pack("new");
        let images = tree
            .images
            .iter()
            .map(|pinned| {
                let text = pinned.to_string();
                let name = text.split('@').next().unwrap_or_default().to_string();
                let rel = Tree::tarball(&name);
                IsoImage {
                    file: rel.trim_start_matches("docker/").to_string(),
                    digest: pinned.digest().expect("pinned").to_string(),
                    size: fs::metadata(tree.root().join(&rel)).expect("size").len(),
                    name,
                }
            })
            .collect();
        NewIso {
            sha256: sha256_file(&path),
            path,
            images,
            tree,
        }
    }
}
