//! Registry credentials and the `WWW-Authenticate` challenge: parsing is pure, token fetching is
//! done by the client.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;

use super::credential_error::DockerConfigError;
pub use super::credentials::Credentials;
use super::endpoint::Endpoint;
use super::error::RegistryError;

/// Credentials by registry host (`registry.example.com`, `127.0.0.1:5000`, `docker.io`), and the
/// docker credential helpers to ask for hosts (see [`CredentialStore::ask_helpers`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CredentialStore {
    by_host: BTreeMap<String, Credentials>,
    /// `credHelpers`: the helper of each host.
    helpers: BTreeMap<String, String>,
    /// `credsStore`: the helper of every other host.
    default_helper: Option<String>,
}

impl CredentialStore {
    /// Adds credentials for `host`.
    pub fn insert(&mut self, host: &str, credentials: Credentials) {
        self.by_host.insert(normalise_host(host), credentials);
    }

    /// The credentials for the first of `hosts` that has some.
    pub fn get(&self, hosts: &[&str]) -> Option<&Credentials> {
        hosts
            .iter()
            .find_map(|h| self.by_host.get(&normalise_host(h)))
    }

    /// The helper a host's credentials come from: its `credHelpers` entry, else `credsStore`.
    pub fn helper_for(&self, host: &str) -> Option<&str> {
        self.helpers
            .get(&normalise_host(host))
            .or(self.default_helper.as_ref())
            .map(String::as_str)
    }

    /// Runs the credential helper of each of `hosts` that has one, as docker does: what a helper
    /// gives replaces the `auths` entry, and "not found" leaves the host to `auths` (or
    /// anonymous). Called once per pull for the registries and mirrors in use, so a helper is
    /// never asked about a registry the build does not contact.
    pub fn ask_helpers(&mut self, hosts: &[&str]) -> Result<(), RegistryError> {
        let mut asked = std::collections::BTreeSet::new();
        for host in hosts {
            let host = normalise_host(host);
            let Some(helper) = self.helper_for(&host).map(str::to_string) else {
                continue;
            };
            if !asked.insert(host.clone()) {
                continue;
            }
            if let Some(found) =
                super::cred_helper::get(&helper, &host, super::cred_helper::HELPER_TIMEOUT)?
            {
                self.by_host.insert(host, found);
            }
        }
        Ok(())
    }

    /// Reads a docker `config.json`: the `auths` (`auth` = base64 `user:password`, or `username`
    /// and `password`), and the helpers named by `credHelpers` and `credsStore`, which
    /// [`CredentialStore::ask_helpers`] runs.
    pub fn from_docker_config(path: &Path) -> Result<Self, RegistryError> {
        let bad = |reason: DockerConfigError| RegistryError::DockerConfig {
            path: path.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(DockerConfigError::Read(e)))?;
        Self::parse_docker_config(&text).map_err(bad)
    }

