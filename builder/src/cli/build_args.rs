//! The flags and arguments of `cks-iso build`, turned into [`Inputs`].

use std::path::PathBuf;

use cks_builder::pipeline::{Inputs, LimitInput, OptionsError};
use cks_builder::upstream_signatures::SignatureInputs;
use cks_pinning::headlamp::DashboardArgument;

/// Flags of `cks-iso build`: the script's positional arguments, or the same as named flags,
/// plus the options of the downloader, the puller and the ISO writer.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildArgs {
    /// Folder the ISO is written to (as the script's first argument).
    #[arg(value_name = "OUTPUT_PATH")]
    pub pos_output_path: Option<PathBuf>,
    /// Kubernetes version, e.g. 1.33.13 (with or without `v`).
    #[arg(value_name = "KUBERNETES_VERSION")]
    pub pos_kubernetes_version: Option<String>,
    /// CNI plugins version, e.g. 1.6.2.
    #[arg(value_name = "CNI_VERSION")]
    pub pos_cni_version: Option<String>,
    /// crictl version, e.g. 1.33.0.
    #[arg(value_name = "CRICTL_VERSION")]
    pub pos_crictl_version: Option<String>,
    /// URL or local path of the network (CNI) manifest, e.g. a kube-flannel.yml release asset.
    #[arg(value_name = "NETWORK_YAML")]
    pub pos_network_yaml: Option<String>,
    /// A Headlamp release (`0.40.1` or `v0.40.1`, the 4.23 script's form) or the URL or local
    /// path of the legacy dashboard manifest (the 4.22 script's form).
    #[arg(value_name = "DASHBOARD_YAML|HEADLAMP_VERSION")]
    pub pos_dashboard_yaml: Option<String>,
    /// The ISO's base name: the ISO is BUILD_NAME-x86_64.iso or BUILD_NAME-aarch64.iso.
    #[arg(value_name = "BUILD_NAME")]
    pub pos_build_name: Option<String>,
    /// Target architecture: x86_64 (amd64, the default) or aarch64 (arm64).
    #[arg(value_name = "ARCH")]
    pub pos_arch: Option<String>,
    /// etcd version to bundle for external etcd nodes, e.g. 3.5.21, or `kubeadm`: the one the
    /// release's kubeadm names in `config images list`.
    #[arg(value_name = "ETCD_VERSION")]
    pub pos_etcd_version: Option<String>,

    /// Same as OUTPUT_PATH.
    #[arg(long, conflicts_with = "pos_output_path")]
    pub output_path: Option<PathBuf>,
    /// Same as KUBERNETES_VERSION.
    #[arg(long, conflicts_with = "pos_kubernetes_version")]
    pub kubernetes_version: Option<String>,
    /// Same as CNI_VERSION.
    #[arg(long, conflicts_with = "pos_cni_version")]
    pub cni_version: Option<String>,
    /// Same as CRICTL_VERSION.
    #[arg(long, conflicts_with = "pos_crictl_version")]
    pub crictl_version: Option<String>,
    /// Same as NETWORK_YAML.
    #[arg(long, conflicts_with = "pos_network_yaml")]
    pub network_yaml: Option<String>,
    /// URL or local path of the legacy dashboard manifest, bundled as dashboard.yaml (may be
    /// given with --headlamp).
    #[arg(long, alias = "dashboard", value_name = "URL|PATH")]
    pub dashboard_yaml: Option<String>,
    /// Headlamp release bundled as headlamp.yaml with its image, e.g. 0.40.1 (may be given
    /// with --dashboard-yaml).
    #[arg(long = "headlamp", value_name = "VERSION")]
    pub headlamp_version: Option<String>,
    /// The CloudStack lines the ISO must fit: 4.20, 4.22, 4.23 or any [default: any].
    #[arg(long, value_name = "LINE")]
    pub cloudstack: Option<String>,
    /// Same as BUILD_NAME.
    #[arg(long, conflicts_with = "pos_build_name")]
    pub build_name: Option<String>,
    /// Same as ARCH (`cks-iso release` takes several: repeated, or a comma list).
    #[arg(long, conflicts_with = "pos_arch", action = clap::ArgAction::Append)]
    pub arch: Vec<String>,
    /// Same as ETCD_VERSION.
    #[arg(long, conflicts_with = "pos_etcd_version")]
    pub etcd_version: Option<String>,
    /// CloudStack CSI driver release whose manifests are bundled [default: v3.0.0].
    #[arg(long)]
    pub csi_version: Option<String>,
    /// Exact cluster-autoscaler release, e.g. 1.33.4 [env: AUTOSCALER_VERSION; default: the
    /// newest release for the Kubernetes minor].
    #[arg(long)]
    pub autoscaler_version: Option<String>,
    /// Cloud controller manager tag, e.g. v1.2.0 [env: CCM_VERSION; default: v1.2.0].
    #[arg(long)]
    pub ccm_version: Option<String>,
    /// Git repository (URL or path) whose tags name the autoscaler releases
    /// [default: https://github.com/kubernetes/autoscaler.git].
    #[arg(long)]
    pub autoscaler_repo: Option<String>,
    /// Fetch files under UPSTREAM from MIRROR instead, e.g.
    /// `https://dl.k8s.io=http://mirror.local/k8s` (repeatable).
    #[arg(long = "mirror", value_name = "UPSTREAM=MIRROR")]
    pub mirrors: Vec<String>,
    /// Pull images of REGISTRY from URL instead, e.g. `registry.k8s.io=http://127.0.0.1:5000`
    /// (repeatable); tarballs and versions.txt keep the original names.
    #[arg(long = "registry-mirror", value_name = "REGISTRY=URL")]
    pub registry_mirrors: Vec<String>,
    /// Reach this registry or mirror (`host:port`) over plain HTTP (repeatable).
    #[arg(long = "insecure-registry", value_name = "HOST:PORT")]
    pub insecure_registries: Vec<String>,
    /// Trust the CA certificates in this PEM file too (a private mirror's CA).
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<PathBuf>,
    /// Keep verified downloads here and reuse them in later builds.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Share verified downloads and image blobs with other builds through this OCI registry
    /// repository, `http(s)://HOST[:PORT]/REPO` (after --cache-dir, before upstream).
    #[arg(long, value_name = "URL")]
    pub cache_registry: Option<String>,
    /// Transfers at a time [default: 4].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// The ISO's volume identifier [default: CDROM, which CKS nodes look for].
    #[arg(long, value_name = "ID")]
    pub volume_id: Option<String>,
    /// Fail instead of leaving out an image built only for another platform.
    #[arg(long)]
    pub strict_platforms: bool,
    /// Upstream signatures: `require` fails the build on any Kubernetes binary or image that
    /// is not verified, `warn` says so once per artifact, `off` fetches none [default: warn].
    #[arg(long, value_name = "MODE", value_parser = ["require", "warn", "off"])]
    pub signatures: Option<String>,
    /// A Sigstore trusted_root.json replacing the built-in public-good one.
    #[arg(long, value_name = "FILE")]
    pub trusted_root: Option<PathBuf>,
    /// Raise (or lower) how much is read of one kind of input, e.g. `manifest=16MiB` or
    /// `layers=2000` (repeatable; kinds: manifest, checksum, answer, oci, git, layers, file).
    #[arg(long = "limit", value_name = "KIND=SIZE")]
    pub limits: Vec<String>,
    /// End a transfer (a download, an image pull, a git listing) that brings fewer than BYTES
    /// in WINDOW seconds, as a server dripping a byte at a time does; a slower link needs a
    /// lower rule, `0` turns it off [default: 60KiB/60s, about 1 KiB/s].
    #[arg(long, value_name = "BYTES/WINDOW")]
    pub min_rate: Option<String>,
    /// A TOML file holding any of these inputs (kebab-case keys, e.g. `kubernetes-version`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Resolve and print the plan, then stop.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the plan and the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Record everything the plan resolved (tags, commits, URLs, sha256s, digests) in FILE.
    #[arg(long, value_name = "FILE")]
    pub write_lock: Option<PathBuf>,
    /// Rebuild exactly from a lock file, failing if any upstream byte differs.
    #[arg(long, value_name = "FILE", conflicts_with = "write_lock")]
    pub locked: Option<PathBuf>,
    /// Where every temporary file and folder of the build goes (removed when it ends)
    /// [default: TMPDIR].
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// Sign the ISO with this ECDSA P-256 private key (PKCS#8 PEM, mode 0600; `cks-iso keygen`
    /// writes one): `<iso>.sig`, checked by `cosign verify-blob --key PUB`.
    #[arg(long, value_name = "FILE")]
    pub sign_key: Option<PathBuf>,
}

