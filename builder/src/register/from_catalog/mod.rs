//! `register --catalog`: each ISO of a release catalog registered in each zone it is missing
//! from, in three steps that [`super::run`]'s single ISO does not need:
//!
//! 1. [`load`]: the catalog read (bounded), its signature checked with `--key` when
//!    `--require-signature`, the ISOs selected (`--latest-per-minor`), and each one's URL
//!    fetched and hashed (streamed, never more than the catalog's size) against the catalog's
//!    sha256 and its `.sig`: all before CloudStack is called at all.
//! 2. [`plan`]: what CloudStack has, per zone, turned into [`Step`](cks_pinning::catalog::Step)s by
//!    [`cks_pinning::catalog::plan_registration`]; a version registered with another checksum
//!    stops the run here.
//! 3. [`apply`]: the steps carried out (unless `--dry-run`), each becoming a table row.

mod apply;
mod error;
mod fetch;
mod load;
mod request;
mod table;

pub use apply::{Row, apply, plan};
pub use error::CatalogRegisterError;
pub use load::{Loaded, load};
pub use request::{CatalogRequest, DEFAULT_CATALOG_LIMIT, Zones};
pub use table::render as render_table;
