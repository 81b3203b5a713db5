//! Material signed at run time by the test trust root (`cks_fixtures::sigstore`): verified, and
//! each way it can be wrong refused with its reason.

use cks_fixtures::sigstore::{Signer, TestSigstore};
use cks_signature::image::{signature_layers, signature_tag, verify_image};
use cks_signature::{
    Judgement, Mode, Outcome, Policy, SignatureError, TrustedRoot, judge, verify_blob,
};

const IDENTITY: &str = "krel-staging@k8s-releng-prod.iam.gserviceaccount.com";
const ISSUER: &str = "https://accounts.google.com";
const KUBEADM: &[u8] = b"#!/bin/sh\necho kubeadm\n";

struct World {
    sigstore: TestSigstore,
    root: TrustedRoot,
}

fn world() -> World {
    let sigstore = TestSigstore::generate().expect("test trust root");
    let root = TrustedRoot::from_json(&sigstore.trusted_root_json())
        .expect("its trusted_root.json parses");
    World { sigstore, root }
}

fn verify(
    world: &World,
    file: &[u8],
    signer: &Signer,
    policy: &Policy,
) -> Result<cks_signature::Verified, SignatureError> {
    let signed = world.sigstore.sign_blob(KUBEADM, signer).expect("signs");
    verify_blob(
        file,
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        Some(&signed.rekor_bundle),
        &world.root,
        policy,
    )
}

#[test]
fn a_file_signed_by_the_expected_identity_verifies_with_its_log_entry() {
    let world = world();
    let verified = verify(
        &world,
        KUBEADM,
        &Signer::new(IDENTITY, ISSUER),
        &Policy::kubernetes_binaries(),
    )
    .expect("verifies");
    assert_eq!(verified.identity, IDENTITY);
    assert_eq!(verified.issuer, ISSUER);
    let log = verified.log.expect("the Rekor bundle was checked");
    assert!(log.set_verified);
    assert_eq!(log.integrated_time, 1_700_000_060);
    assert!(
        verified.summary().contains("identity krel-staging@"),
        "{}",
        verified.summary()
    );
}

#[test]
fn without_a_log_entry_it_is_refused_unless_the_policy_allows_it() {
    let world = world();
    let signed = world
        .sigstore
        .sign_blob(KUBEADM, &Signer::new(IDENTITY, ISSUER))
        .expect("signs");
    // The PEM form is accepted as well as cosign's base64-of-PEM `.cert`.
    let err = verify_blob(
        KUBEADM,
        signed.sig_file.as_bytes(),
        signed.cert_pem.as_bytes(),
        None,
        &world.root,
        &Policy::kubernetes_binaries(),
    )
    .expect_err("no log entry");
    assert!(
        err.to_string().contains("allow-missing-log = true"),
        "{err}"
    );
    let refusal = judge(
        Mode::Require,
        "kubeadm",
        &cks_signature::Outcome::Refused(err),
    )
    .expect_err("require refuses it");
    assert!(
        refusal.to_string().contains("allow-missing-log"),
        "{refusal}"
    );
    let lenient = Policy {
        allow_missing_log: true,
        ..Policy::kubernetes_binaries()
    };
    let verified = verify_blob(
        KUBEADM,
        signed.sig_file.as_bytes(),
        signed.cert_pem.as_bytes(),
        None,
        &world.root,
        &lenient,
    )
    .expect("verifies");
    assert!(verified.log.is_none());
    assert!(verified.summary().contains("signing time not proved"));
}

#[test]
fn another_identity_is_refused() {
    let world = world();
    let signer = Signer::new("someone@example.com", ISSUER);
    let err =
        verify(&world, KUBEADM, &signer, &Policy::kubernetes_binaries()).expect_err("refused");
    assert!(
        matches!(&err, SignatureError::Identity { found, .. } if found == "someone@example.com"),
        "{err}"
    );
    assert!(err.to_string().contains("krel-staging@"), "{err}");
}

#[test]
fn another_issuer_is_refused() {
    let world = world();
    let signer = Signer::new(IDENTITY, "https://token.actions.githubusercontent.com");
    let err =
        verify(&world, KUBEADM, &signer, &Policy::kubernetes_binaries()).expect_err("refused");
    assert!(
        matches!(&err, SignatureError::Issuer { found, .. } if found == "https://token.actions.githubusercontent.com"),
        "{err}"
    );
}

