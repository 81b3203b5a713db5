//! `cks-iso register`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use cks_builder::register::{self, Request, Status};
use cks_cloudstack::{CloudStackClient, CloudStackConfig};

/// What `--help` adds below the flags: credentials, the checks and the exit codes.
const AFTER: &str = "Credentials come from the environment as for cks-rollout and the `cs` client: CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET, or CLOUDSTACK_CONFIG naming an INI file (section [cloudstack] or CLOUDSTACK_REGION) with endpoint, key and secret. They are never taken from the command line and never printed. CLOUDSTACK_POLL_INTERVAL sets the seconds between two polls.\n\nBefore CloudStack is called: the ISO must pass `cks-iso verify` and its .sha256 sidecar (when present) must agree. Then the ISO must fit the node contract of the server's line (its version from listCapabilities: 4.20 and 4.22 need dashboard.yaml, 4.23 headlamp.yaml or dashboard.yaml) unless --force, and --url must serve exactly this ISO (its size, and its sha256 unless --no-check-url).\n\nThe same Kubernetes version registered with the same checksum: says so and exits 0. With another checksum: refused, naming both, unless --replace (which deletes the old version only when no cluster uses it).\n\nExit codes: 0 registered (Ready with --wait) or already registered, 1 refused or failed (the message says why; nothing stays registered except after --timeout), 2 bad command line.\n\nExample: cks-iso register out/cks-1.33.13-x86_64.iso --url http://images.example/cks-1.33.13-x86_64.iso --zone zone1";

/// Flags of `cks-iso register`.
///
/// Registers a built ISO in CloudStack as a Kubernetes supported version
/// (`addKubernetesSupportedVersion`) with the version and arch from its versions.txt and its
/// sha256, then waits until secondary storage has downloaded it and it is Ready.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER)]
pub struct Args {
    /// The ISO to register, such as `out/cks-1.33.13-x86_64.iso`.
    #[arg(value_name = "ISO")]
    pub iso: PathBuf,
    /// The URL CloudStack downloads the ISO from (http or https), serving exactly this file.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// The zone (name or id) to offer the version in; every zone when left out.
    #[arg(long, value_name = "ZONE")]
    pub zone: Option<String>,
    /// The version's name in CloudStack (default `v<version>`).
    #[arg(long, value_name = "NAME")]
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
    #[arg(long)]
    pub no_check_url: bool,
    /// Delete a version registered with another checksum first (refused while a cluster uses it).
    #[arg(long)]
    pub replace: bool,
    /// Register even an ISO that does not fit the server's CloudStack line (`listCapabilities`).
    #[arg(long)]
    pub force: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Parses `90`, `90s`, `30m` or `1h`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: expected e.g. 90, 90s, 30m or 1h"))?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("`{text}`: the unit must be s, m or h")),
    };
    Ok(Duration::from_secs(n.saturating_mul(scale)))
}

/// Runs `cks-iso register`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let config = CloudStackConfig::from_env().context("reading the CloudStack credentials")?;
    for warning in config.warnings() {
        eprintln!("cks-iso: warning: {warning}");
    }
    let request = Request {
        iso: args.iso.clone(),
        url: args.url.clone(),
        zone: args.zone.clone(),
        name: args.name.clone(),
        min_cpus: args.min_cpu,
        min_memory_mib: args.min_memory,
        direct_download: args.direct_download,
        wait: !args.no_wait,
        timeout: args.timeout,
        poll_interval: config.poll_interval,
        check_url: !args.no_check_url,
        replace: args.replace,
        force: args.force,
    };
    let done = tokio::task::spawn_blocking(move || {
        let client = CloudStackClient::new(config)?;
        register::run(&client, &request, &mut |line| eprintln!("{line}"))
            .map_err(anyhow::Error::from)
    })
    .await
    .context("the register task stopped")?
    .with_context(|| format!("registering {}", args.iso.display()))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&done).context("rendering the outcome as JSON")?
        );
        return Ok(());
    }
    match done.status {
        Status::AlreadyRegistered => println!(
            "already registered: Kubernetes {} is {} (id {}) with the same checksum {}; nothing to do",
            done.semantic_version, done.name, done.id, done.checksum
        ),
        Status::Registered => println!(
            "registered Kubernetes {} as {} (id {}): ISO {}{}",
            done.semantic_version,
            done.name,
            done.id,
            done.iso_state,
            done.replaced
                .as_deref()
                .map(|old| format!(", replacing {old}"))
                .unwrap_or_default()
        ),
    }
    Ok(())
}
