//! `preload`: before an upgrade, puts the new ISO's images on every node, so a Job kubeadm
//! schedules on a node not yet upgraded (its `upgrade-health-check`) finds the new `pause`
//! image without a registry. For each node: which of the ISO's images it lacks (by digest, from
//! `ctr -n k8s.io images ls` over SSH), only those tarballs sent, imported and checked. Nodes
//! run in parallel up to a limit; a node holding every image is skipped, and a copy cut off is
//! finished by the next run. Nothing is sent before the ISO is checked ([`checked_iso`]).

pub mod archive;
pub mod checked_iso;
pub mod node;
pub mod plan;
pub mod source;

use std::collections::VecDeque;
use std::sync::Mutex;

pub use archive::{ImageRef, Tarball};
pub use checked_iso::{CheckError, CheckedIso, Expected};
pub use node::{Node, NodeOutcome, NodeReport};
pub use source::{IsoSource, SourceError};

/// Where the spool of partial tarballs lives on a node by default (created owned by the user
/// the commands run as, mode 0700; refused when it is anything else).
pub const DEFAULT_SPOOL_DIR: &str = "/var/tmp/cks-preload";

/// How the nodes are preloaded.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The `ctr` program on the nodes.
    pub ctr: String,
    /// Run the node commands through `sudo`.
    pub sudo: bool,
    /// Where partial tarballs are kept on the nodes.
    pub spool_dir: String,
    /// The import platform; `None` reads each node's `uname -m`.
    pub platform: Option<String>,
    /// How many nodes at once.
    pub parallel: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ctr: "ctr".to_string(),
            sudo: true,
            spool_dir: DEFAULT_SPOOL_DIR.to_string(),
            platform: None,
            parallel: 4,
        }
    }
}

/// Reads every tarball of `source` once: its images, size and sha256.
pub fn scan(source: &IsoSource) -> Result<Vec<Tarball>, ScanError> {
    let mut tarballs = Vec::new();
    for name in source.tarballs()? {
        let reader = source.reader(&name, 0)?;
        tarballs.push(archive::scan(&name, reader)?);
    }
    if tarballs.is_empty() {
        return Err(ScanError::Empty);
    }
    Ok(tarballs)
}

/// The ISO's images could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The ISO could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A tarball could not be read.
    #[error(transparent)]
    Archive(#[from] archive::ArchiveError),
    /// No `docker/*.tar`.
    #[error("the ISO has no docker/*.tar images to preload")]
    Empty,
}

/// Preloads every node, `settings.parallel` at a time; one report per node, in `nodes` order.
pub fn preload_all(
    nodes: &[Node],
    tarballs: &[Tarball],
    source: &IsoSource,
    settings: &Settings,
) -> Vec<NodeReport> {
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..nodes.len()).collect());
    let reports: Mutex<Vec<Option<NodeReport>>> = Mutex::new(vec![None; nodes.len()]);
    std::thread::scope(|scope| {
        for _ in 0..settings.parallel.clamp(1, nodes.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                    let Some(i) = next else { break };
                    let report = node::preload(&nodes[i], tarballs, source, settings);
                    reports.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(report);
                }
            });
        }
    });
    reports
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

impl std::fmt::Display for NodeReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.outcome {
            NodeOutcome::Complete { images } => write!(
                f,
                "{}: already holds all {images} images; nothing sent",
                self.node
            ),
            NodeOutcome::Preloaded { tarballs, images } => write!(
                f,
                "{}: sent {tarballs} tarballs ({} bytes), {images} images imported and their digests checked",
                self.node, self.bytes_sent
            ),
            NodeOutcome::Failed { step, detail } => write!(
                f,
                "{}: failed {step}: {detail} ({} bytes sent; run again to finish)",
                self.node, self.bytes_sent
            ),
        }
    }
}
