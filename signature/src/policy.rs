//! Who must have signed: the certificate identity (a subject alternative name) and the OIDC
//! issuer, as `cosign verify-blob --certificate-identity --certificate-oidc-issuer` take them.

use serde::{Deserialize, Serialize};

/// The identity Kubernetes release binaries are signed with.
pub const KUBERNETES_BINARIES_IDENTITY: &str =
    "krel-staging@k8s-releng-prod.iam.gserviceaccount.com";
/// The identity registry.k8s.io images are signed with.
pub const KUBERNETES_IMAGES_IDENTITY: &str = "krel-trust@k8s-releng-prod.iam.gserviceaccount.com";
/// The OIDC issuer of both.
pub const GOOGLE_ISSUER: &str = "https://accounts.google.com";

/// An exact identity and issuer a certificate must carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// The subject alternative name (e-mail or URI), matched exactly.
    pub identity: String,
    /// The OIDC issuer, matched exactly.
    pub issuer: String,
    /// Accept a signature no transparency-log entry vouches for (cosign's
    /// `--insecure-ignore-tlog`): without one nothing proves the signature was made while the
    /// short-lived certificate was valid. Off unless the policy says `allow-missing-log = true`.
    #[serde(
        default,
        rename = "allow-missing-log",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub allow_missing_log: bool,
}

impl Policy {
    /// The policy of Kubernetes release binaries (dl.k8s.io).
    pub fn kubernetes_binaries() -> Policy {
        Policy {
            identity: KUBERNETES_BINARIES_IDENTITY.to_string(),
            issuer: GOOGLE_ISSUER.to_string(),
            allow_missing_log: false,
        }
    }

    /// The policy of registry.k8s.io images.
    pub fn kubernetes_images() -> Policy {
        Policy {
            identity: KUBERNETES_IMAGES_IDENTITY.to_string(),
            issuer: GOOGLE_ISSUER.to_string(),
            allow_missing_log: false,
        }
    }
}
