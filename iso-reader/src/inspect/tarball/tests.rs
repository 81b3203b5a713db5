//! Tests of the tarball check.

use super::*;
use crate::oci::OCI_MANIFEST;
use std::path::PathBuf;

fn blob(dir: &Path, bytes: &[u8]) -> (String, PathBuf, u64) {
    let hex = crate::digest::sha256_hex(bytes);
    let path = dir.join(&hex);
    std::fs::write(&path, bytes).expect("write blob");
    (format!("sha256:{hex}"), path, bytes.len() as u64)
}

/// A one-layer image for `arch` as the puller writes it; returns the tarball path.
fn image(dir: &Path, arch: &str) -> (PathBuf, String) {
    let config = blob(
        dir,
        format!(
            r#"{{"architecture":"{arch}","os":"linux","rootfs":{{"type":"layers","diff_ids":[]}}}}"#
        )
        .as_bytes(),
    );
    let layer = blob(dir, b"not really gzip, never decompressed");
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_MANIFEST}","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{}","size":{}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{}","size":{}}}]}}"#,
        config.0, config.2, layer.0, layer.2
    );
    let top = blob(dir, manifest.as_bytes());
    let out = dir.join(format!("pause-{arch}.tar"));
    write_layout(&out, &top, &[&top, &config, &layer]);
    (out, top.0)
}

/// Writes an OCI layout tarball as the builder's puller does: `oci-layout`, an `index.json`
/// naming `top` by the full reference, then every blob under `blobs/sha256/`.
fn write_layout(out: &Path, top: &(String, PathBuf, u64), blobs: &[&(String, PathBuf, u64)]) {
    let name = "registry.k8s.io/pause:3.10";
    let index = format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_INDEX}","manifests":[{{"mediaType":"{OCI_MANIFEST}","digest":"{}","size":{},"annotations":{{"io.containerd.image.name":"{name}","org.opencontainers.image.ref.name":"{name}"}}}}]}}"#,
        top.0, top.2
    );
    let mut tar = tar::Builder::new(File::create(out).expect("create"));
    let mut append = |path: &str, bytes: &[u8]| {
        let mut header = tar::Header::new_ustar();
        header.set_mode(0o644);
        header.set_size(bytes.len() as u64);
        tar.append_data(&mut header, path, bytes).expect("append");
    };
    append("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#);
    append("index.json", index.as_bytes());
    for (digest, path, _) in blobs {
        let hex = digest.trim_start_matches("sha256:");
        append(
            &format!("blobs/sha256/{hex}"),
            &std::fs::read(path).expect("read blob"),
        );
    }
    tar.finish().expect("finish");
}

#[test]
fn a_pulled_tarball_is_clean_and_names_its_reference() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tar, digest) = image(dir.path(), "amd64");
    let (entries, findings) = check("docker/pause.tar", &tar, Some(Arch::Amd64));
    assert_eq!(findings, []);
    assert_eq!(
        entries,
        [LayoutEntry {
            name: Some("registry.k8s.io/pause:3.10".into()),
            digest
        }]
    );
}

#[test]
fn an_image_for_another_arch_is_a_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tar, _) = image(dir.path(), "arm64");
    let (_, findings) = check("docker/pause.tar", &tar, Some(Arch::Amd64));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].detail.contains("linux/arm64"), "{findings:?}");
}

#[test]
fn a_gzipped_tarball_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tar, _) = image(dir.path(), "amd64");
    let gz = dir.path().join("pause.tar.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(File::create(&gz).expect("create"), Default::default());
    io::copy(&mut File::open(&tar).expect("open"), &mut encoder).expect("gzip");
    encoder.finish().expect("finish");
    let (entries, findings) = check("docker/pause.tar", &gz, Some(Arch::Amd64));
    assert!(entries.is_empty());
    assert_eq!(findings.len(), 1);
    assert!(
        findings[0].detail.contains("gzip-compressed"),
        "{findings:?}"
    );
}

#[test]
fn a_missing_layer_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tar, _) = image(dir.path(), "amd64");
    // Rewrite the tar without its last blob (blobs are sorted; any one will do).
    let cut = dir.path().join("cut.tar");
    let mut builder = tar::Builder::new(File::create(&cut).expect("create"));
    let mut archive = tar::Archive::new(File::open(&tar).expect("open"));
    let mut entries: Vec<(tar::Header, Vec<u8>)> = Vec::new();
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read");
        entries.push((entry.header().clone(), bytes));
    }
    let layer = crate::digest::sha256_hex(b"not really gzip, never decompressed");
    for (mut header, bytes) in entries {
        let path = header.path().expect("path").display().to_string();
        if path.ends_with(&layer) {
            continue;
        }
        builder
            .append_data(&mut header, path, &bytes[..])
            .expect("append");
    }
    builder.finish().expect("finish");
    let (_, findings) = check("docker/pause.tar", &cut, Some(Arch::Amd64));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].detail.starts_with("layer 1"), "{findings:?}");
}

/// Rewrites the tarball with `index.json` passed through `edit`.
fn with_index(tar: &Path, out: &Path, edit: impl Fn(&str) -> String) {
    let mut builder = tar::Builder::new(File::create(out).expect("create"));
    let mut archive = tar::Archive::new(File::open(tar).expect("open"));
    for entry in archive.entries().expect("entries") {
        let mut entry = entry.expect("entry");
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read");
        let mut header = entry.header().clone();
        let path = header.path().expect("path").display().to_string();
        if path == "index.json" {
            bytes = edit(std::str::from_utf8(&bytes).expect("utf-8")).into_bytes();
            header.set_size(bytes.len() as u64);
        }
        builder
            .append_data(&mut header, path, &bytes[..])
            .expect("append");
    }
    builder.finish().expect("finish");
}

#[test]
fn without_the_containerd_annotation_a_full_ref_name_still_names_the_image() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (tar, _) = image(dir.path(), "amd64");
    let out = dir.path().join("ref-name-only.tar");
    with_index(&tar, &out, |index| {
        index.replace(
            r#""io.containerd.image.name":"registry.k8s.io/pause:3.10","#,
            "",
        )
    });
    let (entries, findings) = check("docker/pause.tar", &out, Some(Arch::Amd64));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].detail.contains("fall back"), "{findings:?}");
    assert_eq!(
        entries[0].name.as_deref(),
        Some("registry.k8s.io/pause:3.10")
    );

    let tag_only = dir.path().join("tag-only.tar");
    with_index(&tar, &tag_only, |index| {
        index
            .replace(
                r#""io.containerd.image.name":"registry.k8s.io/pause:3.10","#,
                "",
            )
            .replace("registry.k8s.io/pause:3.10", "3.10")
    });
    let (entries, findings) = check("docker/pause.tar", &tag_only, Some(Arch::Amd64));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].detail.contains("made-up name"), "{findings:?}");
    assert_eq!(entries[0].name, None);
}
