//! Real Sigstore material made by the public-good instance (the sigstore-conformance assets),
//! verified offline with the built-in trusted root: each with the verdict upstream expects.

use cks_fixtures::shared::data;
use cks_signature::{Policy, SignatureError, TrustedRoot, verify_blob, verify_bundle};

const IDENTITY: &str = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
const ISSUER: &str = "https://token.actions.githubusercontent.com";

fn asset(name: &str) -> Vec<u8> {
    let path = data(&format!("sigstore/conformance/{name}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn text(name: &str) -> String {
    String::from_utf8(asset(name)).expect("utf-8")
}

fn policy() -> Policy {
    Policy {
        identity: IDENTITY.to_string(),
        issuer: ISSUER.to_string(),
        allow_missing_log: false,
    }
}

fn root() -> TrustedRoot {
    TrustedRoot::public_good().expect("the built-in trusted root parses")
}

#[test]
fn the_happy_path_bundle_verifies_with_its_set_and_inclusion_proof() {
    let verified = verify_bundle(&asset("a.txt"), &text("a.txt.sigstore"), &root(), &policy())
        .expect("upstream expects this bundle to verify");
    assert_eq!(verified.identity, IDENTITY);
    assert_eq!(verified.issuer, ISSUER);
    let log = verified.log.expect("a log entry");
    assert_eq!(log.log_index, 23_891_210);
    assert_eq!(log.integrated_time, 1_686_853_273);
    assert!(log.set_verified && log.inclusion_verified, "{log:?}");
}

#[test]
fn a_bundle_with_a_changed_signature_is_refused() {
    let err = verify_bundle(
        &asset("a.txt"),
        &text("a.txt.invalid_signature.sigstore"),
        &root(),
        &policy(),
    )
    .expect_err("upstream expects a refusal");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn a_bundle_with_another_signed_entry_timestamp_is_refused() {
    let err = verify_bundle(
        &asset("a.txt"),
        &text("a.txt.invalid_set.sigstore"),
        &root(),
        &policy(),
    )
    .expect_err("upstream expects a refusal");
    assert!(
        matches!(&err, SignatureError::TransparencyLog { detail } if detail.contains("signed entry timestamp")),
        "{err}"
    );
}

#[test]
fn a_bundle_with_a_changed_digest_is_refused() {
    let err = verify_bundle(
        &asset("a.txt"),
        &text("a.txt.invalid_digest.sigstore"),
        &root(),
        &policy(),
    )
    .expect_err("upstream expects a refusal");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn the_bundle_is_refused_for_other_bytes() {
    let err = verify_bundle(b"other bytes", &text("a.txt.sigstore"), &root(), &policy())
        .expect_err("other bytes");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn the_bundle_is_refused_under_another_identity() {
    let err = verify_bundle(
        &asset("a.txt"),
        &text("a.txt.sigstore"),
        &root(),
        &Policy::kubernetes_binaries(),
    )
    .expect_err("not Kubernetes' identity");
    assert!(matches!(err, SignatureError::Identity { .. }), "{err}");
}

#[test]
fn the_detached_sig_and_cert_verify_over_the_file() {
    let refused = verify_blob(
        &asset("a.txt"),
        &asset("a.txt.good.sig"),
        &asset("a.txt.good.crt"),
        None,
        &root(),
        &policy(),
    )
    .expect_err("no log entry, and the policy does not allow that");
    assert!(matches!(refused, SignatureError::NoLogEntry), "{refused}");
    let lenient = Policy {
        allow_missing_log: true,
        ..policy()
    };
    let verified = verify_blob(
        &asset("a.txt"),
        &asset("a.txt.good.sig"),
        &asset("a.txt.good.crt"),
        None,
        &root(),
        &lenient,
    )
    .expect("upstream's good signature and certificate verify");
    assert_eq!(verified.identity, IDENTITY);
    assert!(verified.log.is_none(), "no log entry was given");
    let err = verify_blob(
        b"DO NOT MODIFY ME!\n",
        &asset("a.txt.good.sig"),
        &asset("a.txt.good.crt"),
        None,
        &root(),
        &policy(),
    )
    .expect_err("other bytes");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn the_built_in_root_is_the_public_good_instance() {
    let root = root();
    assert_eq!(root.tlogs.len(), 1);
    assert_eq!(root.tlogs[0].base_url, "https://rekor.sigstore.dev");
    assert_eq!(root.certificate_authorities.len(), 2);
    assert!(
        root.certificate_authorities
            .iter()
            .all(|ca| ca.uri == "https://fulcio.sigstore.dev")
    );
}

#[test]
fn a_changed_inclusion_proof_or_integration_time_is_refused() {
    let good = text("a.txt.sigstore");
    let proof = good.replace(
        "4VO8JrmwD6h5oooQYemntGLy/pd7p68lw9AoQH25exo=",
        "5VO8JrmwD6h5oooQYemntGLy/pd7p68lw9AoQH25exo=",
    );
    assert_ne!(proof, good);
    let err = verify_bundle(&asset("a.txt"), &proof, &root(), &policy()).expect_err("bad proof");
    assert!(
        matches!(&err, SignatureError::TransparencyLog { detail } if detail.contains("inclusion proof")),
        "{err}"
    );
    let time = good.replace(
        "\"integratedTime\": \"1686853273\"",
        "\"integratedTime\": \"1686853274\"",
    );
    assert_ne!(time, good);
    let err = verify_bundle(&asset("a.txt"), &time, &root(), &policy()).expect_err("bad time");
    assert!(
        matches!(&err, SignatureError::TransparencyLog { detail } if detail.contains("signed entry timestamp")),
        "{err}"
    );
}
