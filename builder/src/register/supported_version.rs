//! The CloudStack side of `register`: find the version already registered, refuse or replace
//! it, add the new one, and wait until secondary storage has the ISO Ready (or reports why not).

use cks_cloudstack::{CloudStackClient, KubernetesVersion, NewKubernetesVersion};

pub(super) use super::download_wait::wait_ready;
use super::error::RegisterError;
use super::iso_facts::IsoFacts;
use super::registration::{Registration, Status};
use super::request::Request;

/// A checksum without CloudStack's `{ALGORITHM}` prefix, lower-cased.
fn bare(checksum: &str) -> String {
    checksum
        .rsplit_once('}')
        .map_or(checksum, |(_, hex)| hex)
        .to_lowercase()
}

fn registration(
    status: Status,
    v: &KubernetesVersion,
    facts: &IsoFacts,
    url: &str,
) -> Registration {
    Registration {
        status,
        id: v.id.clone(),
        name: v.name.clone(),
        semantic_version: v.semantic_version.clone(),
        iso_id: v.iso_id.clone(),
        iso_state: v.iso_state.clone(),
        checksum: facts.checksum(),
        url: url.to_string(),
        replaced: None,
        iso: facts.clone(),
    }
}

/// Resolves `--zone` (a name or an id) to the zone's id and name.
fn zone_of(client: &CloudStackClient, zone: &str) -> Result<(String, String), RegisterError> {
    let zones = client.zones()?;
    zones
        .iter()
        .find(|(id, name)| id == zone || name == zone)
        .cloned()
        .ok_or_else(|| RegisterError::NoZone {
            zone: zone.to_string(),
            known: zones
                .iter()
                .map(|(id, name)| format!("{name} ({id})"))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Whether `v` is the version `facts` would be in `zone` (every zone when `None`): the same
/// semantic version, in that zone or every zone, and the same arch (CloudStack 4.20 and newer
/// keep one version per arch; a version without an arch, from an older server, counts as any).
fn same_version(v: &KubernetesVersion, facts: &IsoFacts, zone: Option<&str>) -> bool {
    v.semantic_version == facts.semantic_version
        && (zone.is_none() || v.zone_id.is_none() || v.zone_id.as_deref() == zone)
        && v.arch
            .as_deref()
            .is_none_or(|arch| arch.is_empty() || arch == facts.arch)
}

/// The name a version gets without `--name`: CloudStack's own (`v<version>`, with `-<zone>`
/// for one zone) with the arch after it, so the versions of two arches are told apart.
pub(super) fn default_name(version: &str, arch: &str, zone: Option<&str>) -> String {
    match zone {
        Some(zone) => format!("v{version}-{zone}-{arch}"),
        None => format!("v{version}-{arch}"),
    }
}

/// Registers `facts` as `request` says, through `client`; `say` gets one line per step.
pub fn register(
    client: &CloudStackClient,
    facts: &IsoFacts,
    request: &Request,
    say: &mut dyn FnMut(&str),
) -> Result<Registration, RegisterError> {
    let found = request
        .zone
        .as_deref()
        .map(|z| zone_of(client, z))
        .transpose()?;
    let zone_name = found.as_ref().map(|(_, name)| name.as_str());
    let zone = found.as_ref().map(|(id, _)| id.clone());
    let ours = facts.sha256.clone();
    let mut replaced = None;
    let same_version = client
        .list_kubernetes_versions(None)?
        .into_iter()
        .filter(|v| same_version(v, facts, zone.as_deref()));
    for existing in same_version {
        let registered = client
            .iso(&existing.iso_id)?
            .and_then(|iso| iso.checksum)
            .unwrap_or_default();
        if bare(&registered) == ours {
            return Ok(registration(
                Status::AlreadyRegistered,
                &existing,
                facts,
                &request.url,
            ));
        }
        if !request.replace {
            return Err(RegisterError::OtherChecksum {
                version: format!("{} ({})", facts.semantic_version, facts.arch),
                existing: format!("{} (id {})", existing.name, existing.id),
                registered: if registered.is_empty() {
                    "(none)".to_string()
                } else {
                    registered
                },
                iso: facts.iso.clone(),
                ours: facts.checksum(),
            });
        }
        let users: Vec<String> = client
            .list_kubernetes_clusters()?
            .into_iter()
            .filter(|c| c.kubernetes_version_id == existing.id)
            .map(|c| c.name)
            .collect();
        if !users.is_empty() {
            return Err(RegisterError::InUse {
                version: facts.semantic_version.clone(),
                name: existing.name.clone(),
                id: existing.id.clone(),
                plural: if users.len() == 1 { "" } else { "s" },
                clusters: users.join(", "),
            });
        }
        say(&format!(
            "deleting {} (id {}), registered with another checksum",
            existing.name, existing.id
        ));
        client.delete_kubernetes_version(&existing.id)?;
        replaced = Some(existing.id);
    }

    let params = client.api_parameters("addKubernetesSupportedVersion")?;
    let has = |name: &str| params.as_ref().map(|p| p.iter().any(|n| n == name));
    if request.settings.direct_download && has("directdownload") == Some(false) {
        return Err(RegisterError::Unsupported {
            flag: "--direct-download",
            parameter: "directdownload",
            since: "4.18.2",
        });
    }
    let new = NewKubernetesVersion {
        semantic_version: facts.semantic_version.clone(),
        url: request.url.clone(),
        checksum: facts.checksum(),
        min_cpus: request.settings.min_cpus,
        min_memory_mib: request.settings.min_memory_mib,
        zone_id: zone,
        name: Some(
            request
                .name
                .clone()
                .unwrap_or_else(|| default_name(&facts.semantic_version, &facts.arch, zone_name)),
        ),
        direct_download: request.settings.direct_download,
        arch: (has("arch") == Some(true)).then(|| facts.arch.clone()),
    };
    let added = client.add_kubernetes_version(&new)?;
    say(&format!(
        "added Kubernetes {} as {} (id {}); ISO {}",
        added.semantic_version, added.name, added.id, added.iso_state
    ));
    let mut done = registration(Status::Registered, &added, facts, &request.url);
    done.replaced = replaced;
    if request.settings.wait {
        done.iso_state = wait_ready(client, &added, &request.url, &request.settings, say)?;
    }
    Ok(done)
}
