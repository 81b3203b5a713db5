//! The Kubernetes Service's supported versions: `addKubernetesSupportedVersion`,
//! `listKubernetesSupportedVersions`, `deleteKubernetesSupportedVersion`,
//! `updateKubernetesSupportedVersion` (enable or disable), the ISO behind a version
//! (`listIsos`: whether secondary storage has it and its download status), the zones (`listZones`), and which parameters a command takes on this server
//! (`listApis`).

use serde::Deserialize;
use serde_json::Value;

use crate::{client::CloudStackClient, error::CloudStackError};

/// A Kubernetes supported version as `listKubernetesSupportedVersions` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct KubernetesVersion {
    /// Its id.
    #[serde(deserialize_with = "crate::scalar::text")]
    pub id: String,
    /// Its name, e.g. `v1.33.13`.
    #[serde(default)]
    pub name: String,
    /// `MAJOR.MINOR.PATCH`.
    #[serde(rename = "semanticversion", default)]
    pub semantic_version: String,
    /// The binaries ISO's id.
    #[serde(rename = "isoid", default)]
    pub iso_id: String,
    /// The binaries ISO's name.
    #[serde(rename = "isoname", default)]
    pub iso_name: String,
    /// The ISO's state on secondary storage: `Allocated`, `Creating`, `Ready`, ...
    #[serde(rename = "isostate", default)]
    pub iso_state: String,
    /// `Enabled` or `Disabled`.
    #[serde(default)]
    pub state: String,
    /// The zone it is limited to, when it is.
    #[serde(rename = "zoneid", default)]
    pub zone_id: Option<String>,
    /// The minimum CPUs of a node.
    #[serde(
        rename = "mincpunumber",
        default,
        deserialize_with = "crate::scalar::small_count"
    )]
    pub min_cpus: u32,
    /// The minimum memory of a node, MiB.
    #[serde(
        rename = "minmemory",
        default,
        deserialize_with = "crate::scalar::count"
    )]
    pub min_memory_mib: u64,
    /// Whether nodes download the ISO straight to primary storage.
    #[serde(rename = "directdownload", default)]
    pub direct_download: bool,
    /// The ISO's CPU arch, where the server records one.
    #[serde(default)]
    pub arch: Option<String>,
}

/// The ISO behind a version, as `listIsos` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Iso {
    /// Its id.
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Whether secondary storage holds it, downloaded and checked.
    #[serde(rename = "isready", default)]
    pub is_ready: bool,
    /// CloudStack's download status: `35% Downloaded`, `Installing ISO`, `Successfully
    /// Installed`, or the downloader's own error text (e.g. `Unable to start download -- check
    /// url? `).
    #[serde(default)]
    pub status: Option<String>,
    /// Where each store is with the download (`downloaddetails`).
    #[serde(rename = "downloaddetails", default)]
    pub download_details: Vec<DownloadDetail>,
    /// The checksum it was registered with.
    #[serde(default)]
    pub checksum: Option<String>,
    /// The URL it was registered from.
    #[serde(default)]
    pub url: Option<String>,
}

/// One store's view of an ISO download, an item of `listIsos`'s `downloaddetails`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DownloadDetail {
    /// The store's name.
    #[serde(default)]
    pub datastore: Option<String>,
    /// `NOT_DOWNLOADED`, `DOWNLOAD_IN_PROGRESS`, `DOWNLOADED`, `DOWNLOAD_ERROR`, `ABANDONED`, ...
    #[serde(rename = "downloadState", default)]
    pub download_state: Option<String>,
    /// How much is downloaded, in percent (CloudStack writes it as text).
    #[serde(rename = "downloadPercent", default)]
    pub download_percent: Option<String>,
}

/// What `addKubernetesSupportedVersion` is asked to register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKubernetesVersion {
    /// `MAJOR.MINOR.PATCH`.
    pub semantic_version: String,
    /// The URL secondary storage downloads the ISO from.
    pub url: String,
    /// The checksum in CloudStack's form, `{SHA-256}<hex>`.
    pub checksum: String,
    /// The minimum CPUs of a node (CloudStack requires at least 2).
    pub min_cpus: u32,
    /// The minimum memory of a node in MiB (CloudStack requires at least 2048).
    pub min_memory_mib: u64,
    /// The zone to limit the version to; every zone when `None`.
    pub zone_id: Option<String>,
    /// The version's name; CloudStack names it `v<version>` when `None`.
    pub name: Option<String>,
    /// Skip secondary storage (`directdownload`, CloudStack 4.18.2 and newer).
    pub direct_download: bool,
    /// The ISO's CPU arch (`arch`, CloudStack 4.20 and newer).
    pub arch: Option<String>,
}

/// Why no single registered version is the one asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionChoiceError {
    /// No registered version has this id, name or semantic version.
    #[error(
        "--to {given}: no registered Kubernetes version has this id, name or semantic version; registered: {known}"
    )]
    Unknown {
        /// What was given.
        given: String,
        /// The registered versions, `name (semantic version)`.
        known: String,
    },
    /// Several versions match.
    #[error("--to {given}: {count} registered versions match; give the version's id")]
    Ambiguous {
        /// What was given.
        given: String,
        /// How many matched.
        count: usize,
    },
}

