//! The flags of `cks-iso register`, shared by its single-ISO and catalog forms.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use cks_builder::register::{self, RegisterSettings, RequiredKey};
use cks_cloudstack::CloudStackConfig;
use cks_signature::BlobKey;

use super::duration::{self, DurationError, Units};

/// What `--help` adds below the flags: credentials, the checks and the exit codes.
const AFTER: &str = "Credentials come from the environment as for cks-rollout and the `cs` client: CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET, or CLOUDSTACK_CONFIG naming an INI file (section [cloudstack] or CLOUDSTACK_REGION) with endpoint, key and secret. They are never taken from the command line and never printed. CLOUDSTACK_POLL_INTERVAL sets the seconds between two polls.\n\nBefore CloudStack is called: the ISO must pass `cks-iso verify`, its .sha256 sidecar (when present) must agree, and with --key (--require-signature) its <iso>.sig must be that key's signature of it. Then the ISO must fit the node contract of the server's line (its version from listCapabilities: 4.20 and 4.22 need dashboard.yaml, 4.23 headlamp.yaml or dashboard.yaml) unless --force, and --url must serve exactly this ISO (its size, and its sha256 unless --no-check-url).\n\nThe same Kubernetes version and arch registered with the same checksum: says so and exits 0. With another checksum: refused, naming both, unless --replace (which deletes the old version only when no cluster uses it); a version of another arch is never touched. Without --name the version is named v<version>[-<zone>]-<arch>.\n\nExit codes: 0 registered (Ready with --wait) or already registered, 1 refused or failed (the message says why; nothing stays registered except after --timeout), 2 bad command line.\n\nWith --catalog URL|FILE (a catalog.json from `cks-iso catalog`): the catalog is read (at most --catalog-limit bytes) and its signature (<catalog>.sig) checked with --key PUB (required unless --allow-unsigned); its serial must not be below the last one applied with the key (PUB.serial) nor --min-serial, it must not have expired, and it must list an ISO; then each ISO (all, or --latest-per-minor) is fetched from its URL into a scratch file, hashed against the catalog's size and sha256, checked against its .sig, and must pass `cks-iso verify` with the catalog's version and arch: all before CloudStack is called; then each must fit the server's CloudStack line before anything changes. Then, in each zone (--zone, repeatable, or all), each ISO not registered there is added (and waited for), one already there with the same checksum is left alone, one there with another checksum stops the run before any change; with --retire-eol each version registered from the catalog's folder (its ISO URL) whose minor is older than the catalog's oldest, in the zones asked for (one for every zone only with --zone all), is deleted, or disabled while a cluster uses it. A second run does nothing. It ends with a table per zone. --dry-run verifies and prints the table of what would be done.\n\nExample: cks-iso register out/cks-1.33.13-x86_64.iso --url http://images.example/cks-1.33.13-x86_64.iso --zone zone1\n\nExample: cks-iso register --catalog https://images.example/cks/catalog.json --zone all --latest-per-minor --retire-eol --key release.pub";

