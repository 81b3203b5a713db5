//! What CloudStack has, the plan from it, and the plan carried out: versions added per zone
//! (waiting until Ready), end-of-life ones deleted or disabled, a row for each.

use std::collections::BTreeSet;

use cks_cloudstack::{CloudStackClient, NewKubernetesVersion};
use cks_pinning::catalog::{Existing, RetireScope, Retirement, Step, ZoneRef, plan_registration};
use serde::Serialize;

use super::super::RegisterError;
use super::error::CatalogRegisterError;
use super::load::Loaded;
use super::request::{CatalogRequest, Zones};

/// One line of the closing table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The zone's name (`all zones` for a version registered for every zone).
    pub zone: String,
    /// `MAJOR.MINOR.PATCH`.
    pub kubernetes_version: String,
    /// The arch.
    pub arch: String,
    /// `registered`, `present`, `deleted`, `disabled`, `already disabled`, or with `--dry-run`
    /// `would register`, `would delete`, `would disable`.
    pub action: String,
    /// The version's id and state, or why.
    pub detail: String,
}

/// A checksum without CloudStack's `{ALGORITHM}` prefix, lower-cased.
fn bare(checksum: &str) -> String {
    checksum
        .rsplit_once('}')
        .map_or(checksum, |(_, hex)| hex)
        .to_lowercase()
}

