//! The SBOM: valid SPDX 2.3 by the real SPDX tools, byte-identical for the same record, and
//! checked against `versions.txt`.

use std::process::Command;

use cks_pinning::image::ImageRef;
use cks_pinning::sbom::{FileSource, ImageDetail, Layer, Sbom, SbomMismatch, Tool, check};
use cks_pinning::versions_txt::{FileEntry, SignatureEntry, VersionsTxt};

fn hex(seed: u8, len: usize) -> String {
    std::iter::repeat_n(format!("{seed:02x}"), len / 2).collect()
}

fn image(text: &str, seed: u8) -> ImageRef {
    ImageRef::parse(text)
        .and_then(|r| r.with_digest(&format!("sha256:{}", hex(seed, 64))))
        .expect("valid image")
}

fn record() -> VersionsTxt {
    let files = [
        ("binaries/v1.33.13/kubeadm", 1),
        ("binaries/v1.33.13/kubelet", 2),
        ("cni/cni-plugins-linux-amd64-v1.7.1.tgz", 3),
        ("cri-tools/crictl-v1.33.0-linux-amd64.tar.gz", 4),
        ("docker/kube-apiserver:v1.33.13.tar", 5),
        ("docker/busybox:1.36.tar", 6),
        ("manifests/network.yaml", 7),
        ("nonoss/kubelet.service", 8),
    ];
    VersionsTxt {
        kubernetes: "1.33.13".into(),
        cni_plugins: "1.7.1".into(),
        crictl: "1.33.0".into(),
        ccm: "1.2.0".into(),
        csi_driver: "3.0.0".into(),
        autoscaler: "1.33.6".into(),
        autoscaler_tag: "cluster-autoscaler-1.33.6".into(),
        etcd: None,
        headlamp: None,
        arch: cks_pinning::arch::Arch::Amd64,
        urls: Vec::new(),
        files: files
            .iter()
            .map(|(path, seed)| FileEntry {
                path: path.to_string(),
                sha256: hex(*seed, 64),
            })
            .collect(),
        images: vec![
            image("registry.k8s.io/kube-apiserver:v1.33.13", 9),
            image("docker.io/library/busybox:1.36", 10),
        ],
        skipped_images: Vec::new(),
        signatures: vec![SignatureEntry {
            subject: "binaries/v1.33.13/kubeadm".into(),
            identity: "krel-staging@k8s-releng-prod.iam.gserviceaccount.com".into(),
            issuer: "https://accounts.google.com".into(),
            log: true,
        }],
        built: Some(1_700_000_000),
    }
}

fn sbom(versions: &VersionsTxt) -> Sbom<'_> {
    let tool = Tool {
        name: "cks-iso".into(),
        version: "0.1.0".into(),
        commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
    };
    let mut sbom = Sbom::new(versions, "cks-1.33.13-x86_64.iso", tool);
    sbom.sources = vec![
        FileSource {
            path: "binaries/v1.33.13/kubeadm".into(),
            url: "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm".into(),
        },
        FileSource {
            path: "binaries/v1.33.13/kubelet".into(),
            url: "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubelet".into(),
        },
        FileSource {
            path: "cni/cni-plugins-linux-amd64-v1.7.1.tgz".into(),
            url: "https://github.com/containernetworking/plugins/releases/download/v1.7.1/cni-plugins-linux-amd64-v1.7.1.tgz".into(),
        },
        FileSource {
            path: "cri-tools/crictl-v1.33.0-linux-amd64.tar.gz".into(),
            url: "https://github.com/kubernetes-sigs/cri-tools/releases/download/v1.33.0/crictl-v1.33.0-linux-amd64.tar.gz".into(),
        },
        FileSource {
            path: "manifests/network.yaml".into(),
            url: "https://raw.githubusercontent.com/flannel-io/flannel/v0.26.7/Documentation/kube-flannel.yml".into(),
        },
    ];
    sbom.images = vec![
        ImageDetail {
            reference: versions.images[0].clone(),
            tarball: "docker/kube-apiserver:v1.33.13.tar".into(),
            layers: vec![
                Layer {
                    digest: cks_pinning::digest::Digest::parse(&format!("sha256:{}", hex(11, 64)))
                        .expect("digest"),
                    sha1: hex(12, 40),
                    size: 100,
                },
                Layer {
                    digest: cks_pinning::digest::Digest::parse(&format!("sha256:{}", hex(13, 64)))
                        .expect("digest"),
                    sha1: hex(14, 40),
                    size: 200,
                },
            ],
        },
        ImageDetail {
            reference: versions.images[1].clone(),
            tarball: "docker/busybox:1.36.tar".into(),
            layers: vec![Layer {
                digest: cks_pinning::digest::Digest::parse(&format!("sha256:{}", hex(15, 64)))
                    .expect("digest"),
                sha1: hex(16, 40),
                size: 300,
            }],
        },
    ];
    sbom
}

