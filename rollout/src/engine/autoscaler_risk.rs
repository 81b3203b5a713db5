//! The autoscaler risk on CloudStack 4.21 and later (apache/cloudstack#11994): a size-only
//! `scaleKubernetesCluster` (what the cluster autoscaler sends) compares the offering of every
//! node (control, etcd and worker alike) with the cluster's default offering and, on KVM, fails
//! while any runs on another one. So moving any node type off the cluster's default, with
//! autoscaling enabled, is refused unless the operator accepts the risk.

use std::collections::BTreeMap;

use super::note::Note;
use crate::model::CksCluster;
use crate::ports::Cloud;

pub use crate::model::CloudStackVersion;

/// What CloudStack says about the cluster and itself, and what the update asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoscalerRiskInput<'a> {
    /// The server's version, `None` when `listCapabilities` did not say.
    pub version: Option<CloudStackVersion>,
    /// The cluster's `autoscalingenabled`.
    pub autoscaling: bool,
    /// The cluster's default offering (`serviceofferingid`).
    pub default_offering: &'a str,
    /// The offerings the update asks for, by node type (`control`, `etcd`, `worker`).
    pub node_offerings: &'a BTreeMap<String, String>,
    /// `--accept-autoscaler-risk`.
    pub accepted: bool,
}

/// The moves off the default offering refused for the autoscaler's sake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "moving the {moves} of cluster {cluster} (the cluster's default offering is {default}) with autoscaling enabled on CloudStack {version} breaks the autoscaler: a size-only scaleKubernetesCluster compares every control, etcd and worker node's offering with the default and fails on KVM (apache/cloudstack#11994); disable autoscaling, keep the nodes on the default offering, or pass --accept-autoscaler-risk"
)]
pub struct AutoscalerRiskRefused {
    /// The cluster id.
    pub cluster: String,
    /// The moves off the default, e.g. `control nodes to big, worker nodes to big`.
    pub moves: String,
    /// The cluster's default offering.
    pub default: String,
    /// The server's version, as shown.
    pub version: String,
}

/// `Err` when the update must be refused; `Ok(Some(note))` when the risk was accepted (the
/// note says what it means); `Ok(None)` when there is no risk. An unknown version counts as
/// one with the risk.
pub fn check_autoscaler_risk(
    cluster: &str,
    input: &AutoscalerRiskInput<'_>,
) -> Result<Option<Note>, AutoscalerRiskRefused> {
    let moves: Vec<String> = input
        .node_offerings
        .iter()
        .filter(|(_, offering)| offering.as_str() != input.default_offering)
        .map(|(node_type, offering)| format!("{node_type} nodes to {offering}"))
        .collect();
    let risky_version = input
        .version
        .is_none_or(|v| v >= CloudStackVersion::RISKY_SINCE);
    if !input.autoscaling || moves.is_empty() || !risky_version {
        return Ok(None);
    }
    let refused = AutoscalerRiskRefused {
        cluster: cluster.to_string(),
        moves: moves.join(", "),
        default: input.default_offering.to_string(),
        version: input
            .version
            .map_or("(version unknown)".to_string(), |v| v.to_string()),
    };
    if input.accepted {
        return Ok(Some(Note::AutoscalerRiskAccepted {
            version: refused.version,
        }));
    }
    Err(refused)
}

/// The autoscaler risk of an update asking for `node_offerings` (by node type; `accepted`: the
/// operator accepts the risk) on the cluster CloudStack reports as `cks`: the server's version
/// is asked of `cloud` only when the cluster autoscales and offerings are asked for (a version
/// that cannot be read counts as one with the risk).
pub fn refuse_autoscaler_risk(
    cloud: &mut dyn Cloud,
    cks: &CksCluster,
    node_offerings: &BTreeMap<String, String>,
    accepted: bool,
) -> Result<Option<Note>, AutoscalerRiskRefused> {
    if !cks.autoscaling_enabled || node_offerings.is_empty() {
        return Ok(None);
    }
    let version = cloud.cloudstack_version().ok().flatten();
    let input = AutoscalerRiskInput {
        version,
        autoscaling: cks.autoscaling_enabled,
        default_offering: &cks.service_offering_id,
        node_offerings,
        accepted,
    };
    check_autoscaler_risk(&cks.id, &input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(t, o)| (t.to_string(), o.to_string()))
            .collect()
    }

    fn input<'a>(
        version: Option<&str>,
        autoscaling: bool,
        accepted: bool,
        node_offerings: &'a BTreeMap<String, String>,
    ) -> AutoscalerRiskInput<'a> {
        AutoscalerRiskInput {
            version: version.and_then(CloudStackVersion::parse),
            autoscaling,
            default_offering: "small",
            node_offerings,
            accepted,
        }
    }

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(
            CloudStackVersion::parse("4.21.0.0"),
            Some(CloudStackVersion {
                major: 4,
                minor: 21
            })
        );
        assert_eq!(
            CloudStackVersion::parse("4.22.1.0-SNAPSHOT").map(|v| v.to_string()),
            Some("4.22".to_string())
        );
        assert!(CloudStackVersion::parse("4.20.1.0") < Some(CloudStackVersion::RISKY_SINCE));
        assert_eq!(CloudStackVersion::parse("nope"), None);
    }

    #[test]
    fn a_worker_move_off_the_default_with_autoscaling_on_4_21_is_refused_unless_accepted() {
        let worker = moves(&[("worker", "big")]);
        let e = check_autoscaler_risk("k1", &input(Some("4.21.0.0"), true, false, &worker))
            .expect_err("refused");
        let line = e.to_string();
        assert!(
            line.contains("apache/cloudstack#11994")
                && line.contains("--accept-autoscaler-risk")
                && line.contains("worker nodes to big"),
            "{line}"
        );
        assert!(check_autoscaler_risk("k1", &input(None, true, false, &worker)).is_err());
        let note = check_autoscaler_risk("k1", &input(Some("4.22.0.0"), true, true, &worker))
            .expect("accepted");
        assert!(note.is_some_and(|n| n.to_string().contains("11994")));
    }

    #[test]
    fn a_control_or_etcd_move_off_the_default_is_refused_too() {
        for node_type in ["control", "etcd"] {
            let moved = moves(&[(node_type, "big"), ("worker", "small")]);
            let e = check_autoscaler_risk("k1", &input(Some("4.21.0.0"), true, false, &moved))
                .expect_err("refused");
            let line = e.to_string();
            assert!(
                line.contains(&format!("{node_type} nodes to big")),
                "{line}"
            );
            assert!(!line.contains("worker nodes"), "{line}");
        }
        let both = moves(&[("control", "big"), ("etcd", "mid")]);
        let e = check_autoscaler_risk("k1", &input(None, true, false, &both)).expect_err("refused");
        assert_eq!(e.moves, "control nodes to big, etcd nodes to mid");
    }

    #[test]
    fn no_risk_before_4_21_without_autoscaling_or_on_the_default_offering() {
        let worker = moves(&[("worker", "big")]);
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.20.1.0"), true, false, &worker)),
            Ok(None)
        );
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.21.0.0"), false, false, &worker)),
            Ok(None)
        );
        let same = moves(&[("control", "small"), ("worker", "small")]);
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.21.0.0"), true, false, &same)),
            Ok(None)
        );
        let none = BTreeMap::new();
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.21.0.0"), true, false, &none)),
            Ok(None)
        );
    }
}
