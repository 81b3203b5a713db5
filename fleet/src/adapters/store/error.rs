//! What can go wrong with the fleet store, and how each failure reaches a worker as a port
//! error: not found, unavailable for now (a busy SQLite file, a lost PostgreSQL connection,
//! conflicts that outlasted the retries), or other.

use std::path::PathBuf;

use cks_rollout::adapters::store::StoreError;
use cks_rollout::ports::{PortError, PortErrorKind};

/// How many fleet names a "no such fleet" message lists before it says how many more exist.
const LISTED: usize = 10;

/// What can go wrong with the fleet store.
#[derive(Debug, thiserror::Error)]
pub enum FleetStoreError {
    /// No fleet with that name.
    #[error("no fleet {id} in the store {store}; {}", fleets_hint(known.as_deref()))]
    NoSuchFleet {
        /// The fleet asked for.
        id: String,
        /// The store (its file, or its URL without the password).
        store: String,
        /// The fleets the store holds, when they could be listed.
        known: Option<Vec<String>>,
    },
    /// PostgreSQL failed or could not be reached.
    #[error("fleet store {url}: {}", postgres_detail(source))]
    Postgres {
        /// The connection string, without its password.
        url: String,
        /// Why.
        source: ::postgres::Error,
    },
    /// SQLite failed.
    #[error("fleet store {}: {source}", path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// A stored record that does not parse (or a record that cannot be written as JSON).
    #[error(
        "the stored record of fleet {id} in {store} is damaged: {detail}; a newer cks-fleet may have written it"
    )]
    Corrupt {
        /// The fleet's name.
        id: String,
        /// The store (its file, or its URL without the password).
        store: String,
        /// What is wrong.
        detail: String,
    },
    /// The database holds a fleet schema this build does not know.
    #[error(
        "fleet store {store}: its fleet schema is version {found}, newer than version {known} that this cks-fleet knows; use a cks-fleet at least as new as the one that migrated it"
    )]
    SchemaTooNew {
        /// The store (its file, or its URL without the password).
        store: String,
        /// The version the database records.
        found: i32,
        /// The newest version this build knows.
        known: i32,
    },
    /// The store URL's settings could not make a connection (TLS settings, certificates).
    #[error(transparent)]
    Url(StoreError),
}

impl FleetStoreError {
    /// A failed connection through the rollout's [`PostgresUrl`](cks_rollout::adapters::store::PostgresUrl),
    /// named as the fleet store's.
    pub(super) fn from_connect(e: StoreError) -> Self {
        match e {
            StoreError::Postgres { url, source } => FleetStoreError::Postgres { url, source },
            other => FleetStoreError::Url(other),
        }
    }

    /// The failure's class for a worker: [`PortErrorKind::NotFound`] for a missing fleet,
    /// [`PortErrorKind::Unavailable`] when retrying later may help, else
    /// [`PortErrorKind::Other`].
    pub fn kind(&self) -> PortErrorKind {
        match self {
            FleetStoreError::NoSuchFleet { .. } => PortErrorKind::NotFound,
            FleetStoreError::Sqlite { source, .. }
                if matches!(
                    source.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) =>
            {
                PortErrorKind::Unavailable
            }
            FleetStoreError::Postgres { source, .. } if postgres_unavailable(source) => {
                PortErrorKind::Unavailable
            }
            _ => PortErrorKind::Other,
        }
    }
}

impl From<FleetStoreError> for PortError {
    fn from(e: FleetStoreError) -> Self {
        PortError::new(e.kind(), e.to_string())
    }
}

/// What to say after "no fleet X": the fleets there are, or how to make one.
fn fleets_hint(known: Option<&[String]>) -> String {
    match known {
        None => "create it with `cks-fleet run`".into(),
        Some([]) => "it holds no fleets yet; create one with `cks-fleet run`".into(),
        Some(names) if names.len() <= LISTED => format!("its fleets: {}", names.join(", ")),
        Some(names) => format!(
            "its fleets: {} and {} more",
            names[..LISTED].join(", "),
            names.len() - LISTED
        ),
    }
}

use cks_rollout::adapters::store::error::postgres_detail;
use cks_rollout::adapters::store::rules::postgres_unavailable;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_fleet_names_the_fleets_there_or_how_to_create_one() {
        let missing = |known: Option<Vec<String>>| FleetStoreError::NoSuchFleet {
            id: "f9".into(),
            store: "sqlite:f.db".into(),
            known,
        };
        let text = missing(Some(vec!["a".into(), "b".into()])).to_string();
        assert_eq!(
            text,
            "no fleet f9 in the store sqlite:f.db; its fleets: a, b"
        );
        let text = missing(Some(vec![])).to_string();
        assert!(text.contains("no fleets yet; create one"), "{text}");
        let many = (0..12).map(|i| format!("f{i}")).collect();
        let text = missing(Some(many)).to_string();
        assert!(text.ends_with("f9 and 2 more"), "{text}");
        assert_eq!(missing(None).kind(), PortErrorKind::NotFound);
    }
}
