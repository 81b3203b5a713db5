//! The inputs of a build, gathered from flags, the environment and a TOML config file (flags
//! beat environment beats config), and checked for completeness before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use cks_pinning::release::ReleaseVersion;
use cks_pinning::sources::urls::AUTOSCALER_REPO;

mod checked;
mod dashboards;
mod error;
mod resolved;
mod url_logins;
mod versions;
use checked::Checked;
pub use error::OptionsError;
pub use resolved::Options;
pub use versions::{EtcdAsked, Versions};

use crate::upstream_signatures::SignatureInputs;

/// Every input a build may take; each is optional here so that flags, environment and config
/// can each supply some. The TOML config file has exactly these keys, each the name of its
/// flag without `--` (`headlamp`, `mirror`, `registry-mirror`, `limit`); the older names
/// ([`RENAMED_KEYS`]) are still read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Inputs {
    /// Folder the ISO is written to.
    pub output_path: Option<PathBuf>,
    /// Kubernetes version, `1.33.13` or `v1.33.13`, or `1.33` / `stable` (resolved before the
    /// build; the lock records the release).
    pub kubernetes_version: Option<String>,
    /// CNI plugins version, e.g. `1.6.2`.
    pub cni_version: Option<String>,
    /// crictl version, e.g. `1.33.0`.
    pub crictl_version: Option<String>,
    /// URL or local path of the network (CNI) manifest.
    pub network_yaml: Option<String>,
    /// URL or local path of the dashboard manifest.
    pub dashboard_yaml: Option<String>,
    /// Headlamp release whose manifest and image are bundled as `headlamp.yaml`, e.g. `0.40.1`.
    #[serde(rename = "headlamp", alias = "headlamp-version")]
    pub headlamp_version: Option<String>,
    /// The CloudStack lines the ISO must fit: `4.20`, `4.22`, `4.23` or `any` (the default).
    pub cloudstack: Option<String>,
    /// The ISO's base name: the ISO is `<build-name>-x86_64.iso` or `-aarch64.iso`.
    pub build_name: Option<String>,
    /// Target architecture: `x86_64`/`amd64` or `aarch64`/`arm64` (default x86_64).
    pub arch: Option<String>,
    /// etcd version to bundle for external etcd nodes (none when unset).
    pub etcd_version: Option<String>,
    /// CloudStack CSI driver release (default v3.0.0).
    pub csi_version: Option<String>,
    /// Exact cluster-autoscaler release instead of the newest for the Kubernetes minor.
    pub autoscaler_version: Option<String>,
    /// Cloud controller manager tag (default v1.2.0).
    pub ccm_version: Option<String>,
    /// Git repository whose tags name the autoscaler releases (default kubernetes/autoscaler).
    pub autoscaler_repo: Option<String>,
    /// Base-URL rewrites `UPSTREAM=MIRROR` for file downloads (serialised without passwords).
    #[serde(
        rename = "mirror",
        alias = "mirrors",
        serialize_with = "crate::fetch::mirror::serialize_specs"
    )]
    pub mirrors: Vec<String>,
    /// Registry rewrites `REGISTRY=URL` for image pulls.
    #[serde(rename = "registry-mirror", alias = "registry-mirrors")]
    pub registry_mirrors: Vec<String>,
    /// Registries (or mirrors) reached over plain HTTP.
    #[serde(rename = "insecure-registry", alias = "insecure-registries")]
    pub insecure_registries: Vec<String>,
    /// A PEM file of extra CA certificates to trust.
    pub ca_file: Option<PathBuf>,
    /// Content cache folder shared between builds.
    pub cache_dir: Option<PathBuf>,
    /// OCI registry repository shared by builds as a content cache, `http(s)://HOST[:PORT]/REPO`.
    pub cache_registry: Option<String>,
    /// Transfers at a time (default 4).
    pub concurrency: Option<usize>,
    /// The ISO's volume identifier (default `CDROM`).
    pub volume_id: Option<String>,
    /// Fail instead of skipping an image built for another platform.
    pub strict_platforms: Option<bool>,
    /// Timestamps of the ISO, seconds since 1970 (else the build's start time).
    pub source_date_epoch: Option<i64>,
    /// Signature checks: the `[signatures]` table (mode, trusted root, policies).
    pub signatures: SignatureInputs,
    /// The fewest bytes every window of a transfer must bring, `BYTES/WINDOW` (`--min-rate`,
    /// default `60KiB/60s`; `0` turns the rule off).
    pub min_rate: Option<String>,
    /// Size limits: the `[limit]` table, `KIND = "SIZE"` (or a number), as `--limit KIND=SIZE`.
    #[serde(rename = "limit", alias = "limits")]
    pub limits: BTreeMap<String, LimitInput>,
}

