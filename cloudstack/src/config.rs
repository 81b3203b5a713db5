//! Where the CloudStack client finds its endpoint and keys: the environment
//! (`CLOUDSTACK_ENDPOINT`, `CLOUDSTACK_KEY`, `CLOUDSTACK_SECRET`, the names the Python `cs`
//! client uses), else an INI file named by `CLOUDSTACK_CONFIG` (section `[cloudstack]`, or the
//! one `CLOUDSTACK_REGION` names, keys `endpoint`, `key`, `secret`), never the command line.
//! The keys never appear in `Debug` output.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::CloudStackError;
pub use crate::secret::Secret;

/// How to reach and authenticate to the CloudStack API.
#[derive(Debug, Clone)]
pub struct CloudStackConfig {
    /// The API URL, e.g. `https://cloud.example/client/api`.
    pub endpoint: String,
    /// The API key.
    pub api_key: Secret,
    /// The secret key.
    pub secret_key: Secret,
    /// Timeout of one HTTP request.
    pub request_timeout: Duration,
    /// How long an async job may run before the client gives up on it.
    pub job_timeout: Duration,
    /// Time between two `queryAsyncJobResult` polls.
    pub poll_interval: Duration,
    /// How long a signed request stays valid (`expires`).
    pub request_signature_lifetime: Duration,
    /// The most of one answer that is read, in bytes
    /// ([`cks_pinning::answer_read::DEFAULT_MAX_ANSWER`] unless `--max-answer-size` raises it).
    pub max_answer_size: u64,
}

/// Something about a configuration the user should know; the caller decides how to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// The endpoint is plain HTTP.
    PlainHttp {
        /// The endpoint.
        endpoint: String,
    },
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigWarning::PlainHttp { endpoint } => write!(
                f,
                "the CloudStack endpoint {endpoint} is plain http://: the API key, the signed requests and every answer (the cluster's kubeconfig among them) travel unencrypted and can be read or changed on the way; use https://"
            ),
        }
    }
}

/// The environment variable naming the endpoint.
pub const ENV_ENDPOINT: &str = "CLOUDSTACK_ENDPOINT";
/// The environment variable holding the API key.
pub const ENV_KEY: &str = "CLOUDSTACK_KEY";
/// The environment variable holding the secret key.
pub const ENV_SECRET: &str = "CLOUDSTACK_SECRET";
/// The environment variable naming an INI file with the three.
pub const ENV_CONFIG: &str = "CLOUDSTACK_CONFIG";
/// The environment variable naming the INI section (default `cloudstack`).
pub const ENV_REGION: &str = "CLOUDSTACK_REGION";
/// The environment variable with the seconds between two job polls (default 2).
pub const ENV_POLL_INTERVAL: &str = "CLOUDSTACK_POLL_INTERVAL";
/// The environment variable with the seconds an async job may take (default 1800).
pub const ENV_JOB_TIMEOUT: &str = "CLOUDSTACK_JOB_TIMEOUT";

impl CloudStackConfig {
    /// A configuration with default timeouts (30 s per request, 30 min per job, 2 s between polls,
    /// 10 min signature lifetime) and answer limit (32 MiB).
    pub fn new(endpoint: impl Into<String>, api_key: Secret, secret_key: Secret) -> Self {
        CloudStackConfig {
            endpoint: endpoint.into(),
            api_key,
            secret_key,
            request_timeout: Duration::from_secs(30),
            job_timeout: Duration::from_secs(1800),
            poll_interval: Duration::from_secs(2),
            request_signature_lifetime: Duration::from_secs(600),
            max_answer_size: cks_pinning::answer_read::DEFAULT_MAX_ANSWER,
        }
    }

    /// What the user should know about this configuration: a plain `http://` endpoint on a host
    /// other than this one (loopback traffic never leaves the host).
    pub fn warnings(&self) -> Vec<ConfigWarning> {
        let endpoint = self.endpoint.trim();
        let rest = endpoint
            .get(..7)
            .filter(|s| s.eq_ignore_ascii_case("http://"))
            .map(|_| &endpoint[7..]);
        if rest.is_some_and(|rest| !is_loopback_authority(rest)) {
            vec![ConfigWarning::PlainHttp {
                endpoint: self.endpoint.clone(),
            }]
        } else {
            Vec::new()
        }
    }

    /// From the environment: the three variables when all are set, else the INI file
    /// `CLOUDSTACK_CONFIG` names; `CLOUDSTACK_POLL_INTERVAL` and `CLOUDSTACK_JOB_TIMEOUT`
    /// (seconds, as the `cs` client reads them) set the job polling.
    pub fn from_env() -> Result<Self, CloudStackError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Like [`CloudStackConfig::from_env`], reading variables through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, CloudStackError> {
        let mut config = Self::keys_from_lookup(&lookup)?;
        let seconds = |name: &str| -> Result<Option<Duration>, CloudStackError> {
            lookup(name)
                .filter(|v| !v.is_empty())
                .map(|value| {
                    value
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .map(Duration::from_secs_f64)
                        .ok_or(CloudStackError::BadSetting {
                            name: name.to_string(),
                            value,
                        })
                })
                .transpose()
        };
        if let Some(interval) = seconds(ENV_POLL_INTERVAL)? {
            config.poll_interval = interval;
        }
        if let Some(timeout) = seconds(ENV_JOB_TIMEOUT)? {
            config.job_timeout = timeout;
        }
        Ok(config)
    }

