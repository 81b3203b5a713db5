//! The release catalog: `catalog.json`, the list of published ISOs a CI job writes beside them
//! and `cks-iso register --catalog` reads ([`schema`]), which of its ISOs to register in which
//! zone and which registered versions to retire ([`registration`]).
//!
//! ```
//! use cks_pinning::catalog::Catalog;
//! let text = r#"{"schema_version": 1, "generator": {"name": "cks-iso", "version": "0.1.0", "commit": null},
//!   "isos": [], "checksums": []}"#;
//! let catalog = Catalog::parse(text).expect("a valid catalog");
//! assert!(catalog.isos.is_empty());
//! ```

pub mod registration;
pub mod schema;

pub use registration::{
    Existing, RetireScope, Retirement, Step, ZoneRef, latest_per_minor, plan as plan_registration,
};
pub use schema::{
    CHECKSUMS_PREFIX, Catalog, CatalogError, CatalogIso, ChecksumFile, FILE_NAME, Generator,
    SCHEMA_VERSION, TimeError, checksums_file_name, parse_time,
};
