//! The cluster records in PostgreSQL, for rollouts run from more than one host: one row per
//! cluster (its state in a column, the whole record as JSONB), every change a read-check-write
//! in a serialisable transaction retried a bounded number of times on a serialisation failure,
//! so that of any number of processes racing to move a cluster to `Updating`, exactly one wins.
//! The tool creates the schema and migrates it, recording each version in `schema_version`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config, IsolationLevel, Transaction};
use rand::Rng;

use super::error::StoreError;
use super::postgres_tls::{ConnectError, TlsSettings, split_tls_params};
use crate::model::{ClusterRecord, ClusterState};

/// The schema version this build knows; a database with a newer one is refused.
pub const SCHEMA_VERSION: i32 = 1;

/// The migrations, in order: entry `i` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 1: one row per cluster, the state beside the record so operators can query it.
    "CREATE TABLE clusters (
         id TEXT PRIMARY KEY,
         state TEXT NOT NULL,
         record JSONB NOT NULL
     )",
];

/// The advisory lock that serialises schema migrations of concurrent first opens.
const MIGRATION_LOCK: i64 = 0x636b_735f_726f_6c6c;

/// How many times a transaction that lost a serialisation conflict is run again.
const SERIALISATION_ATTEMPTS: u32 = 40;

/// A PostgreSQL connection string, kept with a form that is safe to print (no password).
#[derive(Clone)]
pub struct PostgresUrl {
    config: Config,
    tls: TlsSettings,
    shown: String,
}

impl PostgresUrl {
    /// The connection settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The TLS settings (`sslmode`, `sslrootcert`).
    pub fn tls(&self) -> &TlsSettings {
        &self.tls
    }

    /// A new connection, over TLS as [`PostgresUrl::tls`] says (the fleet's store opens its
    /// own connections to the rollout's database through it).
    pub fn connect(&self) -> Result<Client, StoreError> {
        self.tls.connect(&self.config).map_err(|e| match e {
            ConnectError::Postgres(source) => StoreError::Postgres {
                url: self.to_string(),
                source,
            },
            ConnectError::Settings(e) => StoreError::BadUrl {
                url: self.to_string(),
                detail: e.to_string(),
            },
        })
    }
}

impl fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PostgresUrl({})", self.shown)
    }
}

impl FromStr for PostgresUrl {
    type Err = StoreError;

    /// Parses `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?key=value...]`; without a password in
    /// the URL, `PGPASSWORD` gives it. `sslmode` and `sslrootcert` set TLS (see
    /// [`super::postgres_tls`]).
    fn from_str(text: &str) -> Result<Self, StoreError> {
        let bad = |detail: String| StoreError::BadUrl {
            url: redact(text),
            detail,
        };
        let params = split_tls_params(text).map_err(|e| bad(e.to_string()))?;
        let mut config = Config::from_str(&params.rest)
            .map_err(|e| bad(format!("not a PostgreSQL URL: {e}")))?;
        let tls = TlsSettings::decide(&config, &params).map_err(|e| bad(e.to_string()))?;
        let user = config
            .get_user()
            .filter(|u| !u.is_empty())
            .ok_or_else(|| bad("no user: write postgres://USER@HOST/DB".into()))?
            .to_string();
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            Some(Host::Unix(path)) => path.display().to_string(),
            None => return Err(bad("no host: write postgres://USER@HOST/DB".into())),
        };
        let db = config
            .get_dbname()
            .filter(|d| !d.is_empty())
            .ok_or_else(|| bad("no database: write postgres://USER@HOST/DB".into()))?
            .to_string();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        if config.get_password().is_none()
            && let Ok(password) = std::env::var("PGPASSWORD")
        {
            config.password(password);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        // A server that vanishes without closing the connection is noticed within a minute.
        config
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(15))
            .tcp_user_timeout(Duration::from_secs(60));
        if config.get_application_name().is_none() {
            config.application_name("cks-rollout");
        }
        Ok(PostgresUrl {
            config,
            tls,
            shown: format!("postgres://{user}@{host}:{port}/{db}"),
        })
    }
}

