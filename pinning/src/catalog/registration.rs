//! Which of a catalog's ISOs to register in which zone, and which registered versions to retire,
//! decided from what CloudStack already has: a plan of [`Step`]s that `cks-iso register
//! --catalog` prints with `--dry-run` and otherwise carries out.
//!
//! - An ISO is present in a zone when a version of the same Kubernetes version (and arch, where
//!   CloudStack records one) is registered for that zone or for every zone; with the catalog's
//!   sha256 it is left alone, with another (or none) it is a conflict that stops the run.
//! - With `--retire-eol`, each registered version (in the zones asked for, or in every zone)
//!   whose minor the catalog no longer has is deleted, or disabled when a cluster uses it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::schema::CatalogIso;
use crate::version::KubeVersion;

/// A zone: its id and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ZoneRef {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// A Kubernetes supported version CloudStack already has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Existing {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `MAJOR.MINOR.PATCH`.
    pub semantic_version: String,
    /// Its arch, where the server records one.
    pub arch: Option<String>,
    /// The zone it is limited to; every zone when `None`.
    pub zone_id: Option<String>,
    /// Whether it is Enabled.
    pub enabled: bool,
    /// The sha256 it was registered with (hex, lowercase), when known.
    pub sha256: Option<String>,
    /// Whether a cluster runs it.
    pub in_use: bool,
}

/// How an end-of-life version is retired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Retirement {
    /// No cluster uses it: deleted.
    Delete,
    /// A cluster uses it: disabled, so no new cluster picks it.
    Disable,
    /// Used and already disabled: nothing to do.
    AlreadyDisabled,
}

/// One thing to do (or not) in one zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Step {
    /// The ISO is missing in the zone: register it there.
    Register {
        /// The zone.
        zone: ZoneRef,
        /// The ISO.
        iso: CatalogIso,
    },
    /// The ISO is registered there with the catalog's sha256: nothing to do.
    Present {
        /// The zone.
        zone: ZoneRef,
        /// The ISO.
        iso: CatalogIso,
        /// The registered version.
        existing: Existing,
    },
    /// The same version is registered there with another sha256: the run stops.
    Conflict {
        /// The zone.
        zone: ZoneRef,
        /// The ISO.
        iso: CatalogIso,
        /// The registered version.
        existing: Existing,
    },
    /// A version whose minor the catalog no longer has.
    Retire {
        /// Its zone; `None` when it is registered for every zone.
        zone: Option<ZoneRef>,
        /// The version.
        existing: Existing,
        /// How.
        how: Retirement,
    },
}

impl Step {
    /// Whether carrying out the step changes CloudStack.
    pub fn changes(&self) -> bool {
        matches!(
            self,
            Step::Register { .. }
                | Step::Retire {
                    how: Retirement::Delete | Retirement::Disable,
                    ..
                }
        )
    }
}

/// The newest patch of each minor, per arch, in the catalog's order.
pub fn latest_per_minor(isos: &[CatalogIso]) -> Vec<CatalogIso> {
    let mut newest: BTreeMap<(String, String), &CatalogIso> = BTreeMap::new();
    for iso in isos {
        let key = (iso.minor.clone(), iso.arch.clone());
        match newest.get(&key) {
            Some(kept) if kept.version() >= iso.version() => {}
            _ => {
                newest.insert(key, iso);
            }
        }
    }
    isos.iter()
        .filter(|iso| {
            newest
                .get(&(iso.minor.clone(), iso.arch.clone()))
                .is_some_and(|kept| std::ptr::eq(*kept, *iso))
        })
        .cloned()
        .collect()
}

fn minor_of(semantic_version: &str) -> Option<String> {
    KubeVersion::parse(semantic_version)
        .ok()
        .map(|v| v.minor_line())
}

