//! The fleet planned from CloudStack's facts and the operator's file and flags: the selection,
//! the refusals with their reasons, the stages, the actions; printed by `plan`, stored by the
//! first `run`.

use cks_cloudstack::CloudStackClient;
use cks_rollout::engine::window::Window;

use super::args::PlanArgs;
use super::{Failure, bad};
use crate::model::{Actions, FleetPlan, FleetRecord, NodeSettings, TargetVersion};
use crate::select::{Selection, pick, semantic};
use crate::stages::{FleetFile, StageSpec, check_stage, parse_fleet_file, split};

/// Why a `--stage` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StageFlagError {
    /// A part that is not `KEY=VALUE`.
    #[error("--stage {text:?}: {pair:?} is not KEY=VALUE")]
    NotPair {
        /// The whole value.
        text: String,
        /// The part.
        pair: String,
    },
    /// A count that is not a whole number.
    #[error("--stage {text:?}: {key}={value:?} is not a whole number")]
    NotNumber {
        /// The whole value.
        text: String,
        /// The key.
        key: String,
        /// Its value.
        value: String,
    },
    /// A key `--stage` does not know.
    #[error(
        "--stage {text:?}: unknown key {key:?}; expected name, clusters, percent, parallelism, soak or halt_after"
    )]
    UnknownKey {
        /// The whole value.
        text: String,
        /// The key.
        key: String,
    },
}

/// Parses `--stage name=canary,clusters=1,soak=30m`.
pub fn parse_stage(text: &str) -> Result<StageSpec, StageFlagError> {
    let mut s = StageSpec::default();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| StageFlagError::NotPair {
                text: text.to_string(),
                pair: pair.to_string(),
            })?;
        let number = || {
            value.parse::<u32>().map_err(|_| StageFlagError::NotNumber {
                text: text.to_string(),
                key: key.to_string(),
                value: value.to_string(),
            })
        };
        match key {
            "name" => s.name = Some(value.to_string()),
            "clusters" => s.clusters = Some(number()?),
            "percent" => s.percent = Some(number()?),
            "parallelism" => s.parallelism = Some(number()?),
            "halt_after" => s.halt_after = Some(number()?),
            "soak" => s.soak = Some(value.to_string()),
            other => {
                return Err(StageFlagError::UnknownKey {
                    text: text.to_string(),
                    key: other.to_string(),
                });
            }
        }
    }
    Ok(s)
}

/// The file, with the flags over it.
fn merged(args: &PlanArgs) -> Result<FleetFile, Failure> {
    let mut file = match &args.file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad(format!("--file {}: {e}", path.display())))?;
            parse_fleet_file(&text, &path.display().to_string()).map_err(|e| bad(e.0))?
        }
        None => FleetFile::default(),
    };
    if args.to.is_some() {
        file.to = args.to.clone();
    }
    if !(args.offerings.is_empty()
        && args.root_disk_sizes.is_empty()
        && args.affinity_groups.is_empty())
    {
        let s = file.settings.get_or_insert_default();
        s.offering = args.offerings.clone();
        s.root_disk_size = args.root_disk_sizes.clone();
        s.affinity_groups = args.affinity_groups.clone();
    }
    let sel = &mut file.select;
    for (slot, flag) in [
        (&mut sel.zone, &args.zone),
        (&mut sel.project, &args.project),
        (&mut sel.account, &args.account),
        (&mut sel.domain, &args.domain),
        (&mut sel.version, &args.version),
        (&mut sel.name, &args.cluster_name),
        (&mut sel.state, &args.state),
    ] {
        if flag.is_some() {
            slot.clone_from(flag);
        }
    }
    if !args.cluster_ids.is_empty() {
        sel.ids = args.cluster_ids.clone();
    }
    if !args.stages.is_empty() {
        file.stages = args
            .stages
            .iter()
            .map(|s| parse_stage(s))
            .collect::<Result<_, _>>()
            .map_err(|e: StageFlagError| bad(e.to_string()))?;
        for (i, s) in file.stages.iter().enumerate() {
            check_stage(s, i, "--stage").map_err(|e| bad(e.0))?;
        }
    }
    if let Some(n) = args.halt_after {
        if n == 0 {
            return Err(bad(
                "--halt-after 0: expected 1 or more failed clusters".into()
            ));
        }
        file.halt_after = Some(n);
    }
    file.gates.extend(args.gates.iter().cloned());
    file.windows.extend(args.windows.iter().cloned());
    Ok(file)
}