/// `text` with any password in it replaced, for messages about a URL that does not parse.
fn redact(text: &str) -> String {
    let (head, query) = text.split_once('?').unwrap_or((text, ""));
    let head = match head.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((userinfo, host)) => {
                let user = userinfo.split(':').next().unwrap_or_default();
                format!("{scheme}://{user}@{host}")
            }
            None => head.to_string(),
        },
        None => head.to_string(),
    };
    let query: Vec<&str> = query
        .split('&')
        .filter(|kv| !kv.is_empty() && !kv.starts_with("password="))
        .collect();
    if query.is_empty() {
        head
    } else {
        format!("{head}?{}", query.join("&"))
    }
}

/// A store in one PostgreSQL database.
pub struct PostgresStore {
    url: PostgresUrl,
    client: Client,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PostgresStore({})", self.url)
    }
}

fn is_serialisation_failure(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

impl PostgresStore {
    /// Connects to `url`, creating the schema or migrating it to [`SCHEMA_VERSION`]; refuses a
    /// database whose schema is newer than this build knows.
    pub fn open(url: &PostgresUrl) -> Result<Self, StoreError> {
        let client = url.connect()?;
        let mut store = PostgresStore {
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

    fn db(&self) -> impl Fn(postgres::Error) -> StoreError + '_ {
        move |source| StoreError::Postgres {
            url: self.url.to_string(),
            source,
        }
    }

    /// The schema version the database records (0 for an empty database).
    pub fn schema_version(&mut self) -> Result<i32, StoreError> {
        let url = self.url.to_string();
        let db = |source| StoreError::Postgres {
            url: url.clone(),
            source,
        };
        let row = self
            .client
            .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])
            .map_err(db)?;
        Ok(row.get(0))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let url = self.url.to_string();
        let db = |source| StoreError::Postgres {
            url: url.clone(),
            source,
        };
        let mut tx = self.client.transaction().map_err(db)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(db)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (
                 version INTEGER PRIMARY KEY,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
             )",
        )
        .map_err(db)?;
        let found: i32 = tx
            .query_one("SELECT COALESCE(MAX(version), 0) FROM schema_version", &[])
            .map_err(db)?
            .get(0);
        if found > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew {
                url: url.clone(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (from, sql) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            tx.batch_execute(sql).map_err(db)?;
            tx.execute(
                "INSERT INTO schema_version (version) VALUES ($1)",
                &[&(from as i32 + 1)],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)
    }

    /// A new connection when the last one was closed (the server restarted, the backend was
    /// terminated); the call that saw it close has already failed as unavailable.
    fn reconnect_if_closed(&mut self) -> Result<(), StoreError> {
        if self.client.is_closed() {
            self.client = self.url.connect()?;
        }
        Ok(())
    }

    /// Runs `body` in a serialisable transaction, running it again (with a short random pause)
    /// when PostgreSQL reports a serialisation failure, at most [`SERIALISATION_ATTEMPTS`] times.
    fn serialisable<T>(
        &mut self,
        mut body: impl FnMut(&mut Transaction<'_>) -> Result<T, TxError>,
    ) -> Result<T, StoreError> {
        self.reconnect_if_closed()?;
        let url = self.url.to_string();
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
                    let most = 1u64 << attempt.min(6);
                    let pause = rand::rng().random_range(0..=most);
                    std::thread::sleep(Duration::from_millis(pause));
                }
                Err(TxError::Postgres(source)) => {
                    return Err(StoreError::Postgres {
                        url: url.clone(),
                        source,
                    });
                }
            }
        }
    }

    /// Writes `record` whole, replacing any record with its id.
    pub fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        let json = to_json(record)?;
        let state = state_name(record.state);
        self.serialisable(|tx| {
            tx.execute(
                "INSERT INTO clusters (id, state, record) VALUES ($1, $2, $3::text::jsonb)
                 ON CONFLICT (id) DO UPDATE SET state = excluded.state, record = excluded.record",
                &[&record.id, &state, &json],
            )?;
            Ok(())
        })
    }

    /// Writes `record` unless a record with its id exists; `true` when it wrote it (of two
    /// hosts importing the same cluster at once, one writes and neither overwrites).
    pub fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        let json = to_json(record)?;
        let state = state_name(record.state);
        self.serialisable(|tx| {
            let rows = tx.execute(
                "INSERT INTO clusters (id, state, record) VALUES ($1, $2, $3::text::jsonb)
                 ON CONFLICT (id) DO NOTHING",
                &[&record.id, &state, &json],
            )?;
            Ok(rows == 1)
        })
    }

    /// Reads one record.
    pub fn get(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.reconnect_if_closed()?;
        let url = self.url.to_string();
        let row = self
            .client
            .query_opt("SELECT record::text FROM clusters WHERE id = $1", &[&id])
            .map_err(self.db())?
            .ok_or_else(|| StoreError::NoSuchCluster {
                id: id.to_string(),
                store: url,
            })?;
        from_json(id, row.get(0))
    }

    /// Every record's id.
    pub fn ids(&mut self) -> Result<Vec<String>, StoreError> {
        self.reconnect_if_closed()?;
        let rows = self
            .client
            .query("SELECT id FROM clusters ORDER BY id", &[])
            .map_err(self.db())?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// In one serialisable transaction: reads the record (locking its row) and the server's
    /// clock (`now()`, milliseconds since the Unix epoch), lets `change` edit the record
    /// (returning whether to write it), writes it back. Returns what `change` returned.
    /// `change` runs again when the transaction is retried, on the record as it is then.
    pub fn update(
        &mut self,
        id: &str,
        mut change: impl FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        let url = self.url.to_string();
        self.serialisable(|tx| {
            // Heartbeats of every host are stamped with the server's clock, not their own.
            let row = tx
                .query_opt(
                    "SELECT record::text, (extract(epoch FROM now()) * 1000)::bigint
                     FROM clusters WHERE id = $1 FOR UPDATE",
                    &[&id],
                )?
                .ok_or_else(|| StoreError::NoSuchCluster {
                    id: id.to_string(),
                    store: url.clone(),
                })?;
            let mut record = from_json(id, row.get(0))?;
            let now_ms: i64 = row.get(1);
            if !change(&mut record, u64::try_from(now_ms).unwrap_or(0)) {
                return Ok(false);
            }
            let json = to_json(&record)?;
            tx.execute(
                "UPDATE clusters SET state = $2, record = $3::text::jsonb WHERE id = $1",
                &[&id, &state_name(record.state), &json],
            )?;
            Ok(true)
        })
    }
}

