//! Which dashboards a build carries and which CloudStack lines they must fit, checked before
//! anything is fetched.

use cks_pinning::headlamp::HeadlampVersion;
use cks_pinning::node_contract::{FitError, Line, Target};

use super::error::OptionsError;

/// The dashboards of a build and the lines they must fit, checked before anything is fetched.
pub(super) struct Dashboards {
    pub(super) dashboard_yaml: Option<String>,
    pub(super) headlamp: Option<HeadlampVersion>,
    pub(super) cloudstack: Target,
}

impl Dashboards {
    pub(super) fn resolve(
        dashboard_yaml: Option<String>,
        headlamp_version: Option<String>,
        cloudstack: Option<String>,
    ) -> Result<Dashboards, OptionsError> {
        let given_line = cloudstack.is_some();
        let cloudstack = match cloudstack {
            None => Target::Any,
            Some(text) => text.parse().map_err(|_| OptionsError::Invalid {
                input: "--cloudstack".into(),
                value: text,
                expected: "expected 4.20, 4.22, 4.23 or any".into(),
            })?,
        };
        let headlamp = match headlamp_version.filter(|v| !v.is_empty()) {
            None => None,
            Some(text) => {
                Some(
                    HeadlampVersion::parse(&text).map_err(|e| OptionsError::Invalid {
                        input: "--headlamp".into(),
                        value: text.clone(),
                        expected: e.to_string(),
                    })?,
                )
            }
        };
        let dashboard_yaml = dashboard_yaml.filter(|d| !d.is_empty());
        let planned =
            super::super::fit::planned_root_files(dashboard_yaml.is_some(), headlamp.is_some());
        let planned: Vec<&str> = planned.iter().map(String::as_str).collect();
        // Headlamp alone is the 4.23 script's sixth argument: unless told otherwise, the ISO
        // is for that script's line.
        let cloudstack = match (given_line, dashboard_yaml.is_some(), headlamp.is_some()) {
            (false, false, true) => Target::Line(Line::V4_23),
            _ => cloudstack,
        };
        cks_pinning::node_contract::require_fit(cloudstack, &planned).map_err(|e| {
            tracing::debug!("{e}");
            unfit(describe(dashboard_yaml.is_some(), headlamp.as_ref()), &e)
        })?;
        Ok(Dashboards {
            dashboard_yaml,
            headlamp,
            cloudstack,
        })
    }
}

/// The dashboards given, as the refusal names them.
fn describe(dashboard: bool, headlamp: Option<&HeadlampVersion>) -> String {
    match (dashboard, headlamp) {
        (true, Some(v)) => format!("an ISO with the legacy dashboard and Headlamp {v}"),
        (true, None) => "an ISO with only the legacy dashboard".to_string(),
        (false, Some(v)) => format!("an ISO with only Headlamp {v}"),
        (false, None) => {
            "an ISO with no dashboard (neither DASHBOARD_YAML nor --headlamp)".to_string()
        }
    }
}

/// The one-sentence refusal of `error`: the lines refusing and what they miss.
fn unfit(given: String, error: &FitError) -> OptionsError {
    let mut lines: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for (line, misfit) in &error.misfits {
        let name = line.to_string();
        if !lines.contains(&name) {
            lines.push(name);
        }
        if !missing.contains(&misfit.missing) {
            missing.push(misfit.missing.clone());
        }
    }
    // `dashboard.yaml` meets `headlamp.yaml or dashboard.yaml` too: name only the stricter.
    let all = missing.clone();
    missing.retain(|m| {
        !all.iter()
            .any(|other| other != m && m.contains(other.as_str()))
    });
    OptionsError::Unfit {
        given,
        lines: lines.join(", "),
        missing: missing.join(", "),
    }
}
