//! The tarball check against tarballs written as a build writes them, and changed ones.

use super::*;
use crate::registry::{OCI_MANIFEST, write_tarball};

/// A single-platform image written as a build writes it: its path, digest and sha256.
fn written(dir: &std::path::Path) -> (std::path::PathBuf, String, String) {
    let put = |bytes: &[u8]| {
        let digest = format!("sha256:{}", crate::digest::sha256_hex(bytes));
        let path = dir.join(digest.trim_start_matches("sha256:"));
        std::fs::write(&path, bytes).expect("write a blob");
        (digest, path, bytes.len())
    };
    let config = put(br#"{"architecture":"amd64","os":"linux"}"#);
    let layer = put(&[7u8; 3000]);
    let manifest = serde_json::json!({
        "schemaVersion": 2, "mediaType": OCI_MANIFEST,
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": config.0, "size": config.2},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": layer.0, "size": layer.2}],
    });
    let top = put(&serde_json::to_vec(&manifest).expect("JSON"));
    let contents = LayoutContents {
        name: "registry.example.com/app:1.0".into(),
        media_type: OCI_MANIFEST.into(),
        digest: top.0.clone(),
        size: top.2 as u64,
        blobs: vec![top.clone(), config.clone(), layer.clone()]
            .into_iter()
            .map(|(d, p, _)| (d, p))
            .collect(),
        docker: Some(DockerImage {
            config: config.0,
            layers: vec![layer.0],
        }),
    };
    let tar = dir.join("app.tar");
    let sha = write_tarball(&tar, &contents).expect("written").sha256;
    (tar, top.0, sha)
}

fn check(bytes: &[u8], digest: &str) -> Result<TarballFacts, TarballError> {
    let mut check = TarballCheck::new("registry.example.com/app:1.0", digest, Arch::Amd64);
    // Small writes, so every state meets a buffer's end.
    for chunk in bytes.chunks(333) {
        if check.write_all(chunk).is_err() {
            break;
        }
    }
    check.finish()
}

#[test]
fn a_tarball_as_written_passes_and_any_other_byte_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (tar, digest, sha256) = written(dir.path());
    let bytes = std::fs::read(&tar).expect("read");
    let facts = check(&bytes, &digest).expect("the written tarball passes");
    assert_eq!(facts.sha256, sha256);
    assert_eq!(facts.size, bytes.len() as u64);
    assert_eq!(facts.platform, "linux/amd64");
    assert_eq!(facts.layers.len(), 1);
    assert_eq!(facts.blobs.len(), 3);

    let mut more = bytes.clone();
    more.extend([0u8; 512]);
    assert!(check(&more, &digest).is_err(), "a block after the end");
    let short = &bytes[..bytes.len() - 512];
    assert!(check(short, &digest).is_err(), "one end block");
    let other = format!("sha256:{}", "0".repeat(64));
    assert!(check(&bytes, &other).is_err(), "another image's digest");
    // Every byte of every header, content and padding counts.
    for at in [100, 600, 1100, bytes.len() / 2, bytes.len() - 1500] {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        assert!(check(&changed, &digest).is_err(), "byte {at} changed");
    }
}
