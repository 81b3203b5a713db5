//! Every input of a build but its versions, checked and typed: what the front stage needs
//! before it asks anything of a server (the downloader's settings among it), and what the
//! options are assembled from once the versions are pinned.

use cks_pinning::arch::Arch;
use cks_pinning::limits::Limits;
use cks_pinning::release::ReleaseVersion;

use super::dashboards::Dashboards;
use super::url_logins::{MIRROR_LOGIN, no_password};
use super::{Inputs, LimitInput, OptionsError, release_version};
use crate::fetch::{ClientOptions, FetchOptions, Mirror, Mirrors};
use crate::pace::{MinRate, MinRateError};
use crate::upstream_signatures::SignatureSettings;

/// The inputs other than the versions, checked.
pub(super) struct Checked {
    pub(super) output_path: std::path::PathBuf,
    pub(super) network_yaml: String,
    pub(super) arch: Arch,
    pub(super) concurrency: usize,
    pub(super) build_name: String,
    pub(super) csi_version: ReleaseVersion,
    pub(super) dashboards: Dashboards,
    pub(super) mirrors: Mirrors,
    pub(super) signatures: SignatureSettings,
    pub(super) limits: Limits,
    pub(super) min_rate: MinRate,
}

/// `value`, or the error that `input` was given nowhere (with an example).
pub(super) fn need<T>(value: Option<T>, input: &str, example: &str) -> Result<T, OptionsError> {
    value.ok_or_else(|| OptionsError::Missing {
        input: input.to_string(),
        example: example.to_string(),
    })
}

impl Inputs {
    /// The downloader's settings (mirrors, CA file, limits, pace, transfers at a time, the
    /// cache folder), with every input but the versions checked first: what the front stage
    /// reads the release server and the tags with, before the versions are known.
    pub fn reach(&self) -> Result<FetchOptions, OptionsError> {
        let checked = self.checked()?;
        Ok(fetch_settings(
            self.ca_file.as_deref(),
            checked.limits,
            checked.min_rate,
            checked.mirrors,
            self.cache_dir.as_deref(),
            checked.concurrency,
        ))
    }

    /// Checks every input but the versions.
    pub(super) fn checked(&self) -> Result<Checked, OptionsError> {
        let arch = match self.arch.as_deref() {
            None => Arch::Amd64,
            Some(text) => text.parse::<Arch>().map_err(|_| OptionsError::Invalid {
                input: "ARCH (--arch)".into(),
                value: text.into(),
                expected: "expected x86_64 (or amd64) or aarch64 (or arm64)".into(),
            })?,
        };
        let concurrency = self.concurrency.unwrap_or(4);
        if concurrency == 0 {
            return Err(OptionsError::Invalid {
                input: "--concurrency".into(),
                value: "0".into(),
                expected: "expected at least 1 transfer at a time".into(),
            });
        }
        let build_name = need(
            self.build_name.clone(),
            "BUILD_NAME (--build-name)",
            "cks-1.33.13",
        )?;
        if build_name.is_empty() || build_name.contains('/') {
            return Err(OptionsError::Invalid {
                input: "BUILD_NAME (--build-name)".into(),
                value: build_name,
                expected: "expected a file name without `/`, e.g. cks-1.33.13".into(),
            });
        }
        let csi_version = release_version(
            self.csi_version
                .clone()
                .unwrap_or_else(|| "v3.0.0".to_string()),
            "--csi-version",
        )?;
        self.no_passwords()?;
        let dashboards = Dashboards::resolve(
            self.dashboard_yaml.clone(),
            self.headlamp_version.clone(),
            self.cloudstack.clone(),
        )?;
        let mirrors = self
            .mirrors
            .iter()
            .map(|m| {
                m.parse::<Mirror>().map_err(|e| OptionsError::Invalid {
                    input: "--mirror".into(),
                    value: crate::redact::passwords(m).into_owned(),
                    expected: e.to_string(),
                })
            })
            .collect::<Result<Mirrors, _>>()?;
        let signatures = self
            .signatures
            .clone()
            .resolve()
            .map_err(|e| OptionsError::Invalid {
                input: "[signatures] in the config".into(),
                value: e.registry.clone(),
                expected: e.to_string(),
            })?;
        Ok(Checked {
            output_path: need(
                self.output_path.clone(),
                "OUTPUT_PATH (--output-path)",
                "./out",
            )?,
            network_yaml: need(
                self.network_yaml.clone(),
                "NETWORK_YAML (--network-yaml)",
                "https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml",
            )?,
            arch,
            concurrency,
            build_name,
            csi_version,
            dashboards,
            mirrors,
            signatures,
            limits: self.limits()?,
            min_rate: self.min_rate()?,
        })
    }

    /// No URL input carries a password (each would end up in the lock and the logs).
    fn no_passwords(&self) -> Result<(), OptionsError> {
        no_password(
            &self.network_yaml,
            "NETWORK_YAML (--network-yaml)",
            MIRROR_LOGIN,
        )?;
        no_password(
            &self.dashboard_yaml,
            "DASHBOARD_YAML (--dashboard)",
            MIRROR_LOGIN,
        )?;
        no_password(
            &self.autoscaler_repo,
            "--autoscaler-repo",
            "give the URL without one",
        )?;
        no_password(
            &self.cache_registry,
            "--cache-registry",
            "the registry's credentials are read from `docker login`'s config.json",
        )
    }

    fn limits(&self) -> Result<Limits, OptionsError> {
        let mut limits = Limits::default();
        for (kind, value) in &self.limits {
            let text = match value {
                LimitInput::Number(n) => format!("{kind}={n}"),
                LimitInput::Text(t) => format!("{kind}={t}"),
            };
            limits.set_text(&text).map_err(|e| OptionsError::Invalid {
                input: "--limit (or [limit] in the config)".into(),
                value: text.clone(),
                expected: e.to_string(),
            })?;
        }
        Ok(limits)
    }

    fn min_rate(&self) -> Result<MinRate, OptionsError> {
        match &self.min_rate {
            None => Ok(MinRate::default()),
            Some(text) => text
                .parse()
                .map_err(|e: MinRateError| OptionsError::Invalid {
                    input: "--min-rate (or min-rate in the config)".into(),
                    value: text.clone(),
                    expected: e.to_string(),
                }),
        }
    }
}

/// The downloader's settings from the inputs that reach servers: the one place they are put
/// together, for the front stage ([`Inputs::reach`]) and the build ([`super::Options`]).
pub(super) fn fetch_settings(
    ca_file: Option<&std::path::Path>,
    limits: Limits,
    min_rate: MinRate,
    mirrors: Mirrors,
    cache_dir: Option<&std::path::Path>,
    concurrency: usize,
) -> FetchOptions {
    FetchOptions {
        client: ClientOptions {
            ca_files: ca_file.iter().map(|p| p.to_path_buf()).collect(),
            limits,
            min_rate,
            ..ClientOptions::default()
        },
        mirrors,
        cache_dir: cache_dir.map(|d| d.join("files")),
        concurrency,
        ..FetchOptions::default()
    }
}
