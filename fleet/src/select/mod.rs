//! Which clusters a fleet takes, from CloudStack's facts (zone, project, account and domain,
//! Kubernetes version range, name pattern, CKS state), and which of those it refuses before
//! anything acts, with the reason. Pure: the clusters and versions come in as CloudStack listed
//! them.

mod pattern;

use cks_cloudstack::cluster::KubernetesCluster;
use cks_cloudstack::kubernetes::KubernetesVersion;
use serde::Deserialize;

use crate::model::SkippedCluster;
pub use pattern::matches_pattern;

/// The filters, all of which a cluster must pass (an absent one passes every cluster).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// The zone, by id or name.
    pub zone: Option<String>,
    /// The owning project, by id or name.
    pub project: Option<String>,
    /// The owning account.
    pub account: Option<String>,
    /// The domain, by id or name.
    pub domain: Option<String>,
    /// The Kubernetes version range, e.g. `<1.33`, `>=1.31, <1.33`, `1.32.4`.
    pub version: Option<String>,
    /// The cluster's name, a pattern with `*` and `?`.
    pub name: Option<String>,
    /// The CKS state (`Running`, `Alert`, ...).
    pub state: Option<String>,
    /// Only these cluster ids.
    #[serde(default)]
    pub ids: Vec<String>,
}

/// Why a selection was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// A version range that does not parse.
    #[error("version range {text:?}: {detail}; expected e.g. <1.33, >=1.31,<1.33 or 1.32.4")]
    BadRange {
        /// The range as given.
        text: String,
        /// What semver said.
        detail: String,
    },
    /// A selected cluster runs a newer version than the target.
    #[error(
        "cluster {name} ({id}) runs {version}, newer than the target {target}: CloudStack does not downgrade; narrow the selection (e.g. version = \"<{target}\")"
    )]
    Downgrade {
        /// The cluster's name.
        name: String,
        /// Its id.
        id: String,
        /// Its version.
        version: String,
        /// The target.
        target: String,
    },
}

/// A version range: a bare version means exactly it.
pub fn parse_range(text: &str) -> Result<semver::VersionReq, SelectError> {
    let text = text.trim();
    let exact = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == 'v');
    let written = if exact {
        format!("={}", text.trim_start_matches('v'))
    } else {
        text.to_string()
    };
    semver::VersionReq::parse(&written).map_err(|e| SelectError::BadRange {
        text: text.to_string(),
        detail: e.to_string(),
    })
}

/// A cluster the fleet takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The project owning it.
    pub project: Option<String>,
    /// Its Kubernetes version now.
    pub version: String,
}

/// What the selection kept: the clusters to act on, those refused with the reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picked {
    /// To act on, in name order.
    pub clusters: Vec<Candidate>,
    /// Selected but refused.
    pub refused: Vec<SkippedCluster>,
}

/// The version a cluster runs, from the versions CloudStack lists.
pub fn version_of<'v>(
    cluster: &KubernetesCluster,
    versions: &'v [KubernetesVersion],
) -> Option<&'v KubernetesVersion> {
    versions
        .iter()
        .find(|v| v.id == cluster.kubernetes_version_id)
}

/// The semantic version of `version`, when it parses.
pub fn semantic(version: &KubernetesVersion) -> Option<semver::Version> {
    semver::Version::parse(version.semantic_version.trim().trim_start_matches('v')).ok()
}

fn is(given: &Option<String>, id: &str, name: &str) -> bool {
    given
        .as_ref()
        .is_none_or(|g| g == id || g.eq_ignore_ascii_case(name))
}

/// The clusters `selection` keeps, and, with an upgrade to `target`, those it must refuse:
/// not Running, the version not Ready or not in the cluster's zone, already on it. A cluster
/// newer than `target` is an error naming it: the selection asks for a downgrade.
pub fn pick(
    clusters: &[KubernetesCluster],
    versions: &[KubernetesVersion],
    selection: &Selection,
    target: Option<&KubernetesVersion>,
) -> Result<Picked, SelectError> {
    let range = selection.version.as_deref().map(parse_range).transpose()?;
    let to = target.and_then(semantic);
    let mut picked = Picked::default();
    let mut sorted: Vec<&KubernetesCluster> = clusters.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    for c in sorted {
        let current = version_of(c, versions);
        let current_semver = current.and_then(semantic);
        let project_name = c.project.clone().unwrap_or_default();
        let keep = (selection.ids.is_empty() || selection.ids.contains(&c.id))
            && is(&selection.zone, &c.zone_id, &c.zone_name)
            && (selection.project.is_none()
                || c.project_id
                    .as_deref()
                    .is_some_and(|p| is(&selection.project, p, &project_name)))
            && selection
                .account
                .as_ref()
                .is_none_or(|a| a.eq_ignore_ascii_case(&c.account))
            && is(&selection.domain, &c.domain_id, &c.domain)
            && selection
                .name
                .as_ref()
                .is_none_or(|p| matches_pattern(p, &c.name))
            && selection
                .state
                .as_ref()
                .is_none_or(|s| s.eq_ignore_ascii_case(&c.state))
            && range
                .as_ref()
                .is_none_or(|r| current_semver.as_ref().is_some_and(|v| r.matches(v)));
        if !keep {
            continue;
        }
        let shown_version = current_semver
            .as_ref()
            .map_or_else(|| c.kubernetes_version_name.clone(), ToString::to_string);
        let refuse = |reason: String| SkippedCluster {
            id: c.id.clone(),
            name: c.name.clone(),
            reason,
        };
        if let (Some(target), Some(to)) = (target, &to) {
            if let Some(v) = &current_semver
                && v > to
            {
                return Err(SelectError::Downgrade {
                    name: c.name.clone(),
                    id: c.id.clone(),
                    version: v.to_string(),
                    target: to.to_string(),
                });
            }
            if current_semver.as_ref() == Some(to) {
                picked.refused.push(refuse(format!("already on {to}")));
                continue;
            }
            if c.state != "Running" {
                picked.refused.push(refuse(format!(
                    "it is {}, not Running; CloudStack upgrades only a Running cluster",
                    c.state
                )));
                continue;
            }
            if let Some(zone) = target
                .zone_id
                .as_deref()
                .filter(|z| !z.is_empty() && *z != c.zone_id)
            {
                picked.refused.push(refuse(format!(
                    "version {} is registered in zone {zone}, not in the cluster's zone {}",
                    target.name,
                    if c.zone_name.is_empty() {
                        &c.zone_id
                    } else {
                        &c.zone_name
                    }
                )));
                continue;
            }
            if current_semver.is_none() {
                picked.refused.push(refuse(format!(
                    "its version {:?} is not one CloudStack lists with a semantic version",
                    c.kubernetes_version_id
                )));
                continue;
            }
        } else if c.state != "Running" {
            picked
                .refused
                .push(refuse(format!("it is {}, not Running", c.state)));
            continue;
        }
        picked.clusters.push(Candidate {
            id: c.id.clone(),
            name: c.name.clone(),
            project: c.project.clone().or_else(|| c.project_id.clone()),
            version: shown_version,
        });
    }
    Ok(picked)
}

#[cfg(test)]
mod tests;