/// Flags of `cks-iso register`.
///
/// Registers a built ISO in CloudStack as a Kubernetes supported version
/// (`addKubernetesSupportedVersion`) with the version and arch from its versions.txt and its
/// sha256, then waits until secondary storage has downloaded it and it is Ready.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER)]
pub struct Args {
    /// The ISO to register, such as `out/cks-1.33.13-x86_64.iso`.
    #[arg(
        value_name = "ISO",
        required_unless_present = "catalog",
        conflicts_with = "catalog"
    )]
    pub iso: Option<PathBuf>,
    /// The URL CloudStack downloads the ISO from (http or https), serving exactly this file.
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "catalog",
        conflicts_with = "catalog"
    )]
    pub url: Option<String>,
    /// The zone (name or id) to offer the version in; `all` or left out: every zone. With
    /// --catalog, repeat it (or separate by commas) for several zones.
    #[arg(long, value_name = "ZONE", value_delimiter = ',')]
    pub zone: Vec<String>,
    /// Register every ISO of this catalog.json (a URL or a file) missing in each zone.
    #[arg(long, value_name = "URL|FILE")]
    pub catalog: Option<String>,
    /// With --catalog: the most bytes read of the catalog.
    #[arg(long, value_name = "BYTES", default_value_t = register::from_catalog::DEFAULT_CATALOG_LIMIT, requires = "catalog")]
    pub catalog_limit: u64,
    /// With --catalog: only the newest patch of each minor (per arch).
    #[arg(long, requires = "catalog")]
    pub latest_per_minor: bool,
    /// With --catalog: delete each version registered from the catalog's folder whose minor is
    /// older than the catalog's oldest, in the zones asked for (disable it instead while a
    /// cluster uses it).
    #[arg(long, requires = "catalog")]
    pub retire_eol: bool,
    /// With --catalog: verify everything and print what would be done; change nothing.
    #[arg(long, requires = "catalog")]
    pub dry_run: bool,
    /// Refuse unless the ISO (`<iso>.sig`), or with --catalog the catalog and each ISO, is
    /// signed by --key (with --catalog, --key alone already requires it).
    #[arg(long, requires = "key")]
    pub require_signature: bool,
    /// The public key (PEM, from `cks-iso keygen`) the signatures must verify with; required
    /// with --catalog unless --allow-unsigned.
    #[arg(long, value_name = "PUB")]
    pub key: Option<PathBuf>,
    /// With --catalog: use a catalog without checking any signature (said once as a warning).
    #[arg(long, requires = "catalog", conflicts_with_all = ["key", "require_signature"])]
    pub allow_unsigned: bool,
    /// With --catalog: refuse a catalog whose serial is below N (besides the serial last applied,
    /// kept in `<PUB>.serial` beside --key).
    #[arg(long, value_name = "N", requires = "catalog")]
    pub min_serial: Option<u64>,
    /// The version's name in CloudStack (default `v<version>`).
    #[arg(long, value_name = "NAME", conflicts_with = "catalog")]
    pub name: Option<String>,
    /// The minimum CPUs of a cluster node (CloudStack requires at least 2).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub min_cpu: u32,
    /// The minimum memory of a cluster node in MiB (CloudStack requires at least 2048).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub min_memory: u64,
    /// Let nodes download the ISO straight to primary storage (CloudStack 4.18.2 and newer).
    #[arg(long)]
    pub direct_download: bool,
    /// Wait until the ISO is Ready (the default).
    #[arg(long, overrides_with = "no_wait")]
    pub wait: bool,
    /// Return once CloudStack has accepted the version, without waiting for the download.
    #[arg(long, overrides_with = "wait")]
    pub no_wait: bool,
    /// How long to wait for Ready: seconds, or with a unit (`90s`, `30m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Check only the size the URL serves, not the sha256 of its whole body.
    #[arg(long, conflicts_with = "catalog")]
    pub no_check_url: bool,
    /// Delete a version registered with another checksum first (refused while a cluster uses it).
    #[arg(long, conflicts_with = "catalog")]
    pub replace: bool,
    /// Register even an ISO that does not fit the server's CloudStack line (`listCapabilities`).
    #[arg(long, conflicts_with = "catalog")]
    pub force: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
    /// The most of one CloudStack answer that is read (B, KiB, MiB, GiB): a larger answer is
    /// refused, so a broken or hostile server cannot grow this process's memory.
    #[arg(long, value_name = "SIZE", default_value = "32MiB", value_parser = cks_pinning::limits::parse_size)]
    pub max_answer_size: u64,
}

impl Args {
    /// How each version is registered and waited for, from the flags and the CloudStack
    /// settings (`config`'s poll interval).
    pub fn settings(&self, config: &CloudStackConfig) -> RegisterSettings {
        RegisterSettings {
            min_cpus: self.min_cpu,
            min_memory_mib: self.min_memory,
            direct_download: self.direct_download,
            wait: !self.no_wait,
            timeout: self.timeout,
            poll_interval: config.poll_interval,
        }
    }
}

/// The most read of a public key file.
const MAX_KEY: u64 = 64 * 1024;

/// Reads the public key `--key` names.
pub fn read_key(path: &std::path::Path) -> anyhow::Result<RequiredKey> {
    let meta = std::fs::metadata(path).with_context(|| format!("--key {}", path.display()))?;
    anyhow::ensure!(
        meta.len() <= MAX_KEY,
        "--key {}: larger than {MAX_KEY} bytes, not a public key",
        path.display()
    );
    let pem = std::fs::read(path).with_context(|| format!("--key {}", path.display()))?;
    let key = BlobKey::from_pem(&pem).with_context(|| {
        format!(
            "--key {}: expected the PEM public key from `cks-iso keygen` (PREFIX.pub)",
            path.display()
        )
    })?;
    Ok(RequiredKey {
        key,
        path: path.display().to_string(),
    })
}

/// Parses `90`, `90s`, `30m` or `1h`.
fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    duration::parse(
        text,
        &Units {
            scale: duration::SMH,
            names: "s, m or h",
            examples: "90, 90s, 30m or 1h",
        },
    )
}
