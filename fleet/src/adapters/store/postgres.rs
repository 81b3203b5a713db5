//! The fleet records in PostgreSQL, in the rollout's database: a `fleets` table (one row per
//! fleet, its record as JSONB) with its own `fleet_schema_version`, migrated under an advisory
//! lock of its own. Every change is a read-change-write in a serialisable transaction, run
//! again (a bounded number of times, after a short random pause) when PostgreSQL reports a
//! serialisation failure or a deadlock, so of any number of workers changing a fleet at once
//! none loses another's change.

use std::fmt;
use std::time::Duration;

use ::postgres::error::SqlState;
use ::postgres::{Client, IsolationLevel, Transaction};
use cks_rollout::adapters::store::PostgresUrl;
use cks_rollout::ports::PortResult;
use rand::Rng;

use super::{FleetStoreError, FleetTable, clock_ms, from_json, to_json};
use crate::model::FleetRecord;
use crate::ports::FleetStore;

/// The fleet schema version this build knows; a database with a newer one is refused.
pub const SCHEMA_VERSION: i32 = 1;

/// The migrations, in order: entry `i` takes the fleet schema from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 1: one row per fleet, the whole record as JSONB.
    "CREATE TABLE fleets (
         id TEXT PRIMARY KEY,
         record JSONB NOT NULL
     )",
];

/// The advisory lock that serialises fleet schema migrations of concurrent first opens
/// ("cks_flee"; the rollout's is "cks_roll").
const MIGRATION_LOCK: i64 = 0x636b_735f_666c_6565;

/// How many times a transaction that lost a serialisation conflict is run again.
const SERIALISATION_ATTEMPTS: u32 = 100;

/// The longest pause between two attempts, in milliseconds.
const MOST_PAUSE_MS: u64 = 50;

/// The database's clock in milliseconds since the Unix epoch, read when the statement runs.
const CLOCK: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// The fleet store in one PostgreSQL database.
pub struct PostgresFleetStore {
    url: PostgresUrl,
    client: Client,
}

impl fmt::Debug for PostgresFleetStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PostgresFleetStore({})", self.url)
    }
}

/// What a transaction body can fail with: the store's own errors end it, PostgreSQL's may be
/// a serialisation failure worth another attempt.
enum TxError {
    Store(FleetStoreError),
    Postgres(::postgres::Error),
}

impl From<FleetStoreError> for TxError {
    fn from(e: FleetStoreError) -> Self {
        TxError::Store(e)
    }
}

impl From<::postgres::Error> for TxError {
    fn from(e: ::postgres::Error) -> Self {
        TxError::Postgres(e)
    }
}

