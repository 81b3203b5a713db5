//! The checks before `upgradeKubernetesCluster`, with no I/O: which registered version `--to`
//! names (its id, its name or its semantic version), and whether the cluster may go there (it
//! is `Running`, the version's ISO is `Ready` and the version is newer than the cluster's).

use cks_cloudstack::kubernetes::KubernetesVersion;

/// Why the upgrade is refused before CloudStack is asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The cluster is not `Running`.
    #[error(
        "cluster {cluster} is {state}, not Running; CloudStack upgrades only a Running cluster (wait, or recover it first)"
    )]
    NotRunning {
        /// The cluster id.
        cluster: String,
        /// Its state.
        state: String,
    },
    /// No single registered version is the one `--to` names.
    #[error(transparent)]
    Choice(#[from] cks_cloudstack::kubernetes::VersionChoiceError),
    /// The version's ISO is not ready, or the version is disabled.
    #[error(
        "version {name} is not usable: its state is {state} and its ISO's is {iso_state}; wait until the ISO is Ready"
    )]
    NotReady {
        /// The version's name.
        name: String,
        /// `state`.
        state: String,
        /// `isostate`.
        iso_state: String,
    },
    /// The version is not newer than the cluster's.
    #[error(
        "version {name} ({target}) is not newer than the cluster's {current}; CloudStack upgrades only to a newer version"
    )]
    NotNewer {
        /// The version's name.
        name: String,
        /// Its semantic version.
        target: String,
        /// The cluster's.
        current: String,
    },
    /// A semantic version that does not parse.
    #[error("version {name}: semantic version {text:?} is not MAJOR.MINOR.PATCH")]
    BadSemanticVersion {
        /// The version's name.
        name: String,
        /// What CloudStack gave.
        text: String,
    },
}

fn semantic(version: &KubernetesVersion) -> Result<semver::Version, Refusal> {
    let text = version.semantic_version.trim().trim_start_matches('v');
    semver::Version::parse(text).map_err(|_| Refusal::BadSemanticVersion {
        name: version.name.clone(),
        text: version.semantic_version.clone(),
    })
}

/// The version `given` names: its id, else its name, else its semantic version (`v` optional).
pub fn choose<'a>(
    given: &str,
    versions: &'a [KubernetesVersion],
) -> Result<&'a KubernetesVersion, Refusal> {
    Ok(cks_cloudstack::kubernetes::choose_version(given, versions)?)
}

/// Whether the cluster `cluster` in `state`, now on `current`, may be upgraded to `target`.
pub fn check(
    cluster: &str,
    state: &str,
    current: Option<&KubernetesVersion>,
    target: &KubernetesVersion,
) -> Result<(), Refusal> {
    if state != "Running" {
        return Err(Refusal::NotRunning {
            cluster: cluster.to_string(),
            state: state.to_string(),
        });
    }
    let enabled = target.state.is_empty() || target.state.eq_ignore_ascii_case("Enabled");
    if !enabled || target.iso_state != "Ready" {
        return Err(Refusal::NotReady {
            name: target.name.clone(),
            state: target.state.clone(),
            iso_state: target.iso_state.clone(),
        });
    }
    if let Some(current) = current {
        let (to, from) = (semantic(target)?, semantic(current)?);
        if to <= from {
            return Err(Refusal::NotNewer {
                name: target.name.clone(),
                target: to.to_string(),
                current: from.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(id: &str, name: &str, semver: &str, iso: &str) -> KubernetesVersion {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": name, "semanticversion": semver, "isostate": iso, "state": "Enabled",
        }))
        .expect("version")
    }

    #[test]
    fn to_names_a_version_by_id_name_or_semantic_version() {
        let versions = [
            version("a", "v1.32.4", "1.32.4", "Ready"),
            version("b", "k8s-1.33", "1.33.1", "Ready"),
        ];
        assert_eq!(choose("b", &versions).expect("id").id, "b");
        assert_eq!(choose("k8s-1.33", &versions).expect("name").id, "b");
        assert_eq!(choose("v1.33.1", &versions).expect("semver").id, "b");
        assert_eq!(choose("1.32.4", &versions).expect("semver").id, "a");
        let error = choose("1.34.0", &versions).expect_err("unknown");
        assert!(error.to_string().contains("k8s-1.33 (1.33.1)"), "{error}");
    }

    #[test]
    fn refuses_a_cluster_not_running_a_version_not_ready_or_not_newer() {
        let old = version("a", "v1.32.4", "1.32.4", "Ready");
        let new = version("b", "v1.33.1", "1.33.1", "Ready");
        let creating = version("c", "v1.34.0", "1.34.0", "Creating");
        assert!(check("k", "Running", Some(&old), &new).is_ok());
        assert!(matches!(
            check("k", "Alert", Some(&old), &new),
            Err(Refusal::NotRunning { .. })
        ));
        assert!(matches!(
            check("k", "Running", Some(&old), &creating),
            Err(Refusal::NotReady { .. })
        ));
        assert!(matches!(
            check("k", "Running", Some(&new), &old),
            Err(Refusal::NotNewer { .. })
        ));
        assert!(matches!(
            check("k", "Running", Some(&new), &new),
            Err(Refusal::NotNewer { .. })
        ));
    }
}