#[test]
fn a_certificate_expired_at_the_signing_time_is_refused() {
    let world = world();
    let mut signer = Signer::new(IDENTITY, ISSUER);
    signer.signed_at = signer.not_after + 1;
    let err =
        verify(&world, KUBEADM, &signer, &Policy::kubernetes_binaries()).expect_err("refused");
    assert!(
        matches!(
            err,
            SignatureError::NotValidAtSigningTime {
                signed_at: 1_700_000_601,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_signature_over_other_bytes_is_refused() {
    let world = world();
    let err = verify(
        &world,
        b"a different kubeadm",
        &Signer::new(IDENTITY, ISSUER),
        &Policy::kubernetes_binaries(),
    )
    .expect_err("refused");
    assert!(matches!(err, SignatureError::BadSignature { .. }), "{err}");
}

#[test]
fn a_certificate_from_another_root_is_refused() {
    let world = world();
    let other = TestSigstore::generate().expect("another root");
    let signed = other
        .sign_blob(KUBEADM, &Signer::new(IDENTITY, ISSUER))
        .expect("signs");
    let err = verify_blob(
        KUBEADM,
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        None,
        &world.root,
        &Policy::kubernetes_binaries(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, SignatureError::UntrustedChain { .. }),
        "{err}"
    );
    // Its log entry is signed by a log the root does not know either.
    let err = verify_blob(
        KUBEADM,
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        Some(&signed.rekor_bundle),
        &world.root,
        &Policy::kubernetes_binaries(),
    )
    .expect_err("refused");
    assert!(
        matches!(&err, SignatureError::TransparencyLog { detail } if detail.contains("not a log of the trusted root")),
        "{err}"
    );
}

#[test]
fn a_log_entry_for_another_signature_is_refused() {
    let world = world();
    let signer = Signer::new(IDENTITY, ISSUER);
    let signed = world.sigstore.sign_blob(KUBEADM, &signer).expect("signs");
    let other = world.sigstore.sign_blob(b"other", &signer).expect("signs");
    let err = verify_blob(
        KUBEADM,
        signed.sig_file.as_bytes(),
        signed.cert_file.as_bytes(),
        Some(&other.rekor_bundle),
        &world.root,
        &Policy::kubernetes_binaries(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, SignatureError::TransparencyLog { .. }),
        "{err}"
    );
}

#[test]
fn a_missing_sig_fails_under_require_and_warns_otherwise() {
    let outcome = Outcome::Missing("no kubeadm.sig on the release server (404)".into());
    let refusal = judge(Mode::Require, "binaries/v1.33.13/kubeadm", &outcome).expect_err("require");
    assert_eq!(refusal.subject, "binaries/v1.33.13/kubeadm");
    assert!(
        refusal.to_string().contains("not signed (no kubeadm.sig"),
        "{refusal}"
    );
    match judge(Mode::Warn, "binaries/v1.33.13/kubeadm", &outcome) {
        Ok(Judgement::Warning(line)) => assert!(
            line.starts_with("binaries/v1.33.13/kubeadm: it is not signed"),
            "{line}"
        ),
        other => panic!("expected a warning, got {other:?}"),
    }
    let refused = Outcome::Refused(SignatureError::NotCodeSigning);
    let refusal = judge(Mode::Require, "kubeadm", &refused).expect_err("require");
    assert!(refusal.reason.contains("code-signing"), "{refusal}");
    assert_eq!("warn".parse::<Mode>(), Ok(Mode::Warn));
    assert!("sometimes".parse::<Mode>().is_err());
}

#[test]
fn an_image_signature_at_the_sig_tag_verifies_for_its_digest_only() {
    let world = world();
    let digest = format!("sha256:{}", "ab".repeat(32));
    assert_eq!(
        signature_tag(&digest).expect("tag"),
        format!("sha256-{}.sig", "ab".repeat(32))
    );
    let signer = Signer::new("krel-trust@k8s-releng-prod.iam.gserviceaccount.com", ISSUER);
    let signed = world
        .sigstore
        .sign_image("registry.k8s.io/pause", &digest, &signer)
        .expect("signs");
    let manifest = signed.manifest(&format!("sha256:{}", "cd".repeat(32)));
    let layers = signature_layers(manifest.as_bytes()).expect("layers");
    assert_eq!(layers.len(), 1);
    let fetched = vec![(layers[0].clone(), signed.payload.clone())];
    let verified = verify_image(&digest, &fetched, &world.root, &Policy::kubernetes_images())
        .expect("verifies");
    assert!(verified.log.is_some());

    let other_digest = format!("sha256:{}", "ef".repeat(32));
    let errors = verify_image(
        &other_digest,
        &fetched,
        &world.root,
        &Policy::kubernetes_images(),
    )
    .expect_err("refused");
    assert!(
        matches!(&errors[0], SignatureError::Payload { .. }),
        "{errors:?}"
    );
    let errors = verify_image(
        &digest,
        &fetched,
        &world.root,
        &Policy::kubernetes_binaries(),
    )
    .expect_err("refused");
    assert!(
        matches!(&errors[0], SignatureError::Identity { .. }),
        "{errors:?}"
    );
    let errors =
        verify_image(&digest, &[], &world.root, &Policy::kubernetes_images()).expect_err("refused");
    assert!(
        matches!(&errors[0], SignatureError::Missing { .. }),
        "{errors:?}"
    );
    let tampered = vec![(layers[0].clone(), b"{}".to_vec())];
    let errors = verify_image(
        &digest,
        &tampered,
        &world.root,
        &Policy::kubernetes_images(),
    )
    .expect_err("refused");
    assert!(
        matches!(&errors[0], SignatureError::Malformed { .. }),
        "{errors:?}"
    );
}

#[test]
fn an_image_signature_among_the_oci_referrers_verifies() {
    let world = world();
    let digest = format!("sha256:{}", "12".repeat(32));
    let signer = Signer::new("krel-trust@k8s-releng-prod.iam.gserviceaccount.com", ISSUER);
    let signed = world
        .sigstore
        .sign_image("registry.k8s.io/pause", &digest, &signer)
        .expect("signs");
    let manifest = signed.manifest(&format!("sha256:{}", "cd".repeat(32)));
    let index = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": format!("sha256:{}", "99".repeat(32)), "size": 10, "artifactType": "application/spdx+json"},
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": format!("sha256:{}", "98".repeat(32)), "size": manifest.len(), "artifactType": cks_signature::image::SIGNATURE_ARTIFACT}
        ]
    });
    let referrers =
        cks_signature::image::signature_referrers(index.to_string().as_bytes()).expect("index");
    assert_eq!(referrers.len(), 1, "only the cosign signature referrer");
    assert_eq!(referrers[0].digest, format!("sha256:{}", "98".repeat(32)));
    let layers = signature_layers(manifest.as_bytes()).expect("layers");
    let fetched = vec![(layers[0].clone(), signed.payload.clone())];
    verify_image(&digest, &fetched, &world.root, &Policy::kubernetes_images()).expect("verifies");
}
