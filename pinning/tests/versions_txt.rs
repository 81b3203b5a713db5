//! `versions.txt`: rendering and parsing back is lossless, and the older form is still read.

use cks_fixtures::shared;
use cks_pinning::autoscaler::{RemoteTags, resolve};
use cks_pinning::image::ImageRef;
use cks_pinning::manifest::image_refs;
use cks_pinning::version::KubeVersion;
use cks_pinning::versions_txt::{
    FileEntry, SignatureEntry, SkippedImage, VersionsTxt, VersionsTxtError,
};
use proptest::prelude::*;

fn hex(seed: &str) -> String {
    // A made-up digest: the SHA-256 of the seed.
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(seed.as_bytes()))
}

fn pinned(image: &ImageRef) -> ImageRef {
    image
        .with_digest(&format!("sha256:{}", hex(&image.to_string())))
        .expect("valid digest")
}

fn sample(etcd: Option<&str>, autoscaler_tag: &str, images: Vec<ImageRef>) -> VersionsTxt {
    VersionsTxt {
        kubernetes: "1.33.13".to_string(),
        cni_plugins: "1.7.1".to_string(),
        crictl: "1.33.0".to_string(),
        ccm: "1.2.0".to_string(),
        csi_driver: "3.0.0".to_string(),
        autoscaler: autoscaler_tag
            .strip_prefix("cluster-autoscaler-")
            .unwrap_or(autoscaler_tag)
            .to_string(),
        autoscaler_tag: autoscaler_tag.to_string(),
        etcd: etcd.map(str::to_string),
        headlamp: None,
        arch: cks_pinning::arch::Arch::Amd64,
        urls: vec![
            "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm".to_string(),
            "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm.sha256".to_string(),
            "https://github.com/containernetworking/plugins/releases/download/v1.7.1/cni-plugins-linux-amd64-v1.7.1.tgz".to_string(),
        ],
        files: vec![
            FileEntry {
                path: "binaries/v1.33.13/kubeadm".to_string(),
                sha256: hex("kubeadm"),
            },
            FileEntry {
                path: "docker/kube-apiserver:v1.33.13.tar".to_string(),
                sha256: hex("apiserver"),
            },
            FileEntry {
                path: "with space/a b.yaml".to_string(),
                sha256: hex("space"),
            },
        ],
        images: images.iter().map(pinned).collect(),
        skipped_images: vec![SkippedImage {
            reference: ImageRef::parse("ghcr.io/example/amd64-only:1.0").expect("valid"),
            platform: "linux/arm64".to_string(),
        }],
        signatures: vec![
            SignatureEntry {
                subject: "binaries/v1.33.13/kubeadm".to_string(),
                identity: "krel-staging@k8s-releng-prod.iam.gserviceaccount.com".to_string(),
                issuer: "https://accounts.google.com".to_string(),
                log: true,
            },
            SignatureEntry {
                subject: format!("registry.k8s.io/pause:3.10@sha256:{}", hex("pause")),
                identity: "https://github.com/org/repo/.github/workflows/release.yml@refs/tags/v1"
                    .to_string(),
                issuer: "https://token.actions.githubusercontent.com".to_string(),
                log: false,
            },
        ],
        built: Some(1_700_000_000),
    }
}

fn round_trips(value: &VersionsTxt) -> String {
    let text = value.render().expect("renders");
    let parsed = VersionsTxt::parse(&text).expect("parses back");
    assert_eq!(&parsed, value);
    assert_eq!(parsed.render().expect("renders again"), text);
    text
}

#[test]
fn renders_keys_in_order_and_round_trips() {
    let images = vec![ImageRef::parse("registry.k8s.io/pause:3.10").expect("valid")];
    let text = round_trips(&sample(
        Some("3.5.21"),
        "cluster-autoscaler-1.33.6",
        images.clone(),
    ));
    let keys: Vec<&str> = text
        .lines()
        .map(|line| line.split_once(": ").expect("key: value").0)
        .collect();
    assert_eq!(
        keys,
        [
            "kubernetes",
            "cni-plugins",
            "crictl",
            "ccm",
            "csi-driver",
            "autoscaler",
            "autoscaler-tag",
            "etcd",
            "arch",
            "url",
            "url",
            "url",
            "file",
            "file",
            "file",
            "image",
            "skipped-image",
            "signature",
            "signature",
            "built"
        ]
    );
    assert!(text.contains(
        "signature: binaries/v1.33.13/kubeadm krel-staging@k8s-releng-prod.iam.gserviceaccount.com https://accounts.google.com log\n"
    ));
    assert!(text.contains(" https://token.actions.githubusercontent.com no-log\n"));
    assert!(text.contains("file: with space/a b.yaml sha256:"));
    assert!(text.contains("image: registry.k8s.io/pause:3.10@sha256:"));
    assert!(text.contains("skipped-image: ghcr.io/example/amd64-only:1.0 linux/arm64\n"));
    // Without etcd there is no etcd line.
    let text = round_trips(&sample(None, "cluster-autoscaler-1.33.6", images));
    assert!(!text.contains("etcd"));
}

