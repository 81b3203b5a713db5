//! Which of a catalog's ISOs to register in which zone, and which registered versions to retire,
//! decided from what CloudStack already has: a plan of [`Step`]s that `cks-iso register
//! --catalog` prints with `--dry-run` and otherwise carries out.
//!
//! - An ISO is present in a zone when a version of the same Kubernetes version (and arch, where
//!   CloudStack records one) is registered for that zone or for every zone; with the catalog's
//!   sha256 it is left alone, with another (or none) it is a conflict that stops the run.
//! - With `--retire-eol`, a registered version is retired (deleted, or disabled when a cluster
//!   uses it) only when all of these hold ([`RetireScope`]): its ISO came from the catalog's
//!   folder (its URL starts with the folder of one of the catalog's ISO URLs: hand-registered
//!   versions are left), its minor is older than the catalog's oldest (newer ones are left),
//!   and it is in a zone asked for (a version for every zone only when every zone was asked
//!   for).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::schema::{CatalogIso, minor_key};
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
    /// The URL its ISO was registered from, when known.
    pub url: Option<String>,
}

/// What `--retire-eol` may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetireScope {
    /// The catalog's oldest minor (`(1, 31)`): only older minors are retired.
    pub oldest_minor: (u64, u64),
    /// The folders (URL up to and with its last `/`) the catalog's ISOs are published in: only
    /// versions whose ISO URL starts with one are the catalog's.
    pub folders: BTreeSet<String>,
    /// Whether every zone was asked for: only then is a version for every zone retired.
    pub all_zones: bool,
}

impl RetireScope {
    /// The scope of a catalog whose ISOs (each with its URL) are `isos`; `None` for an empty
    /// catalog (which retires nothing).
    pub fn of(isos: &[CatalogIso], all_zones: bool) -> Option<RetireScope> {
        let oldest_minor = isos.iter().map(|i| minor_key(&i.minor)).min()?;
        let folders = isos
            .iter()
            .filter_map(|i| i.url.as_deref())
            .filter_map(|url| url.rfind('/').map(|at| url[..=at].to_string()))
            .collect();
        Some(RetireScope {
            oldest_minor,
            folders,
            all_zones,
        })
    }

    /// Whether `e`'s ISO came from one of the catalog's folders.
    fn covers(&self, e: &Existing) -> bool {
        e.url
            .as_deref()
            .is_some_and(|url| self.folders.iter().any(|f| url.starts_with(f.as_str())))
    }
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

fn minor_of(semantic_version: &str) -> Option<(u64, u64)> {
    KubeVersion::parse(semantic_version)
        .ok()
        .map(|v| (v.major, v.minor))
}

/// The plan: for each zone (in the order given) each selected ISO registered or present, then,
/// with a `retire` scope, each version it covers (see the module doc).
pub fn plan(
    selected: &[CatalogIso],
    zones: &[ZoneRef],
    existing: &[Existing],
    retire: Option<&RetireScope>,
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
    if let Some(scope) = retire {
        for e in existing {
            let zone = match &e.zone_id {
                None if scope.all_zones => None,
                None => continue,
                Some(id) => match zones.iter().find(|z| z.id == *id) {
                    Some(zone) => Some(zone.clone()),
                    None => continue,
                },
            };
            let Some(minor) = minor_of(&e.semantic_version) else {
                continue;
            };
            if minor >= scope.oldest_minor || !scope.covers(e) {
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

    const FOLDER: &str = "https://images.example/cks/";

    fn iso(version: &str, arch: &str) -> CatalogIso {
        let v = KubeVersion::parse(version).expect("version");
        let file = format!("cks-{version}-{arch}.iso");
        CatalogIso {
            kubernetes_version: version.into(),
            minor: v.minor_line(),
            arch: arch.into(),
            url: Some(format!("{FOLDER}{file}")),
            file,
            size: 1,
            sha256: format!("{:0>64}", v.patch),
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
            url: Some(format!("{FOLDER}cks-{version}-x86_64.iso")),
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

    fn brief(steps: &[Step]) -> Vec<String> {
        steps
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
        let mut used = existing("old-used", "1.30.1", None, None);
        used.in_use = true;
        let have = vec![
            existing("p", "1.33.2", Some("zone-a"), Some(isos[0].sha256.clone())),
            existing("c", "1.32.9", Some("zone-b"), Some("f".repeat(64))),
            existing("old", "1.31.4", Some("zone-a"), None),
            existing("elsewhere", "1.29.0", Some("zone-z"), None),
            used,
        ];
        let scope = RetireScope::of(&isos, true).expect("a scope");
        let steps = plan(&isos, &zones(), &have, Some(&scope));
        assert_eq!(
            brief(&steps),
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
            !plan(&isos, &zones(), &have, None)
                .iter()
                .any(|s| matches!(s, Step::Retire { .. }))
        );
    }

    #[test]
    fn only_the_catalogs_older_minors_in_the_zones_asked_for_are_retired() {
        // The catalog has 1.32 and 1.33; CloudStack has a newer minor, a hand-registered old
        // one, an old one for every zone and an old one of the catalog's folder.
        let isos = vec![iso("1.33.2", "x86_64"), iso("1.32.9", "x86_64")];
        let mut by_hand = existing("by-hand", "1.30.1", Some("zone-a"), None);
        by_hand.url = Some("https://elsewhere.example/my.iso".into());
        let mut unknown = existing("no-url", "1.30.2", Some("zone-a"), None);
        unknown.url = None;
        let have = vec![
            existing("newer", "1.34.0", Some("zone-a"), None),
            existing("skipped-minor", "1.31.9", Some("zone-a"), None),
            by_hand,
            unknown,
            existing("every-zone", "1.30.3", None, None),
            existing("ours", "1.30.4", Some("zone-a"), None),
        ];
        let named = RetireScope::of(&isos, false).expect("a scope");
        let retired: Vec<String> = brief(&plan(&[], &zones()[..1], &have, Some(&named)));
        assert_eq!(
            retired,
            ["retire a skipped-minor Delete", "retire a ours Delete"]
        );
        let all = RetireScope::of(&isos, true).expect("a scope");
        let retired: Vec<String> = brief(&plan(&[], &zones()[..1], &have, Some(&all)));
        assert_eq!(
            retired,
            [
                "retire a skipped-minor Delete",
                "retire all every-zone Delete",
                "retire a ours Delete"
            ]
        );
        assert_eq!(
            RetireScope::of(&[], true),
            None,
            "an empty catalog retires nothing"
        );
    }

    #[test]
    fn a_disabled_version_in_use_is_left_as_it_is() {
        let mut used = existing("u", "1.30.1", None, None);
        used.in_use = true;
        used.enabled = false;
        let scope = RetireScope::of(&[iso("1.33.2", "x86_64")], true).expect("a scope");
        let steps = plan(&[], &zones(), &[used], Some(&scope));
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
