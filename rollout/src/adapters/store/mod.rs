//! The cluster store for the command line: SQLite (one host) or PostgreSQL (several hosts),
//! chosen by URL, with compare-and-set state transitions.

pub mod error;
pub mod postgres;
mod postgres_port;
pub mod postgres_tls;
mod postgres_verify;
pub mod rules;
pub mod select;
pub mod sqlite;

pub use error::StoreError;
pub use postgres::{PostgresStore, PostgresUrl};
pub use rules::{RecordStore, RecordTable};
pub use select::{AnyStore, StoreUrl};
pub use sqlite::SqliteStore;
