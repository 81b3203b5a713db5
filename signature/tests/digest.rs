//! Verification from a file's SHA-256 (how a build checks a release binary it hashed while
//! downloading): the same verdicts as over the bytes, on the test root's P-256 certificates and
//! on the public-good conformance bundle.

use cks_fixtures::shared::data;
use cks_fixtures::sigstore::{Signer, TestSigstore};
use cks_signature::{
    Policy, SignatureError, TrustedRoot, verify_blob, verify_blob_sha256, verify_bundle_sha256,
};
use sha2::{Digest, Sha256};

const IDENTITY: &str = "krel-staging@k8s-releng-prod.iam.gserviceaccount.com";
const ISSUER: &str = "https://accounts.google.com";

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[test]
fn a_digest_verifies_as_the_bytes_do_and_another_digest_is_refused() {
    let sigstore = TestSigstore::generate().expect("test trust root");
    let root = TrustedRoot::from_json(&sigstore.trusted_root_json()).expect("parses");
    let file = b"kubelet bytes".repeat(1000);
    let signed = sigstore
        .sign_blob(&file, &Signer::new(IDENTITY, ISSUER))
        .expect("signs");
    let policy = Policy::kubernetes_binaries();
    let by_digest = verify_blob_sha256(
        &sha256(&file),
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        Some(&signed.rekor_bundle),
        &root,
        &policy,
    )
    .expect("verifies from the digest");
    let by_bytes = verify_blob(
        &file,
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        Some(&signed.rekor_bundle),
        &root,
        &policy,
    )
    .expect("verifies from the bytes");
    assert_eq!(by_digest, by_bytes);

    let err = verify_blob_sha256(
        &sha256(b"other bytes"),
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        None,
        &root,
        &policy,
    )
    .expect_err("another digest is refused");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn the_public_good_conformance_bundle_verifies_from_its_digest() {
    let read = |name: &str| {
        let path = data(&format!("sigstore/conformance/{name}"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
    };
    let bundle = String::from_utf8(read("a.txt.sigstore")).expect("utf-8");
    let policy = Policy {
        identity: "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main".to_string(),
        issuer: "https://token.actions.githubusercontent.com".to_string(),
        allow_missing_log: false,
    };
    let root = TrustedRoot::public_good().expect("built in");
    let verified = verify_bundle_sha256(&sha256(&read("a.txt")), &bundle, &root, &policy)
        .expect("verifies from the digest");
    assert!(verified.log.is_some_and(|l| l.inclusion_verified));
    let err = verify_bundle_sha256(&sha256(b"not a.txt"), &bundle, &root, &policy)
        .expect_err("another digest is refused");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}