    /// Parses the text of a docker `config.json`; the error never contains a secret.
    pub fn parse_docker_config(text: &str) -> Result<Self, DockerConfigError> {
        #[derive(serde::Deserialize)]
        struct Config {
            #[serde(default)]
            auths: BTreeMap<String, Entry>,
            #[serde(default, rename = "credHelpers")]
            cred_helpers: BTreeMap<String, String>,
            #[serde(default, rename = "credsStore")]
            creds_store: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Entry {
            #[serde(default)]
            auth: Option<String>,
            #[serde(default)]
            username: Option<String>,
            #[serde(default)]
            password: Option<String>,
        }
        // serde_json's error names a position, never the value, so it is safe to show.
        let config: Config = serde_json::from_str(text).map_err(DockerConfigError::Json)?;
        let mut store = CredentialStore::default();
        let helper_name = |name: String, key: &str| {
            let usable = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if usable {
                Ok(name)
            } else {
                Err(DockerConfigError::HelperName {
                    key: key.to_string(),
                    name,
                })
            }
        };
        for (host, helper) in config.cred_helpers {
            let helper = helper_name(helper, &format!("credHelpers of `{host}`"))?;
            store.helpers.insert(normalise_host(&host), helper);
        }
        store.default_helper = match config.creds_store {
            Some(name) if !name.is_empty() => Some(helper_name(name, "credsStore")?),
            _ => None,
        };
        for (host, entry) in config.auths {
            let credentials = match (entry.auth, entry.username, entry.password) {
                (Some(auth), _, _) if !auth.is_empty() => {
                    let decoded = base64::engine::general_purpose::STANDARD
                        .decode(auth.trim())
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok())
                        .ok_or_else(|| DockerConfigError::AuthNotBase64 { host: host.clone() })?;
                    let (user, pass) = decoded
                        .split_once(':')
                        .ok_or_else(|| DockerConfigError::AuthNoColon { host: host.clone() })?;
                    Credentials {
                        username: user.to_string(),
                        password: pass.to_string(),
                    }
                }
                (_, Some(username), Some(password)) => Credentials { username, password },
                _ => continue,
            };
            store.insert(&host, credentials);
        }
        Ok(store)
    }
}

/// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`, when the file exists: where
/// `docker login` leaves credentials.
pub fn default_docker_config() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("DOCKER_CONFIG")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".docker")))?;
    let file = dir.join("config.json");
    file.is_file().then_some(file)
}

/// `https://index.docker.io/v1/` → `docker.io`; `http://h:5000/x` → `h:5000`.
fn normalise_host(host: &str) -> String {
    let host = host.split_once("://").map_or(host, |(_, rest)| rest);
    let host = host.split('/').next().unwrap_or_default();
    match host {
        "index.docker.io" | "registry-1.docker.io" | "registry.hub.docker.com" => {
            "docker.io".to_string()
        }
        other => other.to_string(),
    }
}

/// What a 401 asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    /// `Basic realm="…"`.
    Basic,
    /// `Bearer realm="…",service="…",scope="…"`.
    Bearer {
        /// The token endpoint.
        realm: String,
        /// The `service` parameter, when given.
        service: Option<String>,
        /// The `scope` parameter, when given.
        scope: Option<String>,
    },
}

/// Parses a `WWW-Authenticate` value. Quoted values may hold commas
/// (`scope="repository:a:pull,push"`).
pub fn parse_challenge(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
    let params = parse_params(rest);
    match scheme.to_ascii_lowercase().as_str() {
        "basic" => Some(Challenge::Basic),
        "bearer" => Some(Challenge::Bearer {
            realm: params.get("realm")?.clone(),
            service: params.get("service").cloned(),
            scope: params.get("scope").cloned(),
        }),
        _ => None,
    }
}