fn is_serialisation_failure(e: &::postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

impl PostgresFleetStore {
    /// Connects to `url`, creating the fleet table or migrating it to [`SCHEMA_VERSION`];
    /// refuses a database whose fleet schema is newer than this build knows.
    pub fn open(url: &PostgresUrl) -> Result<Self, FleetStoreError> {
        let client = url.connect().map_err(FleetStoreError::from_connect)?;
        let mut store = PostgresFleetStore {
            url: url.clone(),
            client,
        };
        store.migrate()?;
        Ok(store)
    }

    /// The connection string, without its password.
    pub fn url(&self) -> &PostgresUrl {
        &self.url
    }

    fn db(&self) -> impl Fn(::postgres::Error) -> FleetStoreError + use<> {
        let url = self.url.to_string();
        move |source| FleetStoreError::Postgres {
            url: url.clone(),
            source,
        }
    }

    fn migrate(&mut self) -> Result<(), FleetStoreError> {
        let db = self.db();
        let mut tx = self.client.transaction().map_err(&db)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(&db)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS fleet_schema_version (
                 version INTEGER PRIMARY KEY,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             )",
        )
        .map_err(&db)?;
        let found: i32 = tx
            .query_one(
                "SELECT COALESCE(MAX(version), 0) FROM fleet_schema_version",
                &[],
            )
            .map_err(&db)?
            .try_get(0)
            .map_err(&db)?;
        if found > SCHEMA_VERSION {
            return Err(FleetStoreError::SchemaTooNew {
                store: self.url.to_string(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (from, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            tx.batch_execute(sql).map_err(&db)?;
            tx.execute(
                "INSERT INTO fleet_schema_version (version) VALUES ($1)",
                &[&(from as i32 + 1)],
            )
            .map_err(&db)?;
        }
        tx.commit().map_err(&db)
    }

    /// A new connection when the last one was closed (the server restarted, the backend was
    /// terminated); the call that saw it close has already failed as unavailable.
    fn reconnect_if_closed(&mut self) -> Result<(), FleetStoreError> {
        if self.client.is_closed() {
            self.client = self.url.connect().map_err(FleetStoreError::from_connect)?;
        }
        Ok(())
    }

    /// Runs `body` in a serialisable transaction, running it again (after a random pause of at
    /// most [`MOST_PAUSE_MS`]) when PostgreSQL reports a serialisation failure or a deadlock,
    /// at most [`SERIALISATION_ATTEMPTS`] times.
    fn serialisable<T>(
        &mut self,
        mut body: impl FnMut(&mut Transaction<'_>) -> Result<T, TxError>,
    ) -> Result<T, FleetStoreError> {
        self.reconnect_if_closed()?;
        let db = self.db();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = (|| {
                let mut tx = self
                    .client
                    .build_transaction()
                    .isolation_level(IsolationLevel::Serializable)
                    .start()?;
                let value = body(&mut tx)?;
                tx.commit()?;
                Ok(value)
            })();
            match result {
                Ok(value) => return Ok(value),
                Err(TxError::Store(e)) => return Err(e),
                Err(TxError::Postgres(e))
                    if is_serialisation_failure(&e) && attempt < SERIALISATION_ATTEMPTS =>
                {
                    let most = (1u64 << attempt.min(6)).min(MOST_PAUSE_MS);
                    let pause = rand::rng().random_range(0..=most);
                    std::thread::sleep(Duration::from_millis(pause));
                }
                Err(TxError::Postgres(source)) => return Err(db(source)),
            }
        }
    }

    /// The error for a fleet that is not there, naming the fleets that are.
    fn missing(&mut self, id: &str) -> FleetStoreError {
        FleetStoreError::NoSuchFleet {
            id: id.to_string(),
            store: self.url.to_string(),
            known: self.ids().ok(),
        }
    }

    /// In one serialisable transaction: reads fleet `id`'s record (locking its row) and the
    /// database's clock, lets `change` edit the record, and writes it back when `change`
    /// returns true. `change` runs again when the transaction is retried, on the record as it
    /// is then.
    pub fn update(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> Result<(), FleetStoreError> {
        let store = self.url.to_string();
        let found = self.serialisable(|tx| {
            let Some(row) = tx.query_opt(
                &format!("SELECT record::text, {CLOCK} FROM fleets WHERE id = $1 FOR UPDATE"),
                &[&id],
            )?
            else {
                return Ok(false);
            };
            let mut record = from_json(id, row.try_get(0)?, &store)?;
            if change(&mut record, clock_ms(row.try_get(1)?)) {
                tx.execute(
                    "UPDATE fleets SET record = $2::text::jsonb WHERE id = $1",
                    &[&id, &to_json(&record, &store)?],
                )?;
            }
            Ok(true)
        })?;
        if found { Ok(()) } else { Err(self.missing(id)) }
    }
}

impl FleetStore for PostgresFleetStore {
    fn change(
        &mut self,
        fleet: &str,
        change: &mut dyn FnMut(&mut FleetRecord, u64) -> bool,
    ) -> PortResult<()> {
        Ok(self.update(fleet, change)?)
    }
}

impl FleetTable for PostgresFleetStore {
    fn create(&mut self, record: &FleetRecord) -> Result<bool, FleetStoreError> {
        let json = to_json(record, &self.url.to_string())?;
        self.serialisable(|tx| {
            let rows = tx.execute(
                "INSERT INTO fleets (id, record) VALUES ($1, $2::text::jsonb)
                 ON CONFLICT (id) DO NOTHING",
                &[&record.id, &json],
            )?;
            Ok(rows == 1)
        })
    }

    fn get(&mut self, id: &str) -> Result<FleetRecord, FleetStoreError> {
        self.reconnect_if_closed()?;
        let db = self.db();
        let row = self
            .client
            .query_opt("SELECT record::text FROM fleets WHERE id = $1", &[&id])
            .map_err(&db)?;
        match row {
            Some(row) => from_json(id, row.try_get(0).map_err(&db)?, &self.url.to_string()),
            None => Err(self.missing(id)),
        }
    }

    fn ids(&mut self) -> Result<Vec<String>, FleetStoreError> {
        self.reconnect_if_closed()?;
        let db = self.db();
        let rows = self
            .client
            .query("SELECT id FROM fleets ORDER BY id", &[])
            .map_err(&db)?;
        rows.iter().map(|row| row.try_get(0).map_err(&db)).collect()
    }

    fn now_ms(&mut self) -> Result<u64, FleetStoreError> {
        self.reconnect_if_closed()?;
        let db = self.db();
        let row = self
            .client
            .query_one(&format!("SELECT {CLOCK}"), &[])
            .map_err(&db)?;
        Ok(clock_ms(row.try_get(0).map_err(&db)?))
    }
}
