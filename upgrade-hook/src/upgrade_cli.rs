//! The `upgrade` command line: checks the cluster and the version, checks the new ISO against
//! the checksum CloudStack holds for the version and with `verify`, preloads its images on every
//! node, calls `upgradeKubernetesCluster`, follows its job, then refreshes the cloud
//! controller manager and the autoscaler.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;

use cks_cloudstack::{CloudStackClient, CloudStackError};
use cks_upgrade_hook::command::ClusterId;
use cks_upgrade_hook::preload::{CheckError, Expected, NodeOutcome, checked_iso};
use cks_upgrade_hook::preload_cli::{self, CopyArgs, PreloadArgs};
use cks_upgrade_hook::redeploy_cli::{Parts, RedeployArgs, redeploy};
use cks_upgrade_hook::target;
use cks_upgrade_hook::upgrade;

/// Exit status when the upgrade is refused before CloudStack is asked.
pub const EXIT_REFUSED: u8 = 3;
/// Exit status when the preload failed on a node (the upgrade was not started).
pub const EXIT_PRELOAD_FAILED: u8 = 4;

/// `upgrade`'s arguments.
#[derive(Debug, Clone, Args)]
pub struct UpgradeArgs {
    /// The version to upgrade to: its id, its name or its semantic version (`1.33.1`).
    #[arg(long, value_name = "VERSION")]
    pub to: String,
    /// Do not preload the new images on the nodes first (then --iso is optional; given, it
    /// still supplies the provider.yaml applied after the upgrade).
    #[arg(long)]
    pub no_preload: bool,
    /// The nodes, the SSH login and the refresh after the upgrade.
    #[command(flatten)]
    pub node: RedeployArgs,
    /// How the preload copies and imports the images.
    #[command(flatten)]
    pub copy: CopyArgs,
}

impl UpgradeArgs {
    /// A warning for each duration flag given as a bare number in its old unit.
    pub fn duration_warnings(&self) -> Vec<String> {
        let mut warnings = self.node.duration_warnings();
        warnings.extend(self.copy.copy_timeout.warning("--copy-timeout"));
        warnings
    }
}

