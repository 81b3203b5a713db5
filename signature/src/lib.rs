//! Sigstore (cosign keyless) signature verification for what a CKS ISO bundles, as pure
//! functions over bytes the caller fetched: no network, no disk, no clock.
//!
//! - Files: [`verify_blob`] (or [`verify_blob_sha256`], from the file's digest) checks a file against the `.sig` and `.cert` Kubernetes publishes
//!   beside each release binary, as `cosign verify-blob --certificate-identity ...
//!   --certificate-oidc-issuer ...` does: the certificate chains to a Fulcio authority of the
//!   [`TrustedRoot`], its subject alternative name and OIDC issuer extension
//!   (1.3.6.1.4.1.57264.1.8, else .1.1) match the [`Policy`], and the signature is over the
//!   file's bytes. With a Rekor entry (a cosign Rekor bundle, or the entries of a Sigstore
//!   bundle given to [`verify_bundle`]) the signed entry timestamp and inclusion proof (and its
//!   checkpoint) are checked with the log key of the trusted root, the entry must be about this
//!   signature, certificate and digest, and the certificate must be valid at the integration
//!   time. Without one, nothing proves the signing time: the chain is checked as of the
//!   certificate's issue and [`Verified::log`] is `None`.
//! - Images: [`image`] finds the simple-signing layers of the `sha256-<hex>.sig` manifest or of
//!   an OCI referrer and verifies each payload's claim, signature, certificate and Rekor bundle.
//!
//! - Our own releases: [`BlobKey`] checks a detached blob signature over a file with a public
//!   key, as `cosign verify-blob --key` does (the signatures `cks-iso` writes with `--sign-key`).
//!
//! - Builds: [`judge`] applies `--signatures require|warn|off` ([`Mode`]) to each verdict.
//!
//! The public-good instance's `trusted_root.json` is built in ([`TrustedRoot::public_good`]).
//!
//! ## Why not the `sigstore` crate
//!
//! sigstore 0.15's verification pulls in its Fulcio and OAuth clients (`openidconnect`,
//! `webbrowser`), TUF (`tough`), `oci-client` and, by default, OpenSSL: several hundred crates
//! for checks that need X.509 parsing and four signature algorithms, and an OpenSSL build
//! dependency the project avoids. This crate uses the two crates that do the cryptography in
//! the tree already (both through rcgen): `x509-parser` (with its `verify` feature) parses
//! certificates and checks each certificate's signature with its issuer's key, and `ring`
//! verifies artifact signatures, signed entry timestamps and checkpoints (ECDSA P-256 and
//! P-384 over SHA-256, Ed25519, RSA PKCS#1). The RustCrypto `p256` and `p384` crates check
//! ECDSA over a SHA-256 computed elsewhere ([`verify_blob_sha256`], [`verify_bundle_sha256`]:
//! a release binary hashed as it downloaded is never read again), which ring cannot. What is
//! written here is only the Sigstore logic: the trusted-root and bundle formats, the policy,
//! RFC 6962 inclusion proofs and the order of the checks. No cryptographic primitive is
//! hand-written.
//!
//! ```
//! use cks_signature::{Policy, TrustedRoot, verify_blob};
//! let root = TrustedRoot::public_good().expect("the built-in root parses");
//! let refused = verify_blob(b"bytes", b"", b"", None, &root, &Policy::kubernetes_binaries());
//! assert!(refused.is_err());
//! ```

mod blob;
mod bundle;
mod certificate;
mod chain;
mod error;
pub mod image;
mod key;
mod mode;
mod policy;
mod rekor;
mod time;
mod trust_root;
mod verify;

pub use blob::BlobKey;
pub use bundle::Bundle;
pub use certificate::{Certificate, OID_ISSUER_V1, OID_ISSUER_V2};
pub use error::SignatureError;
pub use key::PublicKey;
pub use mode::{Judgement, Mode, Outcome, Refusal, UnknownMode, judge};
pub use policy::{GOOGLE_ISSUER, KUBERNETES_BINARIES_IDENTITY, KUBERNETES_IMAGES_IDENTITY, Policy};
pub use rekor::{InclusionProof, LogEntry, LogEvidence};
pub use trust_root::{
    CertificateAuthority, PUBLIC_GOOD_JSON, TransparencyLog, TrustedRoot, Validity,
};
pub use verify::{
    Verified, decode_signature, verify_blob, verify_blob_sha256, verify_bundle,
    verify_bundle_sha256,
};