#[test]
fn reads_the_older_form_into_the_same_value() {
    // The older form has no `signature:` lines.
    let value = VersionsTxt {
        signatures: Vec::new(),
        ..sample(Some("3.5.21"), "cluster-autoscaler-1.33.6", Vec::new())
    };
    let text = value.render().expect("renders");
    let older = text
        .replace("cni-plugins: 1.7.1", "cni-plugins: v1.7.1")
        .replace("crictl: 1.33.0", "crictl: v1.33.0")
        .replace("ccm: 1.2.0", "ccm: v1.2.0")
        .replace("csi-driver: 3.0.0", "csi-driver: v3.0.0")
        .replace("etcd: 3.5.21", "etcd: v3.5.21")
        .replace(
            "autoscaler: 1.33.6\nautoscaler-tag: cluster-autoscaler-1.33.6\n",
            "autoscaler: cluster-autoscaler-1.33.6\n",
        )
        .replace(
            "built: ",
            "mirror: https://dl.k8s.io/a http://127.0.0.1:8080/k8s/a\nbuilt: ",
        );
    assert_ne!(older, text);
    assert!(older.contains("mirror: "));
    let parsed = VersionsTxt::parse(&older).expect("the older form parses");
    assert_eq!(parsed, value);
    assert_eq!(parsed.render().expect("renders"), text);
}

#[test]
fn refuses_a_malformed_signature_line() {
    let text = sample(None, "cluster-autoscaler-1.33.6", Vec::new())
        .render()
        .expect("renders");
    for (bad, why) in [
        (" log\n", " logged\n"),
        (" log\n", " extra log\n"),
        (" https://accounts.google.com log\n", " log\n"),
    ] {
        let broken = text.replacen(bad, why, 1);
        assert_ne!(broken, text);
        let err = VersionsTxt::parse(&broken).expect_err("refused");
        assert!(
            matches!(&err, VersionsTxtError::Value { key, .. } if key == "signature"),
            "{err}"
        );
        assert!(err.to_string().contains("<log|no-log>"), "{err}");
    }
    // A signature line before the images is out of order.
    let moved = text.replacen("signature: ", "XX", 1);
    let line = moved
        .lines()
        .find(|l| l.starts_with("XX"))
        .expect("moved")
        .to_string();
    let reordered = moved.replace(&format!("{line}\n"), "").replacen(
        "file: ",
        &format!("signature: {}\nfile: ", &line[2..]),
        1,
    );
    let err = VersionsTxt::parse(&reordered).expect_err("out of order");
    assert!(matches!(err, VersionsTxtError::Order { .. }), "{err}");
    // An entry with a space in a word is not rendered.
    let mut value = sample(None, "cluster-autoscaler-1.33.6", Vec::new());
    value.signatures[0].identity = "two words".to_string();
    assert!(value.render().is_err());
}

#[test]
fn round_trips_with_the_real_images_and_autoscaler_release() {
    let (Some(csi), Some(listing)) = (
        shared::upstream("csi/manifest-v3.0.0.yaml"),
        shared::upstream("autoscaler/ls-remote.txt"),
    ) else {
        return;
    };
    let csi = std::fs::read_to_string(csi).expect("read");
    let listing = std::fs::read_to_string(listing).expect("read");
    let tags = RemoteTags::parse(&listing).expect("valid listing");
    let release =
        resolve(&tags, &KubeVersion::parse("1.33.13").expect("valid"), None).expect("a release");
    let images = image_refs(&csi).expect("valid manifest");
    assert_eq!(images.len(), 8);
    let text = round_trips(&sample(None, &release.tag, images));
    assert!(text.contains("autoscaler: 1.33.6\nautoscaler-tag: cluster-autoscaler-1.33.6\n"));
    assert_eq!(text.lines().filter(|l| l.starts_with("image: ")).count(), 8);
}