/// The registered version `given` names: its id, else its name, else its semantic version
/// (`v` optional). Shared by `cks-upgrade-hook upgrade --to` and `cks-fleet --to`.
pub fn choose_version<'a>(
    given: &str,
    versions: &'a [KubernetesVersion],
) -> Result<&'a KubernetesVersion, VersionChoiceError> {
    if let Some(v) = versions.iter().find(|v| v.id == given) {
        return Ok(v);
    }
    let bare = given.trim_start_matches('v');
    let by_name: Vec<_> = versions.iter().filter(|v| v.name == given).collect();
    let matches = if by_name.is_empty() {
        versions
            .iter()
            .filter(|v| v.semantic_version.trim_start_matches('v') == bare)
            .collect()
    } else {
        by_name
    };
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(VersionChoiceError::Unknown {
            given: given.to_string(),
            known: versions
                .iter()
                .map(|v| format!("{} ({})", v.name, v.semantic_version))
                .collect::<Vec<_>>()
                .join(", "),
        }),
        many => Err(VersionChoiceError::Ambiguous {
            given: given.to_string(),
            count: many.len(),
        }),
    }
}

impl CloudStackClient {
    /// The Kubernetes supported versions, all of them or the one with `id`.
    pub fn list_kubernetes_versions(
        &self,
        id: Option<&str>,
    ) -> Result<Vec<KubernetesVersion>, CloudStackError> {
        let params: Vec<(&str, String)> = id.map(|id| ("id", id.to_string())).into_iter().collect();
        self.list(
            "listKubernetesSupportedVersions",
            "kubernetessupportedversion",
            &params,
        )
    }

    /// Registers a version (a synchronous command: the ISO download starts behind it).
    pub fn add_kubernetes_version(
        &self,
        version: &NewKubernetesVersion,
    ) -> Result<KubernetesVersion, CloudStackError> {
        let command = "addKubernetesSupportedVersion";
        let mut params = vec![
            ("semanticversion", version.semantic_version.clone()),
            ("url", version.url.clone()),
            ("checksum", version.checksum.clone()),
            ("mincpunumber", version.min_cpus.to_string()),
            ("minmemory", version.min_memory_mib.to_string()),
        ];
        if let Some(zone) = &version.zone_id {
            params.push(("zoneid", zone.clone()));
        }
        if let Some(name) = &version.name {
            params.push(("name", name.clone()));
        }
        if version.direct_download {
            params.push(("directdownload", "true".to_string()));
        }
        if let Some(arch) = &version.arch {
            params.push(("arch", arch.clone()));
        }
        let answer = self.call(command, &params)?;
        Self::one(command, answer, "kubernetessupportedversion")
    }

    /// Deletes a version and its ISO (an async command; CloudStack refuses while a cluster uses
    /// the version).
    pub fn delete_kubernetes_version(&self, id: &str) -> Result<(), CloudStackError> {
        self.call_async(
            "deleteKubernetesSupportedVersion",
            &[("id", id.to_string())],
        )
        .map(|_| ())
    }

    /// Enables or disables a version (`updateKubernetesSupportedVersion`): a disabled version
    /// stays for the clusters that run it, but no new cluster or upgrade can pick it.
    pub fn set_kubernetes_version_enabled(
        &self,
        id: &str,
        enabled: bool,
    ) -> Result<KubernetesVersion, CloudStackError> {
        let command = "updateKubernetesSupportedVersion";
        let state = if enabled { "Enabled" } else { "Disabled" };
        let answer = self.call(
            command,
            &[("id", id.to_string()), ("state", state.to_string())],
        )?;
        Self::one(command, answer, "kubernetessupportedversion")
    }

    /// The ISO with `id`, if the key may see it.
    pub fn iso(&self, id: &str) -> Result<Option<Iso>, CloudStackError> {
        let isos: Vec<Iso> = self.list(
            "listIsos",
            "iso",
            &[
                ("id", id.to_string()),
                ("isofilter", "all".to_string()),
                ("listall", "true".to_string()),
            ],
        )?;
        Ok(isos.into_iter().next())
    }

    /// Every zone, as (id, name).
    pub fn zones(&self) -> Result<Vec<(String, String)>, CloudStackError> {
        #[derive(Deserialize)]
        struct Zone {
            id: String,
            #[serde(default)]
            name: String,
        }
        let zones: Vec<Zone> = self.list("listZones", "zone", &[])?;
        Ok(zones.into_iter().map(|z| (z.id, z.name)).collect())
    }

    /// The parameter names `command` takes on this server (from `listApis`), or `None` when the
    /// server does not say (the key may not call `listApis`).
    pub fn api_parameters(&self, command: &str) -> Result<Option<Vec<String>>, CloudStackError> {
        let answer = match self.call("listApis", &[("name", command.to_string())]) {
            Ok(answer) => answer,
            Err(CloudStackError::Api { .. }) => return Ok(None),
            Err(other) => return Err(other),
        };
        let names = answer
            .get("api")
            .and_then(Value::as_array)
            .and_then(|apis| apis.first())
            .and_then(|api| api.get("params"))
            .and_then(Value::as_array)
            .map(|params| {
                params
                    .iter()
                    .filter_map(|p| p.get("name").and_then(Value::as_str))
                    .map(str::to_lowercase)
                    .collect()
            });
        Ok(names)
    }
}
