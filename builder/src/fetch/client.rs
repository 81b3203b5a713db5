//! The HTTP client shared by downloads and git listing: rustls with the system roots, plus any
//! private CA given with `--ca-file`, and the connect and read-stall timeouts.

use std::path::PathBuf;
use std::time::Duration;

use cks_pinning::limits::Limits;
use serde::{Deserialize, Serialize};

use super::error::FetchError;
use crate::pace::{MinRate, Pace};

/// How the HTTP client connects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientOptions {
    /// The longest wait for a TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// The longest wait for the next byte (of the headers or the body) before the attempt fails.
    pub stall_timeout: Duration,
    /// The fewest bytes every window of a body must bring (`--min-rate`).
    #[serde(default)]
    pub min_rate: MinRate,
    /// PEM files whose certificates are trusted in addition to the system roots.
    pub ca_files: Vec<PathBuf>,
    /// How much is read of each kind of answer (`--limit`).
    #[serde(skip)]
    pub limits: Limits,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(15),
            stall_timeout: Duration::from_secs(30),
            min_rate: MinRate::default(),
            ca_files: Vec::new(),
            limits: Limits::default(),
        }
    }
}

impl ClientOptions {
    /// The stall timeout and the minimum rate every body is read under.
    pub fn pace(&self) -> Pace {
        Pace {
            stall: self.stall_timeout,
            min_rate: self.min_rate,
        }
    }

    /// Builds the reqwest client. The CA files are read here and added as roots, so they work
    /// whatever `SSL_CERT_FILE` says.
    pub fn build(&self) -> Result<reqwest::Client, FetchError> {
        self.builder()?.build().map_err(|e| FetchError::Client {
            reason: e.to_string(),
        })
    }

    /// The builder [`Self::build`] finishes, for a client that adds settings of its own.
    pub(crate) fn builder(&self) -> Result<reqwest::ClientBuilder, FetchError> {
        let mut certs = Vec::new();
        for path in &self.ca_files {
            let pem = std::fs::read(path).map_err(|e| FetchError::CaFile {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let found =
                reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| FetchError::CaFile {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
            if found.is_empty() {
                return Err(FetchError::CaFile {
                    path: path.clone(),
                    reason: "no certificate in it".to_string(),
                });
            }
            certs.extend(found);
        }
        Ok(reqwest::Client::builder()
            .user_agent(concat!("cks-iso/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(self.connect_timeout)
            // No redirect from a public address to an internal one.
            .redirect(super::redirect::policy())
            .tls_certs_merge(certs))
    }
}

/// The client downloads go through: reqwest, plus the mirrors' logins, each added only to the
/// requests for its own mirror (so no URL the build keeps ever holds a password).
#[derive(Debug, Clone)]
pub struct MirrorClient {
    http: reqwest::Client,
    mirrors: super::mirror::Mirrors,
}

impl MirrorClient {
    /// `http` with the logins of `mirrors`.
    pub fn new(http: reqwest::Client, mirrors: super::mirror::Mirrors) -> Self {
        MirrorClient { http, mirrors }
    }

    /// A GET for `url`, with basic auth when `url` lies below a mirror that has a login.
    pub fn get(&self, url: &str) -> reqwest::RequestBuilder {
        let request = self.http.get(url);
        match self.mirrors.login_for(url) {
            Some((user, password)) => request.basic_auth(user, Some(password)),
            None => request,
        }
    }

    /// The plain reqwest client (its TLS settings), for requests to no mirror.
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }
}