#[test]
fn refuses_what_render_would_not_write() {
    let mut base = sample(None, "cluster-autoscaler-1.33.6", Vec::new());
    base.skipped_images.clear();
    // The appended lines below would come after the signature lines, out of order.
    base.signatures.clear();
    base.built = None;
    let good = base.render().expect("renders");
    let cases: Vec<(String, &str)> = vec![
        (
            good.replacen("kubernetes: 1.33.13\n", "", 1),
            "no `kubernetes` line",
        ),
        (good.replacen("arch: amd64\n", "", 1), "no `arch` line"),
        (format!("{good}kubernetes: 1.33.13\n"), "out of order"),
        (
            good.replacen("ccm: 1.2.0\n", "ccm: 1.2.0\nccm: 1.2.0\n", 1),
            "out of order",
        ),
        (
            good.replacen("crictl:", "kubectl:", 1),
            "expected `key: value`",
        ),
        (
            format!("{good}image: registry.k8s.io/pause:3.10\n"),
            "malformed",
        ),
        (
            format!("{good}image: pause:3.10@sha256:{}\n", hex("x")),
            "malformed",
        ),
        (
            format!("{good}file: docker/x.tar sha256:abc\n"),
            "malformed",
        ),
        (
            format!("{good}skipped-image: busybox linux/arm64\n"),
            "normalised",
        ),
        (good.replacen("arch: amd64", "arch: amd 64", 1), "malformed"),
        (format!("{good}\n"), "expected `key: value`"),
        (format!("{good}built: 1\nbuilt: 2\n"), "out of order"),
        (format!("{good}built: soon\n"), "whole seconds"),
        (format!("{good}mirror: https://a.example/x\n"), "url used"),
        (format!("{good}built: 1\nmirror: a b\n"), "out of order"),
    ];
    for (text, expected) in cases {
        let error = VersionsTxt::parse(&text).expect_err(expected);
        assert!(error.to_string().contains(expected), "{error} / {expected}");
    }
    let mut bad = sample(None, "cluster-autoscaler-1.33.6", Vec::new());
    bad.files[0].path = "a\nb".to_string();
    assert!(matches!(bad.render(), Err(VersionsTxtError::Value { .. })));
    let mut bad = sample(None, "cluster-autoscaler-1.33.6", Vec::new());
    bad.cni_plugins = "v1.7.1".to_string();
    let error = bad.render().expect_err("one rule: no `v` before a release");
    assert!(error.to_string().contains("without `v`"), "{error}");
    let mut bad = sample(None, "x", Vec::new());
    bad.images = vec![ImageRef::parse("busybox").expect("valid")];
    assert!(
        bad.render().is_err(),
        "an image without a digest is refused"
    );
}

fn word() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._+-]{1,12}"
}

/// A release number as versions.txt writes it: anything but `v` before a digit.
fn release() -> impl Strategy<Value = String> {
    "[0-9a-uw-zA-Z._+-][A-Za-z0-9._+-]{0,11}"
}

fn image() -> impl Strategy<Value = ImageRef> {
    (
        prop_oneof![
            Just(""),
            Just("registry.k8s.io/"),
            Just("ghcr.io/x/"),
            Just("localhost:5000/")
        ],
        "[a-z0-9]{1,6}",
        prop::option::of("[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,8}"),
        "[0-9a-f]{64}",
    )
        .prop_map(|(registry, name, tag, hex)| {
            let tag = tag.map(|t| format!(":{t}")).unwrap_or_default();
            ImageRef::parse(&format!("{registry}{name}{tag}@sha256:{hex}")).expect("valid")
        })
}

proptest! {
    #[test]
    fn any_renderable_value_round_trips(
        versions in prop::collection::vec(release(), 6),
        tag in word(),
        arch in prop::sample::select(vec![cks_pinning::arch::Arch::Amd64, cks_pinning::arch::Arch::Arm64]),
        etcd in prop::option::of(release()),
        urls in prop::collection::vec("https://[a-z]{1,8}\\.example/[a-zA-Z0-9/._%-]{0,20}", 0..4),
        files in prop::collection::vec(("[a-zA-Z0-9._:@+-][a-zA-Z0-9 /._:@+-]{0,20}[a-zA-Z0-9._-]", "[0-9a-f]{64}"), 0..5),
        images in prop::collection::vec(image(), 0..5),
        skipped in prop::collection::vec((image(), "linux/(amd64|arm64|arm/v7)"), 0..3),
        signatures in prop::collection::vec((word(), word(), word(), any::<bool>()), 0..3),
        built in prop::option::of(0i64..4_000_000_000),
    ) {
        let value = VersionsTxt {
            kubernetes: versions[0].clone(),
            cni_plugins: versions[1].clone(),
            crictl: versions[2].clone(),
            ccm: versions[3].clone(),
            csi_driver: versions[4].clone(),
            autoscaler: versions[5].clone(),
            autoscaler_tag: tag,
            etcd,
            headlamp: None,
            arch,
            urls,
            files: files.into_iter().map(|(path, sha256)| FileEntry { path, sha256 }).collect(),
            images,
            skipped_images: skipped
                .into_iter()
                .map(|(reference, platform)| SkippedImage { reference, platform })
                .collect(),
            signatures: signatures
                .into_iter()
                .map(|(subject, identity, issuer, log)| SignatureEntry { subject, identity, issuer, log })
                .collect(),
            built,
        };
        let text = value.render().expect("renders");
        prop_assert_eq!(VersionsTxt::parse(&text).expect("parses"), value);
    }
}
