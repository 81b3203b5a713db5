//! What can go wrong with the store, with the server's own words for PostgreSQL.

use std::path::PathBuf;

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("cluster store {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// PostgreSQL failed or could not be reached.
    #[error("cluster store {url}: {}", postgres_detail(source))]
    Postgres {
        /// The connection string, without its password.
        url: String,
        /// Why.
        source: ::postgres::Error,
    },
    /// The database holds a schema this build does not know.
    #[error(
        "cluster store {url}: its schema is version {found}, newer than version {known} that this cks-rollout knows; use a cks-rollout at least as new as the one that migrated it"
    )]
    SchemaTooNew {
        /// The connection string, without its password.
        url: String,
        /// The version the database records.
        found: i32,
        /// The newest version this build knows.
        known: i32,
    },
    /// A `--store` value that is not a store URL.
    #[error(
        "--store {url}: {detail}; expected postgres://USER@HOST[:PORT]/DB, sqlite:PATH or a file path"
    )]
    BadUrl {
        /// The value given, without any password.
        url: String,
        /// What is wrong.
        detail: String,
    },
    /// No record with that id.
    #[error("no cluster {id} in the store {store}; add it first")]
    NoSuchCluster {
        /// The cluster id.
        id: String,
        /// The store (its file, or its URL without the password).
        store: String,
    },
    /// A record that does not parse.
    #[error("the stored record of cluster {id} is damaged: {detail}")]
    Corrupt {
        /// The cluster id.
        id: String,
        /// What is wrong.
        detail: String,
    },
}

/// A PostgreSQL error with the server's own message (its `Display` alone says only "db error");
/// the fleet's store words its errors with it too.
pub fn postgres_detail(e: &::postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{} {}: {}", db.severity(), db.code().code(), db.message());
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}