/// Config keys renamed to their flag's name: (old, new). The old ones are read with a warning.
pub const RENAMED_KEYS: [(&str, &str); 5] = [
    ("headlamp-version", "headlamp"),
    ("mirrors", "mirror"),
    ("registry-mirrors", "registry-mirror"),
    ("insecure-registries", "insecure-registry"),
    ("limits", "limit"),
];

/// One limit as the config or a flag gives it: a number, or a size with its unit (`"16MiB"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum LimitInput {
    /// A bare number (bytes, or layers).
    Number(u64),
    /// A size such as `16MiB`.
    Text(String),
}

impl Inputs {
    /// Reads a TOML config file; unknown keys are refused with their name.
    pub fn from_config_file(path: &Path) -> Result<Inputs, OptionsError> {
        Inputs::read_config(path).map(|(inputs, _)| inputs)
    }

    /// Reads a TOML config file as [`Inputs::from_config_file`] does, and returns a warning for
    /// each older key name it holds (`headlamp-version`: now `headlamp`).
    pub fn read_config(path: &Path) -> Result<(Inputs, Vec<String>), OptionsError> {
        let error = |message: String| OptionsError::Config {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| error(e.to_string()))?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| error(e.to_string()))?;
        let mut warnings = Vec::new();
        for (old, new) in RENAMED_KEYS {
            if table.contains_key(old) {
                if table.contains_key(new) {
                    return Err(error(format!(
                        "`{old}` and `{new}` are the same key; keep `{new}`"
                    )));
                }
                warnings.push(format!(
                    "config file {}: `{old}` is now `{new}` (the flag's name); the old key will go",
                    path.display()
                ));
            }
        }
        let inputs = toml::from_str(&text).map_err(|e| error(e.to_string()))?;
        Ok((inputs, warnings))
    }

    /// The inputs the environment gives: `AUTOSCALER_VERSION`, `CCM_VERSION` and
    /// `SOURCE_DATE_EPOCH`, read through `lookup` (pass `std::env::var`).
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Inputs, OptionsError> {
        let epoch = match lookup("SOURCE_DATE_EPOCH").filter(|v| !v.is_empty()) {
            Some(text) => Some(
                text.trim()
                    .parse::<i64>()
                    .map_err(|_| OptionsError::Invalid {
                        input: "SOURCE_DATE_EPOCH".into(),
                        value: text.clone(),
                        expected: "expected whole seconds since 1970-01-01 UTC, e.g. 1700000000"
                            .into(),
                    })?,
            ),
            None => None,
        };
        Ok(Inputs {
            autoscaler_version: lookup("AUTOSCALER_VERSION").filter(|v| !v.is_empty()),
            ccm_version: lookup("CCM_VERSION").filter(|v| !v.is_empty()),
            source_date_epoch: epoch,
            ..Inputs::default()
        })
    }

    /// `self` with every unset input taken from `lower` (lists: `self`'s when non-empty).
    pub fn over(self, lower: Inputs) -> Inputs {
        fn list(a: Vec<String>, b: Vec<String>) -> Vec<String> {
            if a.is_empty() { b } else { a }
        }
        Inputs {
            output_path: self.output_path.or(lower.output_path),
            kubernetes_version: self.kubernetes_version.or(lower.kubernetes_version),
            cni_version: self.cni_version.or(lower.cni_version),
            crictl_version: self.crictl_version.or(lower.crictl_version),
            network_yaml: self.network_yaml.or(lower.network_yaml),
            dashboard_yaml: self.dashboard_yaml.or(lower.dashboard_yaml),
            headlamp_version: self.headlamp_version.or(lower.headlamp_version),
            cloudstack: self.cloudstack.or(lower.cloudstack),
            build_name: self.build_name.or(lower.build_name),
            arch: self.arch.or(lower.arch),
            etcd_version: self.etcd_version.or(lower.etcd_version),
            csi_version: self.csi_version.or(lower.csi_version),
            autoscaler_version: self.autoscaler_version.or(lower.autoscaler_version),
            ccm_version: self.ccm_version.or(lower.ccm_version),
            autoscaler_repo: self.autoscaler_repo.or(lower.autoscaler_repo),
            mirrors: list(self.mirrors, lower.mirrors),
            registry_mirrors: list(self.registry_mirrors, lower.registry_mirrors),
            insecure_registries: list(self.insecure_registries, lower.insecure_registries),
            ca_file: self.ca_file.or(lower.ca_file),
            cache_dir: self.cache_dir.or(lower.cache_dir),
            cache_registry: self.cache_registry.or(lower.cache_registry),
            concurrency: self.concurrency.or(lower.concurrency),
            volume_id: self.volume_id.or(lower.volume_id),
            strict_platforms: self.strict_platforms.or(lower.strict_platforms),
            source_date_epoch: self.source_date_epoch.or(lower.source_date_epoch),
            signatures: self.signatures.over(lower.signatures),
            min_rate: self.min_rate.or(lower.min_rate),
            limits: {
                let mut limits = lower.limits;
                limits.extend(self.limits);
                limits
            },
        }
    }

    /// The first required input, in the script's argument order, given nowhere: OUTPUT_PATH,
    /// KUBERNETES_VERSION, NETWORK_YAML, BUILD_NAME (CNI_VERSION and CRICTL_VERSION are chosen
    /// when left out). Checked before anything is fetched, so a bare `cks-iso build` names
    /// OUTPUT_PATH.
    pub fn first_missing(&self) -> Result<(), OptionsError> {
        let required = [
            (
                self.output_path.is_some(),
                "OUTPUT_PATH (--output-path)",
                "./out",
            ),
            (
                self.kubernetes_version.is_some(),
                "KUBERNETES_VERSION (--kubernetes-version)",
                "1.33.13",
            ),
            (
                self.network_yaml.is_some(),
                "NETWORK_YAML (--network-yaml)",
                "https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml",
            ),
            (
                self.build_name.is_some(),
                "BUILD_NAME (--build-name)",
                "cks-1.33.13",
            ),
        ];
        match required.iter().find(|(given, _, _)| !given) {
            Some((_, input, example)) => Err(OptionsError::Missing {
                input: input.to_string(),
                example: example.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Checks that every required input is present and well formed, the versions read from
    /// their text (exact releases: a minor, `stable` or a version left out is the front
    /// stage's to pin, [`crate::pipeline::front`]).
    pub fn resolve(self) -> Result<Options, OptionsError> {
        self.first_missing()?;
        let checked = self.checked()?;
        let versions = self.exact_versions()?;
        Ok(self.assemble(checked, versions))
    }

    /// The options of these inputs with `versions`, pinned and typed by the caller (the text of
    /// the version inputs is not read again).
    pub fn resolve_with(self, versions: Versions) -> Result<Options, OptionsError> {
        self.first_missing()?;
        let checked = self.checked()?;
        Ok(self.assemble(checked, versions))
    }

    fn assemble(self, checked: Checked, versions: Versions) -> Options {
        Options {
            output_path: checked.output_path,
            kubernetes_version: versions.kubernetes,
            cni_version: versions.cni,
            crictl_version: versions.crictl,
            network_yaml: checked.network_yaml,
            dashboard_yaml: checked.dashboards.dashboard_yaml,
            headlamp: checked.dashboards.headlamp,
            cloudstack: checked.dashboards.cloudstack,
            build_name: checked.build_name,
            arch: checked.arch,
            etcd_version: versions.etcd,
            etcd_from_kubeadm: versions.etcd_from_kubeadm,
            csi_version: checked.csi_version,
            autoscaler_version: self.autoscaler_version,
            ccm_version: self.ccm_version,
            autoscaler_repo: self
                .autoscaler_repo
                .unwrap_or_else(|| AUTOSCALER_REPO.to_string()),
            mirrors: checked.mirrors,
            registry_mirrors: self.registry_mirrors,
            insecure_registries: self.insecure_registries,
            ca_file: self.ca_file,
            cache_dir: self.cache_dir,
            cache_registry: self.cache_registry,
            concurrency: checked.concurrency,
            volume_id: self.volume_id.unwrap_or_else(|| "CDROM".to_string()),
            strict_platforms: self.strict_platforms.unwrap_or(false),
            source_date_epoch: self.source_date_epoch,
            signatures: checked.signatures,
            limits: checked.limits,
            min_rate: checked.min_rate,
        }
    }
}

/// A release version such as `1.6.2` or `v1.6.2`, named as `input` when it is not one.
pub(super) fn release_version(value: String, input: &str) -> Result<ReleaseVersion, OptionsError> {
    ReleaseVersion::parse(&value).map_err(|_| OptionsError::Invalid {
        input: input.to_string(),
        value,
        expected: "expected a release version such as 1.6.2 or v1.6.2".into(),
    })
}

#[cfg(test)]
mod tests;
