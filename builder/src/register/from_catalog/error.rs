//! Why `register --catalog` stopped: each names the catalog, URL or zone and says what to do.

use cks_cloudstack::CloudStackError;
use cks_pinning::catalog::CatalogError;
use cks_signature::SignatureError;

use super::super::RegisterError;

/// What keeps a catalog's ISOs from being registered.
#[derive(Debug, thiserror::Error)]
pub enum CatalogRegisterError {
    /// The catalog (or a signature file) cannot be read.
    #[error("{what} {source_name}: {detail}; {}", advice(what))]
    Read {
        /// `--catalog`, `--key` or the signature's name.
        what: &'static str,
        /// The URL or path.
        source_name: String,
        /// What failed.
        detail: String,
    },
    /// The catalog is larger than the limit.
    #[error(
        "--catalog {source_name} is larger than the limit of {limit} bytes; if it really is that large, raise the limit with --catalog-limit BYTES"
    )]
    TooLarge {
        /// The URL or path.
        source_name: String,
        /// The limit.
        limit: u64,
    },
    /// The catalog is not a valid catalog.
    #[error("--catalog {source_name}: {source}")]
    Invalid {
        /// The URL or path.
        source_name: String,
        /// Why.
        source: CatalogError,
    },
    /// A signature was refused.
    #[error(
        "{what} is not signed by --key {key}: {source}; nothing was registered (fetch the catalog and key again, or check who published it)"
    )]
    Signature {
        /// What was checked: the catalog or an ISO with its URL.
        what: String,
        /// The public key's path.
        key: String,
        /// Why.
        source: SignatureError,
    },
    /// The catalog does not say where an ISO or its signature is.
    #[error("--catalog {source_name}: {detail}")]
    Incomplete {
        /// The URL or path.
        source_name: String,
        /// What is missing and what to do.
        detail: String,
    },
    /// The URL serves something other than the catalog's ISO.
    #[error(
        "{url} serves {served} but the catalog says {expected}: CloudStack would download something else; nothing was registered (publish the ISO the catalog lists, or write the catalog again)"
    )]
    Mismatch {
        /// The ISO's URL.
        url: String,
        /// What it serves.
        served: String,
        /// What the catalog says.
        expected: String,
    },
    /// The state file of the last serial applied cannot be read or written.
    #[error(
        "the serial state {path}: {detail}; it holds the serial of the last catalog applied with this key: fix or remove it (then pass --min-serial with the last serial you applied)"
    )]
    State {
        /// The state file.
        path: String,
        /// What failed.
        detail: String,
    },
    /// An ISO the catalog lists fails the checks the one-ISO `register` makes.
    #[error("{url}: {source}; nothing was registered")]
    IsoRefused {
        /// The ISO's URL.
        url: String,
        /// Why.
        source: Box<RegisterError>,
    },
    /// The ISO is another version or arch than the catalog says.
    #[error(
        "{url} holds Kubernetes {found} but the catalog lists it as {listed}; nothing was registered (write the catalog again from the folder)"
    )]
    Mislabelled {
        /// The ISO's URL.
        url: String,
        /// What its versions.txt says.
        found: String,
        /// What the catalog says.
        listed: String,
    },
    /// The same version is registered with another checksum in a zone.
    #[error(
        "Kubernetes {version} is registered in zone {zone} as {existing}, but the catalog's {ours}; nothing was changed: delete that version in CloudStack (no cluster may use it) or publish the ISO it was registered with"
    )]
    Conflict {
        /// The version and arch: `1.33.2 (x86_64)`.
        version: String,
        /// The zone's name.
        zone: String,
        /// The registered version: `<name> (id <id>) with checksum <hex>`.
        existing: String,
        /// The catalog's ISO: `<file> has sha256 <hex>`.
        ours: String,
    },
    /// What the single-ISO `register` reports (zones, downloads, timeouts).
    #[error("{0}")]
    Register(Box<RegisterError>),
    /// CloudStack answered with an error.
    #[error("{0}")]
    CloudStack(#[from] CloudStackError),
}

impl From<RegisterError> for CatalogRegisterError {
    fn from(error: RegisterError) -> Self {
        CatalogRegisterError::Register(Box::new(error))
    }
}

/// What to do when `what` cannot be read.
fn advice(what: &str) -> &'static str {
    match what {
        "the catalog's signature" => {
            "sign the catalog with `cks-iso catalog DIR --sign-key KEY` and publish catalog.json.sig beside it"
        }
        "the ISO's signature" => {
            "publish the ISO's .sig beside it (`cks-iso catalog DIR --sign-key KEY` writes it)"
        }
        "the ISO" => "publish the ISO at the URL the catalog names",
        _ => "check the URL or path",
    }
}
