//! The store a `--store` value names: `postgres://USER@HOST[:PORT]/DB` (or `postgresql://`),
//! `sqlite:PATH`, or a bare file path (SQLite), opened as one [`AnyStore`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::{PostgresStore, PostgresUrl, SqliteStore, StoreError};
use crate::model::{ClusterRecord, ClusterState, Lease, TypeSettings};
use crate::ports::{PortResult, Store};

/// Where the cluster records live.
#[derive(Debug, Clone)]
pub enum StoreUrl {
    /// A SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database (the schema is created if missing).
    Postgres(Box<PostgresUrl>),
}

impl StoreUrl {
    /// True for a SQLite file that does not exist yet (opening it would create it).
    pub fn is_missing(&self) -> bool {
        match self {
            StoreUrl::Sqlite(path) => !path.exists(),
            StoreUrl::Postgres(_) => false,
        }
    }
}

impl FromStr for StoreUrl {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, StoreError> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(StoreUrl::Postgres(Box::new(text.parse()?)));
        }
        if let Some(path) = text.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(StoreError::BadUrl {
                    url: text.to_string(),
                    detail: "no file after sqlite:".into(),
                });
            }
            return Ok(StoreUrl::Sqlite(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(StoreError::BadUrl {
                url: format!("{scheme}://..."),
                detail: format!("{scheme}:// is not a store this tool knows"),
            });
        }
        if text.is_empty() {
            return Err(StoreError::BadUrl {
                url: String::new(),
                detail: "empty".into(),
            });
        }
        Ok(StoreUrl::Sqlite(PathBuf::from(text)))
    }
}

impl fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreUrl::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            StoreUrl::Postgres(url) => url.fmt(f),
        }
    }
}

/// The store a [`StoreUrl`] names, open.
#[derive(Debug)]
pub enum AnyStore {
    /// SQLite.
    Sqlite(SqliteStore),
    /// PostgreSQL.
    Postgres(Box<PostgresStore>),
}

impl AnyStore {
    /// Opens (creating or migrating as needed) the store at `url`.
    pub fn open(url: &StoreUrl) -> Result<Self, StoreError> {
        Ok(match url {
            StoreUrl::Sqlite(path) => AnyStore::Sqlite(SqliteStore::open(Path::new(path))?),
            StoreUrl::Postgres(url) => AnyStore::Postgres(Box::new(PostgresStore::open(url)?)),
        })
    }

    /// Reads one record.
    pub fn get(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.get(id),
            AnyStore::Postgres(s) => s.get(id),
        }
    }

    /// Writes `record` whole, replacing any record with its id.
    pub fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.put(record),
            AnyStore::Postgres(s) => s.put(record),
        }
    }

    /// Writes `record` unless a record with its id exists; `true` when it wrote it.
    pub fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.insert_new(record),
            AnyStore::Postgres(s) => s.insert_new(record),
        }
    }

    /// Every record's id.
    pub fn ids(&mut self) -> Result<Vec<String>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.ids(),
            AnyStore::Postgres(s) => s.ids(),
        }
    }

    fn port(&mut self) -> &mut dyn Store {
        match self {
            AnyStore::Sqlite(s) => s,
            AnyStore::Postgres(s) => s.as_mut(),
        }
    }
}

impl Store for AnyStore {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.port().load(cluster_id)
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.port()
            .compare_and_set_state(cluster_id, expected, new, lease)
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.port().save_settings(cluster_id, expected, settings)
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.port().renew_lease(cluster_id, lease)
    }

    fn begin_rollout(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.port()
            .begin_rollout(cluster_id, expected, lease, settings)
    }

    fn request_cancel(&mut self, cluster_id: &str) -> PortResult<bool> {
        self.port().request_cancel(cluster_id)
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.port().set_cancel(cluster_id, cancel)
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.port().set_last_error(cluster_id, error)
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.port().set_capacity(cluster_id, cores, memory_mb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_value_picks_the_backend() {
        assert!(matches!(
            "cks-rollout.db".parse::<StoreUrl>(),
            Ok(StoreUrl::Sqlite(p)) if p == Path::new("cks-rollout.db")
        ));
        assert!(matches!(
            "sqlite:///var/lib/r.db".parse::<StoreUrl>(),
            Ok(StoreUrl::Sqlite(p)) if p == Path::new("/var/lib/r.db")
        ));
        assert!(matches!(
            "sqlite:r.db".parse::<StoreUrl>(),
            Ok(StoreUrl::Sqlite(p)) if p == Path::new("r.db")
        ));
        let pg: StoreUrl = "postgres://roll:pw@db:5433/cks".parse().expect("parses");
        assert_eq!(pg.to_string(), "postgres://roll@db:5433/cks");
        let e = "mysql://roll:pw@db/cks"
            .parse::<StoreUrl>()
            .expect_err("unknown scheme");
        assert!(e.to_string().contains("mysql://"), "{e}");
        assert!(!e.to_string().contains("pw"), "{e}");
    }
}