/// Runs `upgrade`.
pub fn run(args: &UpgradeArgs) -> Result<ExitCode> {
    let cluster_id = args.node.cluster_id().to_string();
    ClusterId::parse(&cluster_id).context("checking --cluster-id")?;
    let client = target::client_from_env(args.node.max_answer_size()).map_err(|source| {
        target::TargetError::NoCloudStack {
            needed: "the cluster and its versions",
            flags: "set them in the environment",
            source,
        }
    })?;
    let info = cks_discovery::cluster_api::cluster_info(&client, &cluster_id)?;
    let versions = client
        .list_kubernetes_versions(None)
        .context("reading the Kubernetes versions (listKubernetesSupportedVersions)")?;
    let checked = upgrade::choose(&args.to, &versions).and_then(|target| {
        let current = info
            .kubernetes_version_id
            .as_ref()
            .and_then(|id| versions.iter().find(|v| &v.id == id));
        let state = info.state.as_deref().unwrap_or("in an unknown state");
        upgrade::check(&cluster_id, state, current, target).map(|()| target)
    });
    let target = match checked {
        Ok(target) => target.clone(),
        Err(refusal) => {
            cks_upgrade_hook::say::err(&format!("cks-upgrade-hook: error: {refusal}"));
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };

    // The ISO must be the one CloudStack holds for the version, and pass `verify`, before any
    // of it reaches a node (its images, or its provider.yaml after the upgrade).
    let expected = match args
        .node
        .iso()
        .map(|_| Expected::from_cloudstack(&client, &target))
    {
        None => None,
        Some(Ok(expected)) => Some(expected),
        Some(Err(refusal)) => {
            eprintln!("cks-upgrade-hook: error: {refusal}");
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };
    if let (true, Some(iso), Some(expected)) = (args.no_preload, args.node.iso(), &expected)
        && let Err(refusal) = checked_iso::check(iso, expected)
    {
        eprintln!("cks-upgrade-hook: error: {refusal}");
        return Ok(ExitCode::from(EXIT_REFUSED));
    }

    if let (false, Some(iso), Some(expected)) = (args.no_preload, args.node.iso(), &expected) {
        let preload = PreloadArgs {
            cluster_id: cluster_id.clone(),
            max_answer_size: args.node.max_answer_size(),
            iso: iso.clone(),
            to: Some(target.id.clone()),
            sha256: None,
            key: args.node.key().cloned(),
            known_hosts: args.node.known_hosts().cloned(),
            host_key_fingerprint: args.node.fingerprints().to_vec(),
            user: args.node.user().to_string(),
            no_sudo: args.node.no_sudo(),
            connect_timeout: args.node.connect_timeout(),
            copy: args.copy.clone(),
            json: false,
        };
        cks_upgrade_hook::say::err(&format!(
            "preloading the images of {} on every node",
            iso.display()
        ));
        let reports = match preload_cli::preload_checked(&preload, &client, &info, expected) {
            Ok(reports) => reports,
            Err(error) if error.downcast_ref::<CheckError>().is_some() => {
                cks_upgrade_hook::say::err(&format!("cks-upgrade-hook: error: {error:#}"));
                return Ok(ExitCode::from(EXIT_REFUSED));
            }
            Err(error) => return Err(error),
        };
        for report in &reports {
            cks_upgrade_hook::say::err(&format!("  {report}"));
        }
        let failed = reports
            .iter()
            .filter(|r| matches!(r.outcome, NodeOutcome::Failed { .. }))
            .count();
        if failed > 0 {
            cks_upgrade_hook::say::err(&format!(
                "cks-upgrade-hook: error: the preload failed on {failed} node(s); the upgrade was not started and the cluster is unchanged; run again (what was sent is kept)"
            ));
            return Ok(ExitCode::from(EXIT_PRELOAD_FAILED));
        }
    }

    cks_upgrade_hook::say::err(&format!(
        "upgrading cluster {} to {} ({})",
        info.name, target.name, target.semantic_version
    ));
    if let Err(error) = upgrade_job(&client, &cluster_id, &target.id) {
        let state = cks_discovery::cluster_api::cluster_info(&client, &cluster_id)
            .ok()
            .and_then(|i| i.state)
            .unwrap_or_else(|| "unknown (CloudStack did not answer)".to_string());
        let said = match &error {
            CloudStackError::Api { text, .. } | CloudStackError::Job { text, .. } => text.clone(),
            other => other.to_string(),
        };
        cks_upgrade_hook::say::err(&format!(
            "cks-upgrade-hook: error: the upgrade failed; CloudStack says: {said}; cluster {cluster_id} is now {state} (nodes already upgraded stay on the new version; see the cluster's events, then recover it)"
        ));
        return Ok(ExitCode::from(1));
    }
    cks_upgrade_hook::say::err(&format!(
        "upgraded: cluster {} runs {}",
        info.name, target.name
    ));
    redeploy(&args.node, Parts::Both)
}

/// Calls `upgradeKubernetesCluster` and follows its job, with a line that counts the seconds on
/// a terminal.
fn upgrade_job(
    client: &CloudStackClient,
    cluster: &str,
    version: &str,
) -> Result<(), CloudStackError> {
    let command = "upgradeKubernetesCluster";
    let started = client.call(
        command,
        &[
            ("id", cluster.to_string()),
            ("kubernetesversionid", version.to_string()),
        ],
    )?;
    let Some(job) = started
        .get("jobid")
        .and_then(|j| j.as_str())
        .map(str::to_string)
    else {
        return Err(CloudStackError::BadResponse {
            command: command.to_string(),
            detail: "an async command answered without a jobid".to_string(),
        });
    };
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| {
                let spinner = indicatif::ProgressBar::new_spinner();
                let start = Instant::now();
                while !done.load(Ordering::Relaxed) {
                    spinner.set_message(format!(
                        "CloudStack is upgrading the nodes one by one (job {job}, {} s)",
                        start.elapsed().as_secs()
                    ));
                    spinner.tick();
                    std::thread::sleep(Duration::from_millis(200));
                }
                spinner.finish_and_clear();
            });
        }
        let result = client.wait_for_job(command, &job);
        done.store(true, Ordering::Relaxed);
        result.map(|_| ())
    })
}

/// Checks the arguments clap cannot.
pub fn check(args: &UpgradeArgs) -> Result<()> {
    if !args.no_preload && args.node.iso().is_none() {
        return Err(cks_cli_docs::bad_input(anyhow::anyhow!(
            "--iso NEW.iso is needed to preload the new images on every node; give it, or pass --no-preload"
        )));
    }
    Ok(())
}
