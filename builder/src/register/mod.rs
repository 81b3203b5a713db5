//! `register`: adds a built ISO to CloudStack as a Kubernetes supported version. It reads the
//! version and arch from the ISO's `versions.txt` and its sha256 (checked against the sidecar),
//! refuses an ISO `verify` rejects or one that does not fit the server's CloudStack line
//! (`listCapabilities`) unless forced, checks that the URL serves exactly that ISO, then calls
//! `addKubernetesSupportedVersion` and waits until the ISO is Ready on secondary storage.
//! The same version with the same checksum is already done; with another checksum it is
//! refused unless replacing was asked for (and no cluster uses the old one).
//!
//! [`from_catalog`] does the same for every ISO of a release catalog in every zone.
//!
//! ```no_run
//! use cks_builder::register::{self, Request};
//! use cks_cloudstack::{CloudStackClient, CloudStackConfig};
//!
//! let client = CloudStackClient::new(CloudStackConfig::from_env()?)?;
//! let request = Request::new("out/cks-1.33.13-x86_64.iso", "http://images.example/cks-1.33.13-x86_64.iso");
//! let done = register::run(&client, &request, &mut |line| eprintln!("{line}"))?;
//! println!("{} {}", done.id, done.iso_state);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod catalogue;
mod error;
pub mod from_catalog;
pub(crate) mod iso_facts;
mod line_fit;
mod url_check;

use std::path::PathBuf;
use std::time::Duration;

use cks_cloudstack::CloudStackClient;
use serde::Serialize;

pub use error::RegisterError;
pub use iso_facts::IsoFacts;

/// What to register and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The ISO file.
    pub iso: PathBuf,
    /// The URL CloudStack downloads it from.
    pub url: String,
    /// The zone (name or id) to limit the version to; all zones when `None`.
    pub zone: Option<String>,
    /// The version's name; CloudStack's `v<version>` when `None`.
    pub name: Option<String>,
    /// How it is registered and waited for.
    pub settings: RegisterSettings,
    /// Hash what the URL serves (not only its size).
    pub check_url: bool,
    /// Delete a version registered with another checksum first.
    pub replace: bool,
    /// Register even an ISO that does not fit the server's CloudStack line.
    pub force: bool,
}

/// How each version is registered and waited for: the same for one ISO and for a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterSettings {
    /// Minimum CPUs of a node.
    pub min_cpus: u32,
    /// Minimum memory of a node, MiB.
    pub min_memory_mib: u64,
    /// Let nodes download the ISO straight to primary storage.
    pub direct_download: bool,
    /// Wait until each registered ISO is Ready.
    pub wait: bool,
    /// How long to wait for each.
    pub timeout: Duration,
    /// Time between two polls.
    pub poll_interval: Duration,
}

impl Default for RegisterSettings {
    /// 2 CPUs, 2048 MiB, wait up to 30 minutes polling every 5 s.
    fn default() -> Self {
        RegisterSettings {
            min_cpus: 2,
            min_memory_mib: 2048,
            direct_download: false,
            wait: true,
            timeout: Duration::from_secs(1800),
            poll_interval: Duration::from_secs(5),
        }
    }
}

impl Request {
    /// A request with the defaults: [`RegisterSettings::default`], check the URL's content,
    /// no replace.
    pub fn new(iso: impl Into<PathBuf>, url: impl Into<String>) -> Self {
        Request {
            iso: iso.into(),
            url: url.into(),
            zone: None,
            name: None,
            settings: RegisterSettings::default(),
            check_url: true,
            replace: false,
            force: false,
        }
    }
}

/// Whether the version was added now or was there already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Added by this run.
    Registered,
    /// Registered before with the same checksum; nothing done.
    AlreadyRegistered,
}

/// The outcome of `register`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Registration {
    /// Added now or there already.
    pub status: Status,
    /// The version's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its semantic version.
    pub semantic_version: String,
    /// The ISO's id in CloudStack.
    pub iso_id: String,
    /// The ISO's state when `register` finished.
    pub iso_state: String,
    /// The checksum registered.
    pub checksum: String,
    /// The URL registered.
    pub url: String,
    /// The id of the version deleted to make room, with `--replace`.
    pub replaced: Option<String>,
    /// What was read from the ISO.
    pub iso: IsoFacts,
}

/// Reads and checks the ISO, checks the URL, then registers it through `client`.
pub fn run(
    client: &CloudStackClient,
    request: &Request,
    say: &mut dyn FnMut(&str),
) -> Result<Registration, RegisterError> {
    let facts = iso_facts::read(&request.iso)?;
    say(&format!(
        "{}: Kubernetes {} {}, sha256 {}{}",
        request.iso.display(),
        facts.semantic_version,
        facts.arch,
        facts.sha256,
        if facts.sidecar_checked {
            " (sidecar agrees)"
        } else {
            " (no sidecar)"
        }
    ));
    line_fit::check(client, &facts, request.force, say)?;
    url_check::check(&request.url, &facts, request.check_url)?;
    say(&format!(
        "{} serves this ISO ({})",
        request.url,
        if request.check_url {
            "size and sha256"
        } else {
            "size"
        }
    ));
    catalogue::register(client, &facts, request, say)
}
