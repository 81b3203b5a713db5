//! The flags of `cks-iso release`: the minors, what to do with the folder's ISOs, and the build
//! inputs a release shares with `cks-iso build` (never a version, a lock or positionals).

use std::path::PathBuf;

use cks_builder::pipeline::{Inputs, Minors};
use cks_builder::upstream_signatures::SignatureInputs;

/// Flags of `cks-iso release`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The minors: a count (the newest N, counting down from the minor of the release server's
    /// `release/stable.txt`) or a list such as 1.31,1.32,1.33 (a minor named twice is built
    /// once); each builds its newest patch (`release/stable-X.Y.txt`) [default: 3].
    #[arg(long, conflicts_with = "matrix")]
    pub minors: Option<Minors>,
    /// A TOML matrix instead of --minors: `[[release]]` tables of `minor` with their own
    /// `arch`, `crictl-version`, `cni-version` and `etcd-version` (unknown keys are refused).
    #[arg(long, value_name = "FILE")]
    pub matrix: Option<PathBuf>,
    /// The folder of the ISOs, their sidecars, SBOMs, signatures and catalog.
    #[arg(long, value_name = "DIR")]
    pub output_path: Option<PathBuf>,
    /// The arches: repeated or a comma-separated list (`x86_64,aarch64`) [default: x86_64].
    #[arg(long, action = clap::ArgAction::Append)]
    pub arch: Vec<String>,
    /// The prefix of each ISO's name: PREFIX-<version>-<arch>.iso [default: cks].
    #[arg(long, value_name = "PREFIX")]
    pub build_name: Option<String>,
    /// The URL the output folder is published at: each ISO's `url` in `catalog.json` is this
    /// plus its file name (no `url` without it).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Rebuild every ISO, even one already in the output folder that would be kept.
    #[arg(long)]
    pub force: bool,
    /// Print, for each minor, patch and arch, whether it would be built, kept or rebuilt and
    /// why (the keep check a run makes), then stop: nothing is written and no lock is taken.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the closing table (or the --dry-run table) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Go on with the other ISOs when one fails: its row says why, the table and catalog are
    /// still written, and the run exits 1 at the end.
    #[arg(long)]
    pub keep_going: bool,
    /// Where every temporary file and folder of the builds goes [default: TMPDIR].
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// The catalog's serial (default: the Unix time now); see `cks-iso catalog --serial`.
    #[arg(long, value_name = "N")]
    pub serial: Option<u64>,
    /// How long the catalog is valid (default 30d); see `cks-iso catalog --expires-in`.
    #[arg(long, value_name = "DURATION", value_parser = super::catalog::parse_expiry)]
    pub expires_in: Option<std::time::Duration>,
    /// Sign the ISOs, the SHA256SUMS-<minor> files and the catalog with this ECDSA P-256
    /// private key (PKCS#8 PEM, mode 0600), read before anything is built.
    #[arg(long, value_name = "FILE")]
    pub sign_key: Option<PathBuf>,
    /// A TOML file holding build inputs (kebab-case keys, as for `cks-iso build --config`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// CNI plugins version, e.g. 1.6.2 [default: the newest release].
    #[arg(long, help_heading = "Build inputs")]
    pub cni_version: Option<String>,
    /// crictl version, e.g. 1.33.0 [default: the newest of each Kubernetes minor].
    #[arg(long, help_heading = "Build inputs")]
    pub crictl_version: Option<String>,
    /// URL or local path of the network (CNI) manifest.
    #[arg(long, help_heading = "Build inputs")]
    pub network_yaml: Option<String>,
    /// URL or local path of the legacy dashboard manifest, bundled as dashboard.yaml.
    #[arg(
        long,
        alias = "dashboard",
        value_name = "URL|PATH",
        help_heading = "Build inputs"
    )]
    pub dashboard_yaml: Option<String>,
    /// Headlamp release bundled as headlamp.yaml with its image, e.g. 0.40.1.
    #[arg(
        long = "headlamp",
        value_name = "VERSION",
        help_heading = "Build inputs"
    )]
    pub headlamp_version: Option<String>,
    /// The CloudStack lines the ISOs must fit: 4.20, 4.22, 4.23 or any [default: any].
    #[arg(long, value_name = "LINE", help_heading = "Build inputs")]
    pub cloudstack: Option<String>,
    /// etcd version to bundle, or `kubeadm`: per minor, the one its kubeadm names.
    #[arg(long, help_heading = "Build inputs")]
    pub etcd_version: Option<String>,
    /// CloudStack CSI driver release whose manifests are bundled [default: v3.0.0].
    #[arg(long, help_heading = "Build inputs")]
    pub csi_version: Option<String>,
    /// Exact cluster-autoscaler release [env: AUTOSCALER_VERSION; default: the newest for each
    /// minor].
    #[arg(long, help_heading = "Build inputs")]
    pub autoscaler_version: Option<String>,
    /// Cloud controller manager tag [env: CCM_VERSION; default: v1.2.0].
    #[arg(long, help_heading = "Build inputs")]
    pub ccm_version: Option<String>,
    /// Git repository whose tags name the autoscaler releases.
    #[arg(long, help_heading = "Build inputs")]
    pub autoscaler_repo: Option<String>,
    /// Fetch files under UPSTREAM from MIRROR instead (repeatable).
    #[arg(
        long = "mirror",
        value_name = "UPSTREAM=MIRROR",
        help_heading = "Build inputs"
    )]
    pub mirrors: Vec<String>,
    /// Pull images of REGISTRY from URL instead (repeatable).
    #[arg(
        long = "registry-mirror",
        value_name = "REGISTRY=URL",
        help_heading = "Build inputs"
    )]
    pub registry_mirrors: Vec<String>,
    /// Reach this registry or mirror (`host:port`) over plain HTTP (repeatable).
    #[arg(
        long = "insecure-registry",
        value_name = "HOST:PORT",
        help_heading = "Build inputs"
    )]
    pub insecure_registries: Vec<String>,
    /// Trust the CA certificates in this PEM file too.
    #[arg(long, value_name = "PEM", help_heading = "Build inputs")]
    pub ca_file: Option<PathBuf>,
    /// Keep verified downloads and finished ISOs here, shared by every build of the release.
    #[arg(long, value_name = "DIR", help_heading = "Build inputs")]
    pub cache_dir: Option<PathBuf>,
    /// Share verified downloads, blobs and ISOs through this OCI registry repository.
    #[arg(long, value_name = "URL", help_heading = "Build inputs")]
    pub cache_registry: Option<String>,
    /// Transfers at a time [default: 4].
    #[arg(long, value_name = "N", help_heading = "Build inputs")]
    pub concurrency: Option<usize>,
    /// The ISOs' volume identifier [default: CDROM].
    #[arg(long, value_name = "ID", help_heading = "Build inputs")]
    pub volume_id: Option<String>,
    /// Fail instead of leaving out an image built only for another platform.
    #[arg(long, help_heading = "Build inputs")]
    pub strict_platforms: bool,
    /// Upstream signatures: require, warn or off [default: warn].
    #[arg(long, value_name = "MODE", value_parser = ["require", "warn", "off"], help_heading = "Build inputs")]
    pub signatures: Option<String>,
    /// A Sigstore trusted_root.json replacing the built-in public-good one.
    #[arg(long, value_name = "FILE", help_heading = "Build inputs")]
    pub trusted_root: Option<PathBuf>,
    /// Raise (or lower) how much is read of one kind of input, e.g. `manifest=16MiB`.
    #[arg(
        long = "limit",
        value_name = "KIND=SIZE",
        help_heading = "Build inputs"
    )]
    pub limits: Vec<String>,
    /// End a transfer that brings fewer than BYTES in WINDOW seconds (a drip); `0` turns it
    /// off [default: 60KiB/60s].
    #[arg(long, value_name = "BYTES/WINDOW", help_heading = "Build inputs")]
    pub min_rate: Option<String>,
}

