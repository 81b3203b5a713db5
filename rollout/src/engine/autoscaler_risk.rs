//! The autoscaler risk on CloudStack 4.21 and later (apache/cloudstack#11994): a size-only
//! `scaleKubernetesCluster` (what the cluster autoscaler sends) compares every worker's offering
//! with the cluster's default offering and, on KVM, fails while the workers run on another one.
//! So moving the worker type off the cluster's default, with autoscaling enabled, is refused
//! unless the operator accepts the risk.

use std::fmt;

/// A CloudStack release, `major.minor` of `cloudstackversion` (`4.21.0.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CloudStackVersion {
    /// The major number (4).
    pub major: u32,
    /// The minor number (21).
    pub minor: u32,
}

impl CloudStackVersion {
    /// The first release with the risk.
    pub const RISKY_SINCE: CloudStackVersion = CloudStackVersion {
        major: 4,
        minor: 21,
    };

    /// Parses `4.21.0.0` (or `4.21.0.0-SNAPSHOT`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split(['.', '-']);
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(CloudStackVersion { major, minor })
    }
}

impl fmt::Display for CloudStackVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What CloudStack says about the cluster and itself, and what the update asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoscalerRiskInput<'a> {
    /// The server's version, `None` when `listCapabilities` did not say.
    pub version: Option<CloudStackVersion>,
    /// The cluster's `autoscalingenabled`.
    pub autoscaling: bool,
    /// The cluster's default offering (`serviceofferingid`).
    pub default_offering: &'a str,
    /// The worker offering the update asks for, if any.
    pub worker_offering: Option<&'a str>,
    /// `--accept-autoscaler-risk`.
    pub accepted: bool,
}

/// The worker move refused for the autoscaler's sake.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "moving the worker nodes of cluster {cluster} to offering {offering} (the cluster's default is {default}) with autoscaling enabled on CloudStack {version} breaks the autoscaler: a size-only scaleKubernetesCluster compares each worker's offering with the default and fails on KVM (apache/cloudstack#11994); disable autoscaling, keep the workers on the default offering, or pass --accept-autoscaler-risk"
)]
pub struct AutoscalerRiskRefused {
    /// The cluster id.
    pub cluster: String,
    /// The offering asked for.
    pub offering: String,
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
) -> Result<Option<String>, AutoscalerRiskRefused> {
    let Some(offering) = input.worker_offering else {
        return Ok(None);
    };
    let risky_version = input
        .version
        .is_none_or(|v| v >= CloudStackVersion::RISKY_SINCE);
    if !input.autoscaling || offering == input.default_offering || !risky_version {
        return Ok(None);
    }
    let refused = AutoscalerRiskRefused {
        cluster: cluster.to_string(),
        offering: offering.to_string(),
        default: input.default_offering.to_string(),
        version: input
            .version
            .map_or("(version unknown)".to_string(), |v| v.to_string()),
    };
    if input.accepted {
        return Ok(Some(format!(
            "risk accepted: the autoscaler's scale calls may fail while the workers are off the default offering (apache/cloudstack#11994), and the cluster goes to Alert when one does ({})",
            refused.version
        )));
    }
    Err(refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(
        version: Option<&str>,
        autoscaling: bool,
        accepted: bool,
    ) -> AutoscalerRiskInput<'static> {
        AutoscalerRiskInput {
            version: version.and_then(CloudStackVersion::parse),
            autoscaling,
            default_offering: "small",
            worker_offering: Some("big"),
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
        let e = check_autoscaler_risk("k1", &input(Some("4.21.0.0"), true, false))
            .expect_err("refused");
        let line = e.to_string();
        assert!(
            line.contains("apache/cloudstack#11994") && line.contains("--accept-autoscaler-risk"),
            "{line}"
        );
        assert!(check_autoscaler_risk("k1", &input(None, true, false)).is_err());
        let note =
            check_autoscaler_risk("k1", &input(Some("4.22.0.0"), true, true)).expect("accepted");
        assert!(note.is_some_and(|n| n.contains("11994")));
    }

    #[test]
    fn no_risk_before_4_21_without_autoscaling_or_on_the_default_offering() {
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.20.1.0"), true, false)),
            Ok(None)
        );
        assert_eq!(
            check_autoscaler_risk("k1", &input(Some("4.21.0.0"), false, false)),
            Ok(None)
        );
        let mut same = input(Some("4.21.0.0"), true, false);
        same.worker_offering = Some("small");
        assert_eq!(check_autoscaler_risk("k1", &same), Ok(None));
        same.worker_offering = None;
        assert_eq!(check_autoscaler_risk("k1", &same), Ok(None));
    }
}
