//! The fleet records in a SQLite file (the rollout's, when the store URL names it): a `fleets`
//! table (one row per fleet, its record as JSON text) with its own `fleet_schema_version`.
//! Every change is a read-change-write inside `BEGIN IMMEDIATE`, which takes the file's write
//! lock first, so of several workers changing a fleet at once each sees the last one's write;
//! a writer waits up to [`BUSY_TIMEOUT`] for another.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cks_rollout::ports::PortResult;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{FleetStoreError, FleetTable, clock_ms, from_json, to_json};
use crate::model::FleetRecord;
use crate::ports::FleetStore;

/// The fleet schema version this build knows; a file with a newer one is refused.
pub const SCHEMA_VERSION: i32 = 1;

/// The migrations, in order: entry `i` takes the fleet schema from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 1: one row per fleet, the whole record as JSON.
    "CREATE TABLE fleets (
         id TEXT PRIMARY KEY,
         record TEXT NOT NULL
     )",
];

/// How long a writer waits for another's transaction before the call fails as unavailable.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// SQLite's clock in milliseconds since the Unix epoch.
const CLOCK: &str = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

/// The fleet store in one SQLite file.
#[derive(Debug)]
pub struct SqliteFleetStore {
    conn: Connection,
    path: PathBuf,
}

impl SqliteFleetStore {
    /// Opens (creating if needed) the store at `path`, creating the fleet table or migrating
    /// it to [`SCHEMA_VERSION`]; refuses a file whose fleet schema is newer than this build
    /// knows.
    pub fn open(path: &Path) -> Result<Self, FleetStoreError> {
        let db = sqlite_error(path);
        let conn = Connection::open(path).map_err(&db)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(&db)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(&db)?;
        let mut store = SqliteFleetStore {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The store's name in messages.
    fn shown(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }

    fn migrate(&mut self) -> Result<(), FleetStoreError> {
        let db = sqlite_error(&self.path);
        let store = self.shown();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        tx.execute_batch(
            "CREATE TABLE IF NOT EXISTS fleet_schema_version (
                 version INTEGER PRIMARY KEY,
                 applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
             )",
        )
        .map_err(&db)?;
        let found: i32 = tx
            .query_row(
                "SELECT COALESCE(MAX(version), 0) FROM fleet_schema_version",
                [],
                |row| row.get(0),
            )
            .map_err(&db)?;
        if found > SCHEMA_VERSION {
            return Err(FleetStoreError::SchemaTooNew {
                store,
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (from, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            tx.execute_batch(sql).map_err(&db)?;
            tx.execute(
                "INSERT INTO fleet_schema_version (version) VALUES (?1)",
                params![from as i32 + 1],
            )
            .map_err(&db)?;
        }
        tx.commit().map_err(&db)
    }

    /// The error for a fleet that is not there, naming the fleets that are.
    fn missing(&mut self, id: &str) -> FleetStoreError {
        FleetStoreError::NoSuchFleet {
            id: id.to_string(),
            store: self.shown(),
            known: self.ids().ok(),
        }
    }

    /// In one immediate transaction: reads fleet `id`'s record and SQLite's clock, lets
    /// `change` edit the record, and writes it back when `change` returns true.
    pub fn update(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> Result<(), FleetStoreError> {
        let db = sqlite_error(&self.path);
        let store = self.shown();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        let row: Option<(String, i64)> = tx
            .query_row(
                &format!("SELECT record, {CLOCK} FROM fleets WHERE id = ?1"),
                params![id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(&db)?;
        let Some((json, now_ms)) = row else {
            drop(tx);
            return Err(self.missing(id));
        };
        let mut record = from_json(id, &json, &store)?;
        if change(&mut record, clock_ms(now_ms)) {
            tx.execute(
                "UPDATE fleets SET record = ?2 WHERE id = ?1",
                params![id, to_json(&record, &store)?],
            )
            .map_err(&db)?;
            tx.commit().map_err(&db)?;
        }
        Ok(())
    }
}

/// Turns a SQLite error into the store's, naming the file.
fn sqlite_error(path: &Path) -> impl Fn(rusqlite::Error) -> FleetStoreError + use<> {
    let path = path.to_path_buf();
    move |source| FleetStoreError::Sqlite {
        path: path.clone(),
        source,
    }
}

impl FleetStore for SqliteFleetStore {
    fn change(
        &mut self,
        fleet: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> PortResult<()> {
        Ok(self.update(fleet, change)?)
    }
}

impl FleetTable for SqliteFleetStore {
    fn create(&mut self, record: &FleetRecord) -> Result<bool, FleetStoreError> {
        let json = to_json(record, &self.shown())?;
        let rows = self
            .conn
            .execute(
                "INSERT INTO fleets (id, record) VALUES (?1, ?2) ON CONFLICT(id) DO NOTHING",
                params![record.id, json],
            )
            .map_err(sqlite_error(&self.path))?;
        Ok(rows == 1)
    }

    fn get(&mut self, id: &str) -> Result<FleetRecord, FleetStoreError> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT record FROM fleets WHERE id = ?1",
                params![id],
                |row| row.get(0),
            )
            .optional()
            .map_err(sqlite_error(&self.path))?;
        match json {
            Some(json) => from_json(id, &json, &self.shown()),
            None => Err(self.missing(id)),
        }
    }

    fn ids(&mut self) -> Result<Vec<String>, FleetStoreError> {
        let db = sqlite_error(&self.path);
        let mut statement = self
            .conn
            .prepare("SELECT id FROM fleets ORDER BY id")
            .map_err(&db)?;
        let rows = statement.query_map([], |row| row.get(0)).map_err(&db)?;
        rows.collect::<Result<Vec<String>, _>>().map_err(&db)
    }

    fn now_ms(&mut self) -> Result<u64, FleetStoreError> {
        let ms: i64 = self
            .conn
            .query_row(&format!("SELECT {CLOCK}"), [], |row| row.get(0))
            .map_err(sqlite_error(&self.path))?;
        Ok(clock_ms(ms))
    }
}