/// The zones asked for, resolved against `listZones`.
fn zones(client: &CloudStackClient, asked: &Zones) -> Result<Vec<ZoneRef>, CatalogRegisterError> {
    let all: Vec<ZoneRef> = client
        .zones()?
        .into_iter()
        .map(|(id, name)| ZoneRef { id, name })
        .collect();
    let Zones::Named(names) = asked else {
        return Ok(all);
    };
    let mut chosen: Vec<ZoneRef> = Vec::new();
    for name in names {
        let zone = all
            .iter()
            .find(|z| z.id == *name || z.name == *name)
            .ok_or_else(|| RegisterError::NoZone {
                zone: name.clone(),
                known: all
                    .iter()
                    .map(|z| format!("{} ({})", z.name, z.id))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        if !chosen.contains(zone) {
            chosen.push(zone.clone());
        }
    }
    Ok(chosen)
}

/// Checks that each selected ISO fits the server's CloudStack line, reads what CloudStack has
/// and plans; refuses a misfit or a conflict (the same version and arch with another checksum)
/// before anything changes.
pub fn plan(
    client: &CloudStackClient,
    loaded: &Loaded,
    request: &CatalogRequest,
    say: &mut dyn FnMut(&str),
) -> Result<(Vec<ZoneRef>, Vec<Step>), CatalogRegisterError> {
    for facts in &loaded.facts {
        super::super::line_fit::check(client, facts, false, say).map_err(|e| {
            CatalogRegisterError::IsoRefused {
                url: facts.iso.display().to_string(),
                source: Box::new(e),
            }
        })?;
    }
    let zones = zones(client, &request.zones)?;
    let wanted: BTreeSet<&str> = loaded
        .selected
        .iter()
        .map(|i| i.kubernetes_version.as_str())
        .collect();
    let in_use: BTreeSet<String> = if request.retire_eol {
        client
            .list_kubernetes_clusters()?
            .into_iter()
            .map(|c| c.kubernetes_version_id)
            .collect()
    } else {
        BTreeSet::new()
    };
    let mut existing = Vec::new();
    for v in client.list_kubernetes_versions(None)? {
        let iso = if request.retire_eol || wanted.contains(v.semantic_version.as_str()) {
            client.iso(&v.iso_id)?
        } else {
            None
        };
        let sha256 = iso.as_ref().and_then(|i| i.checksum.as_deref()).map(bare);
        let url = iso.and_then(|i| i.url).filter(|u| !u.is_empty());
        existing.push(Existing {
            in_use: in_use.contains(&v.id),
            enabled: !v.state.eq_ignore_ascii_case("Disabled"),
            id: v.id,
            name: v.name,
            semantic_version: v.semantic_version,
            arch: v.arch.filter(|a| !a.is_empty()),
            zone_id: v.zone_id.filter(|z| !z.is_empty()),
            sha256,
            url,
        });
    }
    let scope = request
        .retire_eol
        .then(|| RetireScope::of(&loaded.catalog.isos, request.zones == Zones::All))
        .flatten();
    let steps = plan_registration(&loaded.selected, &zones, &existing, scope.as_ref());
    if let Some(Step::Conflict {
        zone,
        iso,
        existing,
    }) = steps.iter().find(|s| matches!(s, Step::Conflict { .. }))
    {
        return Err(CatalogRegisterError::Conflict {
            version: format!("{} ({})", iso.kubernetes_version, iso.arch),
            zone: zone.name.clone(),
            existing: format!(
                "{} (id {}) with checksum {}",
                existing.name,
                existing.id,
                existing.sha256.as_deref().unwrap_or("(none)")
            ),
            ours: format!("{} has sha256 {}", iso.file, iso.sha256),
        });
    }
    Ok((zones, steps))
}

fn zone_label(zone: Option<&ZoneRef>) -> String {
    zone.map_or_else(|| "all zones".to_string(), |z| z.name.clone())
}

/// Carries out `steps` (or, with `--dry-run`, only says what it would do).
pub fn apply(
    client: &CloudStackClient,
    steps: &[Step],
    request: &CatalogRequest,
    say: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, CatalogRegisterError> {
    let arch_known = if steps.iter().any(|s| matches!(s, Step::Register { .. })) && !request.dry_run
    {
        let params = client.api_parameters("addKubernetesSupportedVersion")?;
        if request.settings.direct_download
            && params
                .as_ref()
                .is_some_and(|p| !p.iter().any(|n| n == "directdownload"))
        {
            return Err(RegisterError::Unsupported {
                flag: "--direct-download",
                parameter: "directdownload",
                since: "4.18.2",
            }
            .into());
        }
        params.is_some_and(|p| p.iter().any(|n| n == "arch"))
    } else {
        false
    };
    let mut rows = Vec::new();
    for step in steps {
        let row = match step {
            Step::Register { zone, iso } => {
                let url = iso.url.clone().unwrap_or_default();
                if request.dry_run {
                    Row {
                        zone: zone.name.clone(),
                        kubernetes_version: iso.kubernetes_version.clone(),
                        arch: iso.arch.clone(),
                        action: "would register".to_string(),
                        detail: url,
                    }
                } else {
                    let added = client.add_kubernetes_version(&NewKubernetesVersion {
                        semantic_version: iso.kubernetes_version.clone(),
                        url: url.clone(),
                        checksum: format!("{{SHA-256}}{}", iso.sha256),
                        min_cpus: request.settings.min_cpus,
                        min_memory_mib: request.settings.min_memory_mib,
                        zone_id: Some(zone.id.clone()),
                        name: Some(super::super::supported_version::default_name(
                            &iso.kubernetes_version,
                            &iso.arch,
                            Some(&zone.name),
                        )),
                        direct_download: request.settings.direct_download,
                        arch: arch_known.then(|| iso.arch.clone()),
                    })?;
                    say(&format!(
                        "{}: added Kubernetes {} {} as {} (id {})",
                        zone.name, iso.kubernetes_version, iso.arch, added.name, added.id
                    ));
                    let state = if request.settings.wait {
                        super::super::supported_version::wait_ready(
                            client,
                            &added,
                            &url,
                            &request.settings,
                            say,
                        )?
                    } else {
                        added.iso_state.clone()
                    };
                    Row {
                        zone: zone.name.clone(),
                        kubernetes_version: iso.kubernetes_version.clone(),
                        arch: iso.arch.clone(),
                        action: "registered".to_string(),
                        detail: format!("{} (id {}), ISO {state}", added.name, added.id),
                    }
                }
            }
            Step::Present {
                zone,
                iso,
                existing,
            } => Row {
                zone: zone.name.clone(),
                kubernetes_version: iso.kubernetes_version.clone(),
                arch: iso.arch.clone(),
                action: "present".to_string(),
                detail: format!("{} (id {})", existing.name, existing.id),
            },
            Step::Conflict { .. } => continue,
            Step::Retire {
                zone,
                existing,
                how,
            } => {
                let (action, detail) = match (how, request.dry_run) {
                    (Retirement::Delete, true) => ("would delete", "no cluster uses it"),
                    (Retirement::Disable, true) => ("would disable", "clusters use it"),
                    (Retirement::Delete, false) => {
                        client.delete_kubernetes_version(&existing.id)?;
                        ("deleted", "its minor is older than the catalog's oldest")
                    }
                    (Retirement::Disable, false) => {
                        client.set_kubernetes_version_enabled(&existing.id, false)?;
                        (
                            "disabled",
                            "its minor is older than the catalog's oldest; clusters use it",
                        )
                    }
                    (Retirement::AlreadyDisabled, _) => ("already disabled", "clusters use it"),
                };
                Row {
                    zone: zone_label(zone.as_ref()),
                    kubernetes_version: existing.semantic_version.clone(),
                    arch: existing.arch.clone().unwrap_or_else(|| "-".to_string()),
                    action: action.to_string(),
                    detail: format!("{} (id {}): {detail}", existing.name, existing.id),
                }
            }
        };
        rows.push(row);
    }
    Ok(rows)
}
