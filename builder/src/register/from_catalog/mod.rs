//! `register --catalog`: each ISO of a release catalog registered in each zone it is missing
//! from, in three steps that [`super::run`]'s single ISO does not need:
//!
//! 1. [`load`]: the catalog read (bounded), its signature checked with `--key` (required unless
//!    `--allow-unsigned`), its serial (not below the last applied with the key, kept in
//!    `<key>.serial` by [`record_serial`], nor `--min-serial`) and its expiry checked, an empty
//!    catalog refused, the ISOs selected (`--latest-per-minor`), and each one's URL fetched into
//!    a scratch file and hashed (streamed, never more than the catalog's size) against the
//!    catalog's sha256 and its `.sig`, then checked as the one-ISO `register` checks an ISO
//!    (`verify`, its version and arch): all before CloudStack is called at all.
//! 2. [`plan`]: each ISO checked against the server's CloudStack line, then what CloudStack has,
//!    per zone, turned into [`Step`](cks_pinning::catalog::Step)s by
//!    [`cks_pinning::catalog::plan_registration`]; a version registered with another checksum
//!    stops the run here. `--retire-eol` reaches only versions whose ISO came from the
//!    catalog's folder, of minors older than its oldest, in the zones asked for.
//! 3. [`apply`]: the steps carried out (unless `--dry-run`), each becoming a table row.

mod apply;
mod error;
mod fetch;
mod freshness;
mod load;
mod request;
mod table;

pub use apply::{Row, apply, plan};
pub use error::CatalogRegisterError;
pub use freshness::{record as record_serial, state_path};
pub use load::{Loaded, load};
pub use request::{CatalogRequest, DEFAULT_CATALOG_LIMIT, Zones};
pub use table::render as render_table;
