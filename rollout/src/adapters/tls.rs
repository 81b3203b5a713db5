//! Building a blocking HTTP client that trusts only the given CA (never the environment's
//! bundle) and presents a client certificate when given, for the Kubernetes API and etcd.

use std::time::Duration;

/// TLS material, all PEM.
#[derive(Clone, Default)]
pub struct TlsMaterial {
    /// The CA certificates to trust; `None` keeps the system's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// A client certificate followed by its private key.
    pub identity_pem: Option<Vec<u8>>,
    /// Skip server certificate checks (kubeconfig `insecure-skip-tls-verify`).
    pub insecure: bool,
}

impl std::fmt::Debug for TlsMaterial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsMaterial")
            .field("ca", &self.ca_pem.is_some())
            .field("client_certificate", &self.identity_pem.is_some())
            .field("insecure", &self.insecure)
            .finish()
    }
}

/// A client with `timeout` per request and the TLS settings of `tls`.
pub fn http_client(
    tls: &TlsMaterial,
    timeout: Duration,
) -> reqwest::Result<reqwest::blocking::Client> {
    let mut builder = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(5)));
    if let Some(ca) = &tls.ca_pem {
        builder = builder.tls_certs_only(reqwest::Certificate::from_pem_bundle(ca)?);
    }
    if let Some(identity) = &tls.identity_pem {
        builder = builder.identity(reqwest::Identity::from_pem(identity)?);
    }
    if tls.insecure {
        builder = builder.tls_danger_accept_invalid_certs(true);
    }
    builder.build()
}