#[test]
fn the_real_spdx_tools_accept_the_document() {
    let versions = record();
    let text = sbom(&versions).render().expect("renders");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("sbom.spdx.json");
    std::fs::write(&path, &text).expect("write");
    let output = match Command::new("pyspdxtools").arg("-i").arg(&path).output() {
        Ok(output) => output,
        Err(e) => {
            cks_fixtures::skip::skip(&format!(
                "pyspdxtools is not installed ({e}); scripts/test installs it"
            ));
            return;
        }
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "pyspdxtools refused the SBOM:\n{said}\n{text}"
    );
    assert!(
        !said.to_lowercase().contains("invalid"),
        "pyspdxtools: {said}"
    );
}

#[test]
fn the_same_record_gives_the_same_bytes() {
    let versions = record();
    let a = sbom(&versions).render().expect("renders");
    let b = sbom(&versions.clone()).render().expect("renders");
    assert_eq!(a, b);
    assert!(a.contains("\"created\": \"2023-11-14T22:13:20Z\""), "{a}");
    let mut later = versions.clone();
    later.built = Some(1_700_000_001);
    assert_ne!(sbom(&later).render().expect("renders"), a);
}

#[test]
fn it_names_each_file_and_image_with_its_purl_digest_and_layers() {
    let versions = record();
    let text = sbom(&versions).render().expect("renders");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let packages = doc["packages"].as_array().expect("packages");
    // The ISO, eight files (the two image tarballs among them) and two images.
    assert_eq!(packages.len(), 1 + 8 + 2, "{text}");
    let tarball = packages
        .iter()
        .find(|p| {
            p["packageFileName"] == "docker/busybox:1.36.tar"
                && p["primaryPackagePurpose"] == "ARCHIVE"
        })
        .expect("the busybox tarball has a package of its own");
    assert_eq!(tarball["checksums"][0]["algorithm"], "SHA256");
    assert_eq!(tarball["checksums"][0]["checksumValue"], hex(6, 64));
    let kubeadm = packages
        .iter()
        .find(|p| p["packageFileName"] == "binaries/v1.33.13/kubeadm")
        .expect("kubeadm");
    assert_eq!(kubeadm["versionInfo"], "1.33.13");
    assert_eq!(
        kubeadm["downloadLocation"],
        "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm"
    );
    assert_eq!(kubeadm["checksums"][0]["checksumValue"], hex(1, 64));
    assert!(
        kubeadm["annotations"][0]["comment"]
            .as_str()
            .expect("note")
            .contains("identity krel-staging@k8s-releng-prod.iam.gserviceaccount.com, issuer https://accounts.google.com, transparency-log entry checked")
    );
    let cni = packages
        .iter()
        .find(|p| p["name"] == "cni-plugins-linux-amd64-v1.7.1.tgz")
        .expect("cni");
    assert!(
        cni["externalRefs"][0]["referenceLocator"]
            .as_str()
            .expect("purl")
            .starts_with("pkg:github/containernetworking/plugins@v1.7.1")
    );
    let busybox = packages
        .iter()
        .find(|p| p["name"] == "docker.io/library/busybox")
        .expect("busybox");
    let purl = busybox["externalRefs"][0]["referenceLocator"]
        .as_str()
        .expect("purl");
    assert_eq!(
        purl,
        format!(
            "pkg:oci/busybox@sha256%3A{}?arch=amd64&repository_url=docker.io/library/busybox&tag=1.36",
            hex(10, 64)
        )
    );
    assert_eq!(
        busybox["downloadLocation"],
        format!(
            "https://registry-1.docker.io/v2/library/busybox/manifests/sha256:{}",
            hex(10, 64)
        )
    );
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 3);
    let relationships = doc["relationships"].as_array().expect("relationships");
    let contains = |from: &str, to: &str| {
        relationships.iter().any(|r| {
            r["spdxElementId"] == from
                && r["relationshipType"] == "CONTAINS"
                && r["relatedSpdxElement"] == to
        })
    };
    for package in packages.iter().skip(1) {
        assert!(
            contains("SPDXRef-ISO", package["SPDXID"].as_str().expect("id")),
            "{package}"
        );
    }
    let busybox_id = busybox["SPDXID"].as_str().expect("id");
    assert!(contains(
        tarball["SPDXID"].as_str().expect("id"),
        busybox_id
    ));
    assert!(
        files
            .iter()
            .any(|f| contains(busybox_id, f["SPDXID"].as_str().expect("id"))
                && f["checksums"][1]["checksumValue"] == hex(15, 64))
    );
    assert_eq!(
        doc["creationInfo"]["creators"][0],
        "Tool: cks-iso-0.1.0 (commit 0123456789abcdef0123456789abcdef01234567)"
    );
}

