//! The cluster store for the command line: SQLite, with compare-and-set state transitions.

pub mod sqlite;

use std::path::PathBuf;

pub use sqlite::SqliteStore;

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
    /// No record with that id.
    #[error("no cluster {id} in the store {path}; add it first")]
    NoSuchCluster {
        /// The cluster id.
        id: String,
        /// The database file.
        path: PathBuf,
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