/// The fleet `args` describe, from what CloudStack lists now; the stages dropped as empty.
pub fn plan(
    fleet: &str,
    args: &PlanArgs,
    client: &CloudStackClient,
    now_ms: u64,
) -> Result<(FleetRecord, Vec<String>), Failure> {
    let file = merged(args)?;
    if let Some(range) = &file.select.version {
        crate::select::parse_range(range).map_err(|e| bad(e.to_string()))?;
    }
    let windows = file
        .windows
        .iter()
        .map(|w| Window::parse(w).map_err(|e| bad(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = file
        .settings
        .as_ref()
        .map(|s| NodeSettings {
            offerings: s.offering.clone(),
            root_disk_sizes: s.root_disk_size.clone(),
            affinity_groups: s.affinity_groups.clone(),
        })
        .filter(|s| !s.is_empty());
    if file.to.is_none() && settings.is_none() {
        return Err(bad("nothing to do: give --to VERSION, node settings (--offering, --root-disk-size, --affinity-groups), or both".into()));
    }
    let versions = client.list_kubernetes_versions(None).map_err(|e| {
        Failure::Run(format!(
            "reading the Kubernetes versions (listKubernetesSupportedVersions): {e}"
        ))
    })?;
    let target = match &file.to {
        Some(to) => {
            let v = cks_cloudstack::kubernetes::choose_version(to, &versions)
                .map_err(|e| bad(e.to_string()))?;
            let enabled = v.state.is_empty() || v.state.eq_ignore_ascii_case("Enabled");
            if !enabled || v.iso_state != "Ready" {
                return Err(bad(format!(
                    "--to {to}: version {} is {} and its ISO {}; wait until it is Enabled and Ready",
                    v.name, v.state, v.iso_state
                )));
            }
            Some(v.clone())
        }
        None => None,
    };
    let clusters = client.list_kubernetes_clusters().map_err(|e| {
        Failure::Run(format!(
            "listing the clusters (listKubernetesClusters): {e}"
        ))
    })?;
    let picked = pick(&clusters, &versions, &file.select, target.as_ref())
        .map_err(|e| bad(e.to_string()))?;
    let ids: Vec<String> = picked.clusters.iter().map(|c| c.id.clone()).collect();
    let (stages, dropped) = split(
        &ids,
        &file.stages,
        file.halt_after.unwrap_or(1),
        &file.gates,
    )
    .map_err(|e| bad(e.0))?;
    let upgrade = match &target {
        Some(v) => Some(TargetVersion {
            id: v.id.clone(),
            name: v.name.clone(),
            semver: semantic(v).ok_or_else(|| {
                bad(format!(
                    "--to: version {} has no semantic version CloudStack lists",
                    v.name
                ))
            })?,
        }),
        None => None,
    };
    let plan = FleetPlan {
        stages,
        actions: Actions { upgrade, settings },
        windows,
        lease_ms: args.lease_timeout.as_millis() as u64,
        gate_timeout_ms: args.gate_timeout.as_millis() as u64,
        gate_env: args.gate_env.clone(),
        skipped: picked.refused,
    };
    if plan.lease_ms < 10_000 {
        return Err(bad("--lease-timeout: at least 10s".into()));
    }
    let rows = picked
        .clusters
        .into_iter()
        .map(|c| (c.id, c.name, c.project, c.version));
    Ok((FleetRecord::new(fleet, now_ms, plan, rows), dropped))
}

/// What a plan prints: per stage its clusters and what happens to each; the refused ones with
/// their reasons.
pub fn render(record: &FleetRecord, dropped: &[String]) -> String {
    let mut out = String::new();
    let a = &record.plan.actions;
    let what = match (&a.upgrade, &a.settings) {
        (Some(t), Some(_)) => format!(
            "upgrade to {} ({}), then roll the node settings out",
            t.semver, t.name
        ),
        (Some(t), None) => format!("upgrade to {} ({})", t.semver, t.name),
        (None, _) => "roll the node settings out".to_string(),
    };
    out.push_str(&format!("fleet {}: {what}\n", record.id));
    out.push_str(&format!(
        "{:<12} {:<36} {:<24} {:<10} {}\n",
        "STAGE", "CLUSTER", "NAME", "VERSION", "ACTION"
    ));
    for (i, s) in record.plan.stages.iter().enumerate() {
        for (id, c) in record.stage_clusters(i) {
            let action = match &a.upgrade {
                Some(t) => format!("{} -> {}", c.from_version, t.semver),
                None => "settings".into(),
            };
            out.push_str(&format!(
                "{:<12} {:<36} {:<24} {:<10} {action}\n",
                s.name, id, c.name, c.from_version
            ));
        }
        out.push_str(&format!(
            "{:<12} {} cluster(s), {} at once, soak {} s, halts after {} failure(s){}\n",
            s.name,
            s.clusters.len(),
            s.parallelism,
            s.soak_ms / 1000,
            s.halt_after,
            if s.gates.is_empty() {
                String::new()
            } else {
                format!(", {} gate(s)", s.gates.len())
            }
        ));
    }
    for s in &record.plan.skipped {
        out.push_str(&format!(
            "{:<12} {:<36} {:<24} {:<10} refused: {}\n",
            "-", s.id, s.name, "", s.reason
        ));
    }
    for d in dropped {
        out.push_str(&format!("stage {d} gets no cluster and is dropped\n"));
    }
    out
}

impl Selection {
    /// True when no filter is given.
    pub fn is_everything(&self) -> bool {
        *self == Selection::default()
    }
}