impl Args {
    /// The build inputs these flags give (only those that were set), as `cks-iso build`'s
    /// flags give them.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            output_path: self.output_path.clone(),
            cni_version: self.cni_version.clone(),
            crictl_version: self.crictl_version.clone(),
            network_yaml: self.network_yaml.clone(),
            dashboard_yaml: self.dashboard_yaml.clone(),
            headlamp_version: self.headlamp_version.clone(),
            cloudstack: self.cloudstack.clone(),
            build_name: self.build_name.clone(),
            arch: (!self.arch.is_empty()).then(|| self.arch.join(",")),
            etcd_version: self.etcd_version.clone(),
            csi_version: self.csi_version.clone(),
            autoscaler_version: self.autoscaler_version.clone(),
            ccm_version: self.ccm_version.clone(),
            autoscaler_repo: self.autoscaler_repo.clone(),
            mirrors: self.mirrors.clone(),
            registry_mirrors: self.registry_mirrors.clone(),
            insecure_registries: self.insecure_registries.clone(),
            ca_file: self.ca_file.clone(),
            cache_dir: self.cache_dir.clone(),
            cache_registry: self.cache_registry.clone(),
            concurrency: self.concurrency,
            volume_id: self.volume_id.clone(),
            strict_platforms: self.strict_platforms.then_some(true),
            signatures: SignatureInputs {
                mode: self.signatures.as_deref().and_then(|m| m.parse().ok()),
                trusted_root: self.trusted_root.clone(),
                ..SignatureInputs::default()
            },
            limits: super::build_args::limit_inputs(&self.limits),
            min_rate: self.min_rate.clone(),
            ..Inputs::default()
        }
    }
}