fn parse_params(text: &str) -> BTreeMap<String, String> {
    let mut params = BTreeMap::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(c) = chars.peek().copied() {
                if c == ',' {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        params.insert(key.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    params
}

/// Whether basic credentials for `endpoint` may go to the token `realm`: only on the same host
/// name (another port of it is fine; Docker Hub's `auth.docker.io` serves `registry-1.docker.io`),
/// and only over HTTPS unless the registry itself is reached over plain HTTP (named with
/// `--insecure-registry`). Otherwise the token is asked for anonymously.
pub fn realm_may_have_credentials(endpoint: &Endpoint, realm: &reqwest::Url) -> bool {
    let endpoint_name = endpoint
        .host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(endpoint.host.as_str(), |(name, _)| name)
        .trim_start_matches('[')
        .trim_end_matches(']');
    let Some(realm_name) = realm.host_str() else {
        return false;
    };
    let realm_name = realm_name.trim_start_matches('[').trim_end_matches(']');
    let same_host = realm_name.eq_ignore_ascii_case(endpoint_name)
        || (endpoint_name == "registry-1.docker.io" && realm_name == "auth.docker.io");
    let scheme_ok = match realm.scheme() {
        "https" => true,
        "http" => endpoint.scheme == "http",
        _ => false,
    };
    same_host && scheme_ok
}

/// The `Authorization` value for basic credentials.
pub(super) fn basic_value(c: &Credentials) -> String {
    use base64::Engine as _;
    let raw = format!("{}:{}", c.username, c.password);
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bearer_with_a_comma_inside_the_scope() {
        let c = parse_challenge(
            r#"Bearer realm="http://127.0.0.1:5080/token",service="test-registry",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(
            c,
            Some(Challenge::Bearer {
                realm: "http://127.0.0.1:5080/token".into(),
                service: Some("test-registry".into()),
                scope: Some("repository:a/b:pull,push".into()),
            })
        );
        assert_eq!(
            parse_challenge(r#"Basic realm="basic-realm""#),
            Some(Challenge::Basic)
        );
        assert_eq!(parse_challenge("Negotiate"), None);
    }

    #[test]
    fn basic_credentials_go_only_to_a_realm_on_the_same_host_and_never_over_plain_http() {
        let endpoint = |scheme: &str, host: &str| Endpoint {
            scheme: scheme.into(),
            host: host.into(),
        };
        let url = |text: &str| reqwest::Url::parse(text).expect("url");
        let https = endpoint("https", "registry.example.com");
        assert!(realm_may_have_credentials(
            &https,
            &url("https://registry.example.com/token")
        ));
        assert!(!realm_may_have_credentials(
            &https,
            &url("https://evil.example.net/token")
        ));
        assert!(!realm_may_have_credentials(
            &https,
            &url("http://registry.example.com/token")
        ));
        let hub = endpoint("https", "registry-1.docker.io");
        assert!(realm_may_have_credentials(
            &hub,
            &url("https://auth.docker.io/token")
        ));
        let local = endpoint("http", "127.0.0.1:5000");
        assert!(realm_may_have_credentials(
            &local,
            &url("http://127.0.0.1:5080/token")
        ));
        assert!(!realm_may_have_credentials(
            &local,
            &url("http://127.0.0.2:5080/token")
        ));
    }

    #[test]
    fn reads_docker_config_auths_and_never_shows_the_password() {
        let auth = base64::engine::general_purpose::STANDARD.encode("alice:s3cret");
        let text = format!(
            r#"{{"auths":{{"https://index.docker.io/v1/":{{"auth":"{auth}"}},"127.0.0.1:5000":{{"username":"bob","password":"pw"}}}}}}"#
        );
        let store = CredentialStore::parse_docker_config(&text).expect("valid");
        let hub = store.get(&["docker.io"]).expect("hub entry");
        assert_eq!(hub.username, "alice");
        assert!(!format!("{hub:?}").contains("s3cret"));
        assert_eq!(
            store
                .get(&["x", "127.0.0.1:5000"])
                .map(|c| c.username.as_str()),
            Some("bob")
        );
        let err = CredentialStore::parse_docker_config(r#"{"auths":{"h":{"auth":"!!"}}}"#)
            .expect_err("bad base64")
            .to_string();
        assert!(err.contains("`h`"), "{err}");
    }

    #[test]
    fn reads_the_helpers_of_a_docker_config_with_per_registry_ones_first() {
        let store = CredentialStore::parse_docker_config(
            r#"{"credsStore":"desktop","credHelpers":{"https://123.dkr.ecr.eu-west-1.amazonaws.com":"ecr-login"}}"#,
        )
        .expect("valid");
        assert_eq!(
            store.helper_for("123.dkr.ecr.eu-west-1.amazonaws.com"),
            Some("ecr-login")
        );
        assert_eq!(store.helper_for("registry-1.docker.io"), Some("desktop"));
        assert_eq!(
            CredentialStore::default().helper_for("docker.io"),
            None,
            "no helper without a config"
        );
        let err = CredentialStore::parse_docker_config(r#"{"credsStore":"a b"}"#)
            .expect_err("not a program name")
            .to_string();
        assert!(err.contains("credsStore") && err.contains("`a b`"), "{err}");
    }
}
