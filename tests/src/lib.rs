//! End-to-end tests of cks-iso against real third-party components (the CNCF distribution
//! registry, containerd, xorriso, git, sshd, etcd). The tests live in `tests/`; this library holds
//! what they share: building an ISO against the offline demo upstream.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use cks_builder::pipeline::Inputs;
use cks_builder::pipeline::{Observer, Summary};
use cks_builder::pipeline::{Outcome, Request, build};
use cks_builder::progress::NoProgress;
use cks_fixtures::demo::DemoUpstream;

/// Ignores phase reports.
pub struct Quiet;

impl Observer for Quiet {
    fn phase(&self, _name: &str) {}
}

/// The inputs of a build of the demo upstream's versions into `out`.
pub fn demo_inputs(upstream: &DemoUpstream, out: &Path, arch: &str) -> Inputs {
    let config = upstream.config();
    Inputs {
        output_path: Some(out.to_path_buf()),
        kubernetes_version: Some(config.kubernetes.clone()),
        cni_version: Some(config.cni.clone()),
        crictl_version: Some(config.crictl.clone()),
        network_yaml: Some(upstream.network_yaml()),
        dashboard_yaml: Some(upstream.dashboard_yaml()),
        build_name: Some("cks-e2e".to_string()),
        arch: Some(arch.to_string()),
        etcd_version: Some(config.etcd.clone()),
        csi_version: Some(config.csi.clone()),
        ccm_version: Some(config.ccm.clone()),
        mirrors: upstream.mirrors(),
        registry_mirrors: upstream.registry_mirrors(),
        insecure_registries: upstream.insecure_registries(),
        source_date_epoch: Some(1_700_000_000),
        // The upstream's binaries and registry.k8s.io images are signed by its test root.
        signatures: cks_builder::upstream_signatures::SignatureInputs {
            trusted_root: Some(upstream.trusted_root().to_path_buf()),
            ..Default::default()
        },
        ..Inputs::default()
    }
}

/// Runs a whole build of `inputs` (as `cks-iso build` does) and returns its summary.
pub async fn run_build(inputs: &Inputs, request: Request) -> Result<Summary> {
    let options = inputs.clone().resolve()?;
    match build(&options, inputs, request, Arc::new(NoProgress), &Quiet).await? {
        Outcome::Built(_, summary) => Ok(*summary),
        Outcome::Planned(_) => bail!("the build stopped after planning"),
    }
}

/// Every entry below `dir`, as sorted relative paths (to show that nothing was left behind).
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(read) = std::fs::read_dir(&d) {
            for entry in read.flatten() {
                let path = entry.path();
                out.push(path.strip_prefix(dir).unwrap_or(&path).to_path_buf());
                if path.is_dir() {
                    stack.push(path);
                }
            }
        }
    }
    out.sort();
    out
}

/// Starts the demo upstream (blocking work, so off the async runtime).
pub async fn start_upstream(config: cks_fixtures::demo::DemoConfig) -> DemoUpstream {
    tokio::task::spawn_blocking(move || DemoUpstream::start(&config))
        .await
        .expect("the upstream's start did not panic")
        .expect("the demo upstream starts")
}

/// The `versions.txt` inside an ISO, read with our ISO reader.
pub fn versions_txt_of(iso: &Path) -> String {
    let image = cks_builder::iso::IsoImage::open(iso).expect("the ISO opens");
    let mut text = Vec::new();
    image
        .copy_file("versions.txt", &mut text)
        .expect("the ISO holds versions.txt");
    String::from_utf8(text).expect("versions.txt is UTF-8")
}