/// What a transaction body can fail with: the store's own errors end it, PostgreSQL's may be
/// a serialisation failure worth another attempt.
enum TxError {
    Store(StoreError),
    Postgres(postgres::Error),
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> Self {
        TxError::Store(e)
    }
}

impl From<postgres::Error> for TxError {
    fn from(e: postgres::Error) -> Self {
        TxError::Postgres(e)
    }
}

fn state_name(state: ClusterState) -> String {
    format!("{state:?}")
}

fn to_json(record: &ClusterRecord) -> Result<String, StoreError> {
    serde_json::to_string(record).map_err(|e| StoreError::Corrupt {
        id: record.id.clone(),
        detail: e.to_string(),
    })
}

fn from_json(id: &str, json: &str) -> Result<ClusterRecord, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt {
        id: id.to_string(),
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password() {
        let url: PostgresUrl = "postgres://roll:s3cret@db.example:6543/cks"
            .parse()
            .expect("parses");
        assert_eq!(url.to_string(), "postgres://roll@db.example:6543/cks");
        assert!(!format!("{url:?}").contains("s3cret"));
        let url: PostgresUrl = "postgresql://roll@db.example/cks?password=s3cret"
            .parse()
            .expect("parses");
        assert_eq!(url.to_string(), "postgres://roll@db.example:5432/cks");
    }

    #[test]
    fn a_url_missing_a_part_names_it_without_the_password() {
        let e = "postgres://:s3cret@db.example/cks"
            .parse::<PostgresUrl>()
            .expect_err("no user");
        let text = e.to_string();
        assert!(text.contains("no user"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
        let e = "postgres://roll:s3cret@db.example"
            .parse::<PostgresUrl>()
            .expect_err("no database");
        assert!(e.to_string().contains("no database"), "{e}");
        assert!(!e.to_string().contains("s3cret"), "{e}");
        assert_eq!(
            redact("postgres://u:p@h/d?password=p&sslmode=disable"),
            "postgres://u@h/d?sslmode=disable"
        );
    }
}