/// The plan: for each zone (in the order given) each selected ISO registered or present, then,
/// with `retire_eol`, each version whose minor is not among `catalog_minors`.
pub fn plan(
    selected: &[CatalogIso],
    catalog_minors: &BTreeSet<String>,
    zones: &[ZoneRef],
    existing: &[Existing],
    retire_eol: bool,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for zone in zones {
        for iso in selected {
            let found = existing.iter().find(|e| {
                e.semantic_version == iso.kubernetes_version
                    && e.zone_id.as_ref().is_none_or(|z| *z == zone.id)
                    && e.arch.as_ref().is_none_or(|a| *a == iso.arch)
            });
            steps.push(match found {
                None => Step::Register {
                    zone: zone.clone(),
                    iso: iso.clone(),
                },
                Some(e) if e.sha256.as_deref() == Some(iso.sha256.as_str()) => Step::Present {
                    zone: zone.clone(),
                    iso: iso.clone(),
                    existing: e.clone(),
                },
                Some(e) => Step::Conflict {
                    zone: zone.clone(),
                    iso: iso.clone(),
                    existing: e.clone(),
                },
            });
        }
    }
    if retire_eol {
        for e in existing {
            let zone = match &e.zone_id {
                None => None,
                Some(id) => match zones.iter().find(|z| z.id == *id) {
                    Some(zone) => Some(zone.clone()),
                    None => continue,
                },
            };
            let Some(minor) = minor_of(&e.semantic_version) else {
                continue;
            };
            if catalog_minors.contains(&minor) {
                continue;
            }
            let how = match (e.in_use, e.enabled) {
                (false, _) => Retirement::Delete,
                (true, true) => Retirement::Disable,
                (true, false) => Retirement::AlreadyDisabled,
            };
            steps.push(Step::Retire {
                zone,
                existing: e.clone(),
                how,
            });
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(version: &str, arch: &str) -> CatalogIso {
        let v = KubeVersion::parse(version).expect("version");
        CatalogIso {
            kubernetes_version: version.into(),
            minor: v.minor_line(),
            arch: arch.into(),
            file: format!("cks-{version}-{arch}.iso"),
            size: 1,
            sha256: format!("{:0>64}", v.patch),
            url: None,
            sbom: None,
            signature: None,
            built: None,
            builder: None,
        }
    }

    fn existing(id: &str, version: &str, zone: Option<&str>, sha: Option<String>) -> Existing {
        Existing {
            id: id.into(),
            name: format!("v{version}"),
            semantic_version: version.into(),
            arch: Some("x86_64".into()),
            zone_id: zone.map(str::to_string),
            enabled: true,
            sha256: sha,
            in_use: false,
        }
    }

    fn zones() -> Vec<ZoneRef> {
        ["a", "b"]
            .iter()
            .map(|z| ZoneRef {
                id: format!("zone-{z}"),
                name: z.to_string(),
            })
            .collect()
    }

    #[test]
    fn latest_per_minor_keeps_the_newest_patch_of_each_minor_and_arch() {
        let isos = vec![
            iso("1.32.1", "x86_64"),
            iso("1.32.9", "x86_64"),
            iso("1.32.2", "aarch64"),
            iso("1.33.10", "x86_64"),
            iso("1.33.2", "x86_64"),
        ];
        let kept: Vec<String> = latest_per_minor(&isos)
            .into_iter()
            .map(|i| i.file)
            .collect();
        assert_eq!(
            kept,
            [
                "cks-1.32.9-x86_64.iso",
                "cks-1.32.2-aarch64.iso",
                "cks-1.33.10-x86_64.iso"
            ]
        );
    }

    #[test]
    fn missing_isos_are_registered_present_ones_left_and_eol_minors_retired() {
        let isos = vec![iso("1.33.2", "x86_64"), iso("1.32.9", "x86_64")];
        let minors: BTreeSet<String> = isos.iter().map(|i| i.minor.clone()).collect();
        let mut used = existing("old-used", "1.30.1", None, None);
        used.in_use = true;
        let have = vec![
            existing("p", "1.33.2", Some("zone-a"), Some(isos[0].sha256.clone())),
            existing("c", "1.32.9", Some("zone-b"), Some("f".repeat(64))),
            existing("old", "1.31.4", Some("zone-a"), None),
            existing("elsewhere", "1.29.0", Some("zone-z"), None),
            used,
        ];
        let steps = plan(&isos, &minors, &zones(), &have, true);
        let brief: Vec<String> = steps
            .iter()
            .map(|s| match s {
                Step::Register { zone, iso } => {
                    format!("register {} {}", zone.name, iso.kubernetes_version)
                }
                Step::Present { zone, existing, .. } => {
                    format!("present {} {}", zone.name, existing.id)
                }
                Step::Conflict { zone, existing, .. } => {
                    format!("conflict {} {}", zone.name, existing.id)
                }
                Step::Retire {
                    zone,
                    existing,
                    how,
                } => format!(
                    "retire {} {} {how:?}",
                    zone.as_ref().map_or("all", |z| z.name.as_str()),
                    existing.id
                ),
            })
            .collect();
        assert_eq!(
            brief,
            [
                "present a p",
                "register a 1.32.9",
                "register b 1.33.2",
                "conflict b c",
                "retire a old Delete",
                "retire all old-used Disable",
            ]
        );
        assert!(
            !plan(&isos, &minors, &zones(), &have, false)
                .iter()
                .any(|s| matches!(s, Step::Retire { .. }))
        );
    }

    #[test]
    fn a_disabled_version_in_use_is_left_as_it_is() {
        let mut used = existing("u", "1.30.1", None, None);
        used.in_use = true;
        used.enabled = false;
        let steps = plan(&[], &BTreeSet::new(), &zones(), &[used], true);
        assert!(matches!(
            steps.as_slice(),
            [Step::Retire {
                how: Retirement::AlreadyDisabled,
                ..
            }]
        ));
        assert!(!steps[0].changes());
    }
}
