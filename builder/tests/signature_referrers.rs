//! Image signatures found through the OCI referrers API (`/v2/<name>/referrers/<digest>`),
//! which the Debian distribution registry does not implement: a registry layout on the
//! fixtures' file server answers it, with no `sha256-<hex>.sig` tag, and the signature among
//! the referrers verifies or is refused like one at the tag.

use std::path::Path;

use cks_builder::registry::{PullOptions, PullReport, PulledImage};
use cks_builder::upstream_signatures::{Mode, SignatureRefusals, SignatureSettings, Verifier};
use cks_fixtures::http::FileServer;
use cks_fixtures::sigstore::{SignedImage, Signer, TestSigstore};
use cks_pinning::arch::Arch;
use sha2::{Digest, Sha256};

const IMAGE_DIGEST: &str =
    "sha256:1111111111111111111111111111111111111111111111111111111111111111";

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

fn put(root: &Path, path: &str, bytes: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// Serves `signed` as the only referrer of `pause@IMAGE_DIGEST` under `root`.
fn publish_referrer(root: &Path, signed: &SignedImage) {
    let config = b"{}";
    put(root, &format!("v2/pause/blobs/{}", digest(config)), config);
    put(
        root,
        &format!("v2/pause/blobs/{}", signed.payload_digest()),
        &signed.payload,
    );
    let manifest = signed.manifest(&digest(config));
    let manifest_digest = digest(manifest.as_bytes());
    put(
        root,
        &format!("v2/pause/manifests/{manifest_digest}"),
        manifest.as_bytes(),
    );
    let index = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": manifest_digest,
            "size": manifest.len(),
            "artifactType": "application/vnd.dev.cosign.artifact.sig.v1+json"
        }]
    });
    put(
        root,
        &format!("v2/pause/referrers/{IMAGE_DIGEST}"),
        index.to_string().as_bytes(),
    );
}

async fn check(
    signer: &Signer,
    mode: Mode,
) -> (
    Result<cks_builder::upstream_signatures::Checked, SignatureRefusals>,
    FileServer,
) {
    let sigstore = TestSigstore::generate().expect("test trust root");
    let dir = tempfile::tempdir().expect("temp dir");
    let signed = sigstore
        .sign_image("registry.k8s.io/pause", IMAGE_DIGEST, signer)
        .expect("signs");
    publish_referrer(dir.path(), &signed);
    let server = FileServer::start(dir.path()).expect("file server");
    let trusted_root = dir.path().join("trusted_root.json");
    std::fs::write(&trusted_root, sigstore.trusted_root_json()).expect("write");
    let verifier = Verifier::new(&SignatureSettings {
        mode,
        trusted_root: Some(trusted_root),
        ..SignatureSettings::default()
    })
    .expect("the trusted root loads");
    let host = server.addr().to_string();
    let mut pull = PullOptions::new(Arch::Amd64);
    pull.mirrors = vec![format!("registry.k8s.io=http://{host}")];
    pull.insecure = vec![host];
    let report = PullReport {
        images: vec![PulledImage {
            reference: "registry.k8s.io/pause:3.10".parse().expect("reference"),
            digest: IMAGE_DIGEST.parse().expect("digest"),
            media_type: "application/vnd.oci.image.index.v1+json".into(),
            platform_digest: IMAGE_DIGEST.parse().expect("digest"),
            platform: "linux/amd64".into(),
            tarball: "docker/pause:3.10.tar".into(),
            tarball_size: 0,
            tarball_sha256: IMAGE_DIGEST.into(),
            blobs: Vec::new(),
        }],
        ..PullReport::default()
    };
    let checked = verifier.check_images(&report, &pull).await;
    drop(dir);
    (checked, server)
}

#[tokio::test]
async fn a_signature_among_the_referrers_verifies_and_another_identity_is_refused() {
    let (checked, server) = check(
        &Signer::new(
            "krel-trust@k8s-releng-prod.iam.gserviceaccount.com",
            "https://accounts.google.com",
        ),
        Mode::Require,
    )
    .await;
    let checked = checked.expect("verified through the referrers API");
    assert_eq!(checked.entries.len(), 1, "{checked:?}");
    let entry = &checked.entries[0];
    assert_eq!(
        entry.subject,
        format!("registry.k8s.io/pause:3.10@{IMAGE_DIGEST}")
    );
    assert_eq!(
        entry.identity,
        "krel-trust@k8s-releng-prod.iam.gserviceaccount.com"
    );
    assert!(entry.log);
    // The tag was asked for first, and is not there.
    let hex = IMAGE_DIGEST.trim_start_matches("sha256:");
    assert_eq!(
        server.requests(&format!("/v2/pause/manifests/sha256-{hex}.sig")),
        1
    );
    assert_eq!(
        server.requests(&format!("/v2/pause/referrers/{IMAGE_DIGEST}")),
        1
    );

    let (checked, _server) = check(
        &Signer::new("someone@example.org", "https://accounts.google.com"),
        Mode::Require,
    )
    .await;
    let err = checked.expect_err("refused").to_string();
    assert!(err.contains("registry.k8s.io/pause:3.10@sha256:"), "{err}");
    assert!(
        err.contains("not for the expected identity krel-trust@"),
        "{err}"
    );
}
