//! `cks-iso demo`: the real build against an offline upstream started in this process (our own
//! sample manifests, stand-in binaries whose `kubeadm` prints an image list, a two-platform image
//! set, a git repository of autoscaler tags), then `verify` of the ISO it made.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use cks_builder::build::options::Inputs;
use cks_builder::build::run::{Outcome, Request};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

use super::build::{build_with_reporting, render_summary};

/// Flags of `cks-iso demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the demo ISO is written.
    #[arg(long, default_value = "out/demo")]
    pub out: PathBuf,
    /// Target architecture: x86_64 (amd64) or aarch64 (arm64).
    #[arg(long, default_value = "x86_64")]
    pub arch: String,
}

/// Runs `cks-iso demo`.
pub async fn run(args: Args) -> Result<()> {
    let upstream = tokio::task::spawn_blocking(|| DemoUpstream::start(&DemoConfig::default()))
        .await
        .context("starting the demo upstream")?
        .context("starting the demo upstream")?;
    eprintln!(
        "cks-iso: demo upstream on loopback: files {}, images {}",
        upstream.file_server().base_url(),
        upstream.registry().base_url()
    );
    let config = upstream.config();
    let env = Inputs::from_env(|key| std::env::var(key).ok())?;
    let inputs = Inputs {
        output_path: Some(args.out.clone()),
        kubernetes_version: Some(config.kubernetes.clone()),
        cni_version: Some(config.cni.clone()),
        crictl_version: Some(config.crictl.clone()),
        network_yaml: Some(upstream.network_yaml()),
        dashboard_yaml: Some(upstream.dashboard_yaml()),
        build_name: Some(format!("cks-demo-{}", config.kubernetes)),
        arch: Some(args.arch.clone()),
        etcd_version: Some(config.etcd.clone()),
        csi_version: Some(config.csi.clone()),
        ccm_version: Some(config.ccm.clone()),
        mirrors: upstream.mirrors(),
        registry_mirrors: upstream.registry_mirrors(),
        insecure_registries: upstream.insecure_registries(),
        ..Inputs::default()
    }
    .over(env);
    let options = inputs.clone().resolve()?;
    let outcome = build_with_reporting(&options, &inputs, Request::default()).await?;
    let Outcome::Built(_, summary) = outcome else {
        bail!("the demo build stopped after planning");
    };
    print!("{}", render_summary(&summary));
    let iso = summary.iso.clone();
    let report = tokio::task::spawn_blocking(move || cks_builder::inspect::verify(&iso))
        .await
        .context("verifying the demo ISO")??;
    println!("{report}");
    if !report.is_clean() {
        bail!("the demo ISO failed verification");
    }
    Ok(())
}
