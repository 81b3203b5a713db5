//! `register`: adds a built ISO to CloudStack as a Kubernetes supported version. It reads the
//! version and arch from the ISO's `versions.txt` and its sha256 (checked against the sidecar),
//! refuses an ISO `verify` rejects (and, with a required key, one whose `<iso>.sig` it does not
//! sign) or one that does not fit the server's CloudStack line
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

mod download_wait;
mod error;
pub mod from_catalog;
pub(crate) mod iso_facts;
mod iso_signature;
mod line_fit;
mod registration;
mod request;
mod supported_version;
mod url_check;

use cks_cloudstack::CloudStackClient;

pub use error::RegisterError;
pub use iso_facts::IsoFacts;
pub use iso_signature::RequiredKey;
pub(crate) use iso_signature::check_digest as check_signature;
pub use registration::{Registration, Status};
pub use request::{RegisterSettings, Request};

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
    if let Some(required) = &request.signature {
        iso_signature::check(&facts, required)?;
        say(&format!(
            "{}: signature verified with {}",
            request.iso.display(),
            required.path
        ));
    }
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
    supported_version::register(client, &facts, request, say)
}
