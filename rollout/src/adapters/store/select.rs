//! The store a `--store` value names: `postgres://USER@HOST[:PORT]/DB` (or `postgresql://`),
//! `sqlite:PATH`, or a bare file path (SQLite), opened as one [`AnyStore`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::error::StoreError;
use super::postgres::PostgresStore;
use super::postgres::PostgresUrl;
use super::rules::{RecordStore, RecordTable};
use super::sqlite::SqliteStore;
use crate::model::ClusterRecord;

/// Where the cluster records live.
#[derive(Debug, Clone)]
pub enum StoreUrl {
    /// A SQLite file (created if missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database (the schema is created if missing).
    Postgres(Box<PostgresUrl>),
}

impl StoreUrl {
    /// What the user should be told once about this store's connection: a PostgreSQL URL that
    /// asks for weaker TLS than the default ([`super::postgres_tls::TlsSettings::warning`]).
    pub fn warning(&self) -> Option<String> {
        match self {
            StoreUrl::Sqlite(_) => None,
            StoreUrl::Postgres(url) => url.tls().warning(),
        }
    }

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
pub struct AnyStore(Box<dyn RecordTable>);

impl AnyStore {
    /// Opens (creating or migrating as needed) the store at `url`.
    pub fn open(url: &StoreUrl) -> Result<Self, StoreError> {
        let store: Box<dyn RecordTable> = match url {
            StoreUrl::Sqlite(path) => Box::new(SqliteStore::open(Path::new(path))?),
            StoreUrl::Postgres(url) => Box::new(PostgresStore::open(url)?),
        };
        Ok(AnyStore(store))
    }

    /// Reads one record.
    pub fn get(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.0.record(id)
    }

    /// Writes `record` whole, replacing any record with its id.
    pub fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        self.0.put(record)
    }

    /// Writes `record` unless a record with its id exists; `true` when it wrote it.
    pub fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        self.0.insert_new(record)
    }

    /// Every record's id.
    pub fn ids(&mut self) -> Result<Vec<String>, StoreError> {
        self.0.ids()
    }
}

impl RecordStore for AnyStore {
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.0.record(id)
    }

    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        self.0.change(id, change)
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
