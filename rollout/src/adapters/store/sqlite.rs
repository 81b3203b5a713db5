//! The cluster records in SQLite: one row per cluster (its state in a column, the whole record
//! as JSON), every change a read-check-write inside `BEGIN IMMEDIATE`, so that of two
//! processes racing to move a cluster to `Updating`, exactly one wins.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::error::StoreError;
use super::rules::{RecordStore, RecordTable};
use crate::model::{ClusterRecord, ClusterState};

/// A store in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

fn state_name(state: ClusterState) -> String {
    format!("{state:?}")
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`; a writer waits up to 10 s for another.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let db = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS clusters (
                 id TEXT PRIMARY KEY,
                 state TEXT NOT NULL,
                 record TEXT NOT NULL
             )",
        )
        .map_err(db)?;
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `record` whole, replacing any record with its id.
    pub fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        let json = serde_json::to_string(record).map_err(|e| StoreError::Corrupt {
            id: record.id.clone(),
            detail: e.to_string(),
        })?;
        self.conn
            .execute(
                "INSERT INTO clusters (id, state, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET state = excluded.state, record = excluded.record",
                params![record.id, state_name(record.state), json],
            )
            .map_err(|source| StoreError::Sqlite {
                path: self.path.clone(),
                source,
            })?;
        Ok(())
    }

    /// Writes `record` unless a record with its id exists; `true` when it wrote it.
    pub fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        let json = serde_json::to_string(record).map_err(|e| StoreError::Corrupt {
            id: record.id.clone(),
            detail: e.to_string(),
        })?;
        let rows = self
            .conn
            .execute(
                "INSERT INTO clusters (id, state, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO NOTHING",
                params![record.id, state_name(record.state), json],
            )
            .map_err(|source| StoreError::Sqlite {
                path: self.path.clone(),
                source,
            })?;
        Ok(rows == 1)
    }

    /// Reads one record.
    pub fn get(&self, id: &str) -> Result<ClusterRecord, StoreError> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT record FROM clusters WHERE id = ?1",
                params![id],
                |row| row.get(0),
            )
            .optional()
            .map_err(|source| StoreError::Sqlite {
                path: self.path.clone(),
                source,
            })?;
        let json = json.ok_or_else(|| StoreError::NoSuchCluster {
            id: id.to_string(),
            store: self.path.display().to_string(),
        })?;
        serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
            id: id.to_string(),
            detail: e.to_string(),
        })
    }

    /// Every record's id.
    pub fn ids(&self) -> Result<Vec<String>, StoreError> {
        let db = |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let mut statement = self
            .conn
            .prepare("SELECT id FROM clusters ORDER BY id")
            .map_err(db)?;
        let rows = statement.query_map([], |row| row.get(0)).map_err(db)?;
        rows.collect::<Result<Vec<String>, _>>().map_err(db)
    }

    /// In one immediate transaction: reads the record and SQLite's clock (milliseconds since
    /// the Unix epoch), lets `change` edit the record (returning whether to write it), writes it
    /// back. Returns what `change` returned.
    pub fn update(
        &mut self,
        id: &str,
        change: impl FnOnce(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let db = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        // The heartbeat is stamped with the database's clock, read in the transaction.
        let row: Option<(String, i64)> = tx
            .query_row(
                "SELECT record, CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)
                 FROM clusters WHERE id = ?1",
                params![id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()
            .map_err(db)?;
        let (json, now_ms) = row.ok_or_else(|| StoreError::NoSuchCluster {
            id: id.to_string(),
            store: path.display().to_string(),
        })?;
        let mut record: ClusterRecord =
            serde_json::from_str(&json).map_err(|e| StoreError::Corrupt {
                id: id.to_string(),
                detail: e.to_string(),
            })?;
        if !change(&mut record, u64::try_from(now_ms).unwrap_or(0)) {
            return Ok(false);
        }
        let json = serde_json::to_string(&record).map_err(|e| StoreError::Corrupt {
            id: id.to_string(),
            detail: e.to_string(),
        })?;
        tx.execute(
            "UPDATE clusters SET state = ?2, record = ?3 WHERE id = ?1",
            params![id, state_name(record.state), json],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(true)
    }
}

impl RecordStore for SqliteStore {
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.get(id)
    }

    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        self.update(id, change)
    }
}

impl RecordTable for SqliteStore {
    fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        SqliteStore::put(self, record)
    }

    fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        SqliteStore::insert_new(self, record)
    }

    fn ids(&mut self) -> Result<Vec<String>, StoreError> {
        SqliteStore::ids(self)
    }
}
