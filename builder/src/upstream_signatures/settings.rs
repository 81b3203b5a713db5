//! Who must have signed what: `--signatures`, `--trusted-root` and the `[signatures]` table of
//! the config file, merged (flags beat the config) and resolved to one policy per source.
//!
//! ```toml
//! [signatures]
//! mode = "require"                        # require | warn | off (default warn)
//! trusted-root = "/etc/cks/trusted_root.json"
//! [signatures.kubernetes]                 # kubeadm, kubelet, kubectl from the release server
//! identity = "krel-staging@k8s-releng-prod.iam.gserviceaccount.com"
//! issuer = "https://accounts.google.com"
//! allow-missing-log = false               # true accepts a signature without a log entry
//! [signatures.registries."registry.k8s.io"]   # images, by the registry of their reference
//! identity = "krel-trust@k8s-releng-prod.iam.gserviceaccount.com"
//! issuer = "https://accounts.google.com"
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use cks_signature::{Mode, Policy};
use serde::{Deserialize, Serialize};

/// The registry whose images have a policy by default.
pub const KUBERNETES_REGISTRY: &str = "registry.k8s.io";

/// An identity and issuer, either of which may be left to the default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct PolicyInput {
    /// The certificate identity (an e-mail address or URI), matched exactly.
    pub identity: Option<String>,
    /// The OIDC issuer, matched exactly.
    pub issuer: Option<String>,
    /// Accept a signature that no transparency-log entry vouches for (default false: such a
    /// signature is refused under `require`, a warning under `warn`).
    pub allow_missing_log: Option<bool>,
}

/// The `[signatures]` table of the config file, and what `--signatures` / `--trusted-root` set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct SignatureInputs {
    /// `require`, `warn` or `off`.
    pub mode: Option<Mode>,
    /// A `trusted_root.json` replacing the built-in public-good one.
    pub trusted_root: Option<PathBuf>,
    /// The policy of the Kubernetes release binaries.
    pub kubernetes: Option<PolicyInput>,
    /// The policy of the images of each registry (the registry of the image reference, not of
    /// a mirror).
    pub registries: BTreeMap<String, PolicyInput>,
}

/// Why the signature settings cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "[signatures.registries.{registry:?}] in the config needs both `identity` and `issuer` (only {registry} images signed by that identity are then accepted)"
)]
pub struct IncompletePolicy {
    /// The registry.
    pub registry: String,
}

impl SignatureInputs {
    /// `self` with every unset value taken from `lower`; registries are merged, `self`'s win.
    pub fn over(self, lower: SignatureInputs) -> SignatureInputs {
        let mut registries = lower.registries;
        registries.extend(self.registries);
        SignatureInputs {
            mode: self.mode.or(lower.mode),
            trusted_root: self.trusted_root.or(lower.trusted_root),
            kubernetes: self.kubernetes.or(lower.kubernetes),
            registries,
        }
    }

    /// The settings, with the defaults for what is unset.
    pub fn resolve(self) -> Result<SignatureSettings, IncompletePolicy> {
        let fill = |input: Option<PolicyInput>, default: Policy| {
            let input = input.unwrap_or_default();
            Policy {
                identity: input.identity.unwrap_or(default.identity),
                issuer: input.issuer.unwrap_or(default.issuer),
                allow_missing_log: input.allow_missing_log.unwrap_or(false),
            }
        };
        let mut settings = SignatureSettings {
            mode: self.mode.unwrap_or_default(),
            trusted_root: self.trusted_root,
            kubernetes: fill(self.kubernetes, Policy::kubernetes_binaries()),
            ..SignatureSettings::default()
        };
        for (registry, input) in self.registries {
            let policy = if registry == KUBERNETES_REGISTRY {
                fill(Some(input), Policy::kubernetes_images())
            } else {
                match (input.identity, input.issuer) {
                    (Some(identity), Some(issuer)) => Policy {
                        identity,
                        issuer,
                        allow_missing_log: input.allow_missing_log.unwrap_or(false),
                    },
                    _ => return Err(IncompletePolicy { registry }),
                }
            };
            settings.registries.insert(registry, policy);
        }
        Ok(settings)
    }
}

/// How a build checks signatures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SignatureSettings {
    /// `require`, `warn` or `off`.
    pub mode: Mode,
    /// The trusted root file, when not the built-in public-good one.
    pub trusted_root: Option<PathBuf>,
    /// Who signs the Kubernetes release binaries.
    pub kubernetes: Policy,
    /// Who signs the images of each registry; images of other registries are not checked.
    pub registries: BTreeMap<String, Policy>,
}

impl Default for SignatureSettings {
    fn default() -> Self {
        SignatureSettings {
            mode: Mode::default(),
            trusted_root: None,
            kubernetes: Policy::kubernetes_binaries(),
            registries: BTreeMap::from([(
                KUBERNETES_REGISTRY.to_string(),
                Policy::kubernetes_images(),
            )]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_kubernetes_identities_and_a_table_overrides_them() {
        let defaults = SignatureInputs::default().resolve().expect("valid");
        assert_eq!(defaults.mode, Mode::Warn);
        assert_eq!(defaults.kubernetes, Policy::kubernetes_binaries());
        assert_eq!(
            defaults.registries[KUBERNETES_REGISTRY],
            Policy::kubernetes_images()
        );
        let config: SignatureInputs = toml::from_str(
            "mode = \"require\"\n[kubernetes]\nidentity = \"me@example.org\"\n\
             [registries.\"ghcr.io\"]\nidentity = \"https://github.com/o/r\"\n\
             issuer = \"https://token.actions.githubusercontent.com\"\n",
        )
        .expect("parses");
        let flags = SignatureInputs {
            mode: Some(Mode::Off),
            ..SignatureInputs::default()
        };
        let settings = flags.over(config).resolve().expect("valid");
        assert_eq!(settings.mode, Mode::Off);
        assert_eq!(settings.kubernetes.identity, "me@example.org");
        assert_eq!(settings.kubernetes.issuer, "https://accounts.google.com");
        assert_eq!(settings.registries.len(), 2);
        assert_eq!(
            settings.registries["ghcr.io"].identity,
            "https://github.com/o/r"
        );
    }

    #[test]
    fn another_registry_needs_identity_and_issuer() {
        let config: SignatureInputs =
            toml::from_str("[registries.\"quay.io\"]\nidentity = \"x@example.org\"\n")
                .expect("parses");
        let err = config.resolve().expect_err("incomplete");
        assert!(err.to_string().contains("\"quay.io\""), "{err}");
        assert!(
            toml::from_str::<SignatureInputs>("mode = \"sometimes\"").is_err(),
            "an unknown mode is refused"
        );
    }
}