#[test]
fn check_agrees_with_its_own_record_and_names_each_disagreement() {
    let versions = record();
    let text = sbom(&versions).render().expect("renders");
    assert_eq!(check(&text, &versions), Vec::<SbomMismatch>::new());

    // A tarball whose SHA-256 in the SBOM is not the one versions.txt records is named.
    let mut tampered = versions.clone();
    tampered.files[5].sha256 = hex(30, 64);
    assert_eq!(
        check(&text, &tampered),
        vec![SbomMismatch::FileDigest {
            path: "docker/busybox:1.36.tar".into(),
            versions_txt: hex(30, 64),
            sbom: hex(6, 64),
        }]
    );

    let mut more = versions.clone();
    more.files.push(FileEntry {
        path: "extra/file".into(),
        sha256: hex(20, 64),
    });
    more.files[0].sha256 = hex(21, 64);
    more.images.push(image("registry.k8s.io/pause:3.10", 22));
    more.kubernetes = "1.33.14".into();
    let found = check(&text, &more);
    assert!(
        found.contains(&SbomMismatch::MissingFile("extra/file".into())),
        "{found:?}"
    );
    assert!(found.iter().any(|m| matches!(m, SbomMismatch::FileDigest { path, .. } if path == "binaries/v1.33.13/kubeadm")), "{found:?}");
    assert!(found.iter().any(|m| matches!(m, SbomMismatch::MissingImage(i) if i.starts_with("registry.k8s.io/pause:3.10@"))), "{found:?}");
    assert!(
        found
            .iter()
            .any(|m| matches!(m, SbomMismatch::Version { .. })),
        "{found:?}"
    );

    let mut fewer = versions.clone();
    fewer.files.retain(|f| f.path != "nonoss/kubelet.service");
    fewer.images.pop();
    let found = check(&text, &fewer);
    assert!(
        found.contains(&SbomMismatch::Extra("file nonoss/kubelet.service".into())),
        "{found:?}"
    );
    assert!(found.iter().any(|m| matches!(m, SbomMismatch::Extra(e) if e.starts_with("image docker.io/library/busybox"))), "{found:?}");
    assert!(matches!(
        check("{}", &versions)[0],
        SbomMismatch::NotSpdx(_)
    ));
}

#[test]
fn a_record_without_a_build_time_is_refused() {
    let mut versions = record();
    versions.built = None;
    let err = sbom(&versions).render().expect_err("no time");
    assert!(err.to_string().contains("SOURCE_DATE_EPOCH"), "{err}");
}
