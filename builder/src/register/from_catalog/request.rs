//! What `register --catalog` is asked to do: the catalog, the zones, the selection and the
//! settings each ISO is registered with.

use crate::register::RequiredKey;
use crate::register::request::RegisterSettings;

/// The catalog limit when `--catalog-limit` is not given.
pub const DEFAULT_CATALOG_LIMIT: u64 = 8 << 20;

/// Which zones to register in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Zones {
    /// Every zone CloudStack lists.
    All,
    /// These, by name or id.
    Named(Vec<String>),
}

/// What `register --catalog` is asked to do.
#[derive(Debug, Clone)]
pub struct CatalogRequest {
    /// The catalog's URL or path.
    pub catalog: String,
    /// The most bytes read of it.
    pub catalog_limit: u64,
    /// The zones.
    pub zones: Zones,
    /// Only the newest patch of each minor (per arch).
    pub latest_per_minor: bool,
    /// Retire registered versions whose minor the catalog no longer has.
    pub retire_eol: bool,
    /// Print the plan, change nothing.
    pub dry_run: bool,
    /// Require the catalog's and each ISO's signature by this key (`--key`, with its path);
    /// `None` only with `--allow-unsigned`.
    pub key: Option<RequiredKey>,
    /// Refuse a catalog whose serial is below this (`--min-serial`), besides the serial last
    /// applied with the key.
    pub min_serial: Option<u64>,
    /// How each ISO is registered and waited for.
    pub settings: RegisterSettings,
}
