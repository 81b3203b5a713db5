//! The fleet records in a database, beside the rollout's cluster records: PostgreSQL for
//! workers on several hosts, or a SQLite file for one host, chosen by the rollout's store URL
//! ([`StoreUrl`]). One row per fleet holds the whole [`FleetRecord`] as JSON; every change is
//! one read-change-write transaction stamped with the database's clock, so workers on hosts
//! whose clocks disagree still agree on leases.
//!
//! ```no_run
//! use cks_fleet::adapters::store;
//! use cks_rollout::adapters::store::StoreUrl;
//!
//! let url: StoreUrl = "sqlite:/var/lib/cks/fleet.db".parse().expect("a store URL");
//! let mut fleets = store::open(&url).expect("the store opens");
//! fleets
//!     .change("march", &mut |record, _now_ms| {
//!         record.cancelled = true;
//!         true
//!     })
//!     .expect("cancelled");
//! ```

mod error;
pub mod postgres;
pub mod sqlite;

use cks_rollout::adapters::store::StoreUrl;

use crate::model::FleetRecord;
use crate::ports::FleetStore;

pub use error::FleetStoreError;
pub use postgres::PostgresFleetStore;
pub use sqlite::SqliteFleetStore;

/// The fleet store as the command line opens it: the workers' [`FleetStore`], and the acts
/// around it (create a fleet, read one, list them, read the store's clock).
pub trait FleetTable: FleetStore + Send + std::fmt::Debug {
    /// Writes `record` as a new fleet: `true` when written, `false` when a fleet with its id
    /// exists (that fleet is left as it is).
    fn create(&mut self, record: &FleetRecord) -> Result<bool, FleetStoreError>;

    /// Reads fleet `id`'s record.
    fn get(&mut self, id: &str) -> Result<FleetRecord, FleetStoreError>;

    /// Every fleet's id, sorted.
    fn ids(&mut self) -> Result<Vec<String>, FleetStoreError>;

    /// The database's clock, milliseconds since the Unix epoch (the clock of every lease).
    fn now_ms(&mut self) -> Result<u64, FleetStoreError>;
}

/// Opens the fleet store at `url` (the rollout's `--store` syntax: `postgres://USER@HOST/DB`,
/// `sqlite:PATH` or a bare path), creating its table or migrating it as needed.
pub fn open(url: &StoreUrl) -> Result<Box<dyn FleetTable>, FleetStoreError> {
    Ok(match url {
        StoreUrl::Sqlite(path) => Box::new(SqliteFleetStore::open(path)?),
        StoreUrl::Postgres(url) => Box::new(PostgresFleetStore::open(url)?),
    })
}

/// `record` as the JSON the store keeps.
fn to_json(record: &FleetRecord, store: &str) -> Result<String, FleetStoreError> {
    serde_json::to_string(record).map_err(|e| FleetStoreError::Corrupt {
        id: record.id.clone(),
        store: store.to_string(),
        detail: format!("it cannot be written as JSON: {e}"),
    })
}

/// Fleet `id`'s stored JSON, parsed.
fn from_json(id: &str, json: &str, store: &str) -> Result<FleetRecord, FleetStoreError> {
    serde_json::from_str(json).map_err(|e| FleetStoreError::Corrupt {
        id: id.to_string(),
        store: store.to_string(),
        detail: e.to_string(),
    })
}

/// A database clock reading as milliseconds (a clock before 1970 reads as 0).
fn clock_ms(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}