impl BuildArgs {
    /// The inputs these flags give (only those that were set).
    pub fn inputs(&self) -> Inputs {
        let (pos_dashboard, pos_headlamp) = match self.pos_dashboard_yaml.as_deref() {
            None => (None, None),
            Some(text) => match cks_pinning::headlamp::dashboard_argument(text) {
                DashboardArgument::Headlamp(_) => (None, Some(text.to_string())),
                DashboardArgument::Manifest(_) => (Some(text.to_string()), None),
            },
        };
        Inputs {
            output_path: self.output_path.clone().or(self.pos_output_path.clone()),
            kubernetes_version: self
                .kubernetes_version
                .clone()
                .or(self.pos_kubernetes_version.clone()),
            cni_version: self.cni_version.clone().or(self.pos_cni_version.clone()),
            crictl_version: self
                .crictl_version
                .clone()
                .or(self.pos_crictl_version.clone()),
            network_yaml: self.network_yaml.clone().or(self.pos_network_yaml.clone()),
            dashboard_yaml: self.dashboard_yaml.clone().or(pos_dashboard),
            headlamp_version: self.headlamp_version.clone().or(pos_headlamp),
            cloudstack: self.cloudstack.clone(),
            build_name: self.build_name.clone().or(self.pos_build_name.clone()),
            arch: match self.arch.as_slice() {
                [] => self.pos_arch.clone(),
                several => Some(several.join(",")),
            },
            etcd_version: self.etcd_version.clone().or(self.pos_etcd_version.clone()),
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
            source_date_epoch: None,
            signatures: SignatureInputs {
                mode: self.signatures.as_deref().and_then(|m| m.parse().ok()),
                trusted_root: self.trusted_root.clone(),
                ..SignatureInputs::default()
            },
            limits: limit_inputs(&self.limits),
            min_rate: self.min_rate.clone(),
        }
    }
}

/// The inputs of the `--config` file, if one was given, saying on stderr which of its keys
/// have a new name.
pub fn read_config(path: Option<&std::path::Path>) -> Result<Inputs, OptionsError> {
    let Some(path) = path else {
        return Ok(Inputs::default());
    };
    let (inputs, warnings) = Inputs::read_config(path)?;
    for warning in warnings {
        eprintln!("cks-iso: warning: {warning}");
    }
    Ok(inputs)
}

/// `--limit KIND=SIZE` flags as the inputs hold them (checked when the options are resolved).
pub fn limit_inputs(flags: &[String]) -> std::collections::BTreeMap<String, LimitInput> {
    flags
        .iter()
        .map(|l| match l.split_once('=') {
            Some((kind, size)) => (kind.trim().to_string(), LimitInput::Text(size.into())),
            None => (l.clone(), LimitInput::Text(String::new())),
        })
        .collect()
}