    fn keys_from_lookup(lookup: &impl Fn(&str) -> Option<String>) -> Result<Self, CloudStackError> {
        let get = |name: &str| lookup(name).filter(|v| !v.is_empty());
        if let (Some(endpoint), Some(key), Some(secret)) =
            (get(ENV_ENDPOINT), get(ENV_KEY), get(ENV_SECRET))
        {
            return Ok(Self::new(endpoint, Secret::new(key), Secret::new(secret)));
        }
        match get(ENV_CONFIG) {
            Some(path) => {
                let section = get(ENV_REGION).unwrap_or_else(|| "cloudstack".to_string());
                Self::from_ini_file(Path::new(&path), &section)
            }
            None => Err(CloudStackError::NoCredentials),
        }
    }

    /// From `path`, an INI file, section `section`, keys `endpoint`, `key` and `secret`.
    pub fn from_ini_file(path: &Path, section: &str) -> Result<Self, CloudStackError> {
        let text = std::fs::read_to_string(path).map_err(|source| CloudStackError::ConfigRead {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_ini(&text, section).map_err(|missing| CloudStackError::ConfigIncomplete {
            path: PathBuf::from(path),
            section: section.to_string(),
            missing,
        })
    }

    /// Parses INI text; the error is the name of the first missing key.
    fn from_ini(text: &str, section: &str) -> Result<Self, &'static str> {
        let mut current = String::new();
        let (mut endpoint, mut key, mut secret) = (None, None, None);
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                current = name.trim().to_string();
                continue;
            }
            if current != section {
                continue;
            }
            if let Some((k, v)) = line.split_once('=') {
                let v = v.trim().to_string();
                match k.trim() {
                    "endpoint" => endpoint = Some(v),
                    "key" => key = Some(v),
                    "secret" => secret = Some(v),
                    _ => {}
                }
            }
        }
        let endpoint = endpoint.ok_or("endpoint")?;
        let key = key.ok_or("key")?;
        let secret = secret.ok_or("secret")?;
        Ok(Self::new(endpoint, Secret::new(key), Secret::new(secret)))
    }
}

/// True when the authority at the start of `rest` (`[user@]host[:port]/...`) is this host.
fn is_loopback_authority(rest: &str) -> bool {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_wins_and_debug_hides_the_keys() {
        let config = CloudStackConfig::from_lookup(|name| match name {
            ENV_ENDPOINT => Some("http://cs/client/api".into()),
            ENV_KEY => Some("the-api-key".into()),
            ENV_SECRET => Some("the-secret".into()),
            _ => None,
        })
        .expect("complete environment");
        assert_eq!(config.secret_key.expose(), "the-secret");
        let debug = format!("{config:?}");
        assert!(
            !debug.contains("the-secret") && !debug.contains("the-api-key"),
            "{debug}"
        );
    }

    #[test]
    fn ini_file_is_read_and_a_missing_key_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cloudstack.ini");
        std::fs::write(&path, "[other]\nkey = x\n[cloudstack]\nendpoint = http://cs/client/api\nkey = k\nsecret = s\n")
            .expect("write");
        let config =
            CloudStackConfig::from_ini_file(&path, "cloudstack").expect("complete section");
        assert_eq!(config.endpoint, "http://cs/client/api");
        let err =
            CloudStackConfig::from_ini_file(&path, "other").expect_err("no endpoint in [other]");
        assert!(err.to_string().contains("endpoint"), "{err}");
        assert!(
            matches!(
                config.warnings().as_slice(),
                [ConfigWarning::PlainHttp { .. }]
            ),
            "an http:// endpoint is warned about"
        );
        let none = CloudStackConfig::from_lookup(|_| None).expect_err("nothing set");
        assert!(none.to_string().contains(ENV_ENDPOINT), "{none}");
    }

    #[test]
    fn a_plain_http_endpoint_off_this_host_gets_one_warning_naming_the_risk() {
        let with = |endpoint: &str| {
            CloudStackConfig::new(endpoint, Secret::new("k"), Secret::new("s")).warnings()
        };
        let warned = with("http://cloud.example:8080/client/api");
        assert_eq!(warned.len(), 1, "{warned:?}");
        let text = warned[0].to_string();
        assert!(
            text.contains("http://cloud.example:8080/client/api")
                && text.contains("unencrypted")
                && text.contains("https://"),
            "{text}"
        );
        assert_eq!(with("HTTP://203.0.113.5/client/api").len(), 1);
        for quiet in [
            "https://cloud.example/client/api",
            "http://127.0.0.1:8080/client/api",
            "http://localhost/client/api",
            "http://[::1]:8080/client/api",
        ] {
            assert!(with(quiet).is_empty(), "{quiet}");
        }
    }
}
