//! What to register and how: the ISO, its URL, the zone, and the settings one ISO and a catalog
//! share.

use std::path::PathBuf;
use std::time::Duration;

use super::iso_signature::RequiredKey;

/// What to register and how.
#[derive(Debug, Clone)]
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
    /// `--require-signature --key PUB`: `<iso>.sig` must verify with this key.
    pub signature: Option<RequiredKey>,
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
            signature: None,
        }
    }
}
