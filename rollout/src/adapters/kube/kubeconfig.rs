//! Reading a kubeconfig: the current (or named) context's server, CA, and user credentials
//! (bearer token, or client certificate and key), inline `*-data` or file paths relative to the
//! kubeconfig's folder.

use std::path::{Path, PathBuf};

use base64::Engine;
use serde::Deserialize;

use super::error::KubeError;
use crate::adapters::secret::Secret;
use crate::adapters::tls::TlsMaterial;

/// What the client needs from a kubeconfig.
#[derive(Debug, Clone)]
pub struct KubeAccess {
    /// The API server URL.
    pub server: String,
    /// TLS trust and client certificate.
    pub tls: TlsMaterial,
    /// The bearer token, if any.
    pub token: Option<Secret>,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    clusters: Vec<NamedCluster>,
    #[serde(default)]
    users: Vec<NamedUser>,
    #[serde(default)]
    contexts: Vec<NamedContext>,
    #[serde(rename = "current-context", default)]
    current_context: Option<String>,
}

#[derive(Deserialize)]
struct NamedCluster {
    name: String,
    cluster: Cluster,
}

#[derive(Deserialize)]
struct NamedUser {
    name: String,
    #[serde(default)]
    user: Option<User>,
}

#[derive(Deserialize)]
struct NamedContext {
    name: String,
    context: Context,
}

#[derive(Deserialize)]
struct Cluster {
    server: String,
    #[serde(rename = "certificate-authority-data", default)]
    ca_data: Option<String>,
    #[serde(rename = "certificate-authority", default)]
    ca_file: Option<PathBuf>,
    #[serde(rename = "insecure-skip-tls-verify", default)]
    insecure: bool,
}

#[derive(Deserialize, Default)]
struct User {
    #[serde(default)]
    token: Option<String>,
    #[serde(rename = "tokenFile", default)]
    token_file: Option<PathBuf>,
    #[serde(rename = "client-certificate-data", default)]
    cert_data: Option<String>,
    #[serde(rename = "client-certificate", default)]
    cert_file: Option<PathBuf>,
    #[serde(rename = "client-key-data", default)]
    key_data: Option<String>,
    #[serde(rename = "client-key", default)]
    key_file: Option<PathBuf>,
}

#[derive(Deserialize)]
struct Context {
    cluster: String,
    user: String,
}

impl KubeAccess {
    /// Reads `path`, using `context` or the file's `current-context`.
    pub fn from_kubeconfig(path: &Path, context: Option<&str>) -> Result<Self, KubeError> {
        let bad = |detail: String| KubeError::Kubeconfig {
            path: path.to_path_buf(),
            detail,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        let file: File =
            serde_norway::from_str(&text).map_err(|e| bad(format!("not a kubeconfig: {e}")))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let wanted = context
            .map(str::to_string)
            .or(file.current_context.clone())
            .ok_or_else(|| bad("no current-context; name a context".to_string()))?;
        let ctx = file
            .contexts
            .iter()
            .find(|c| c.name == wanted)
            .ok_or_else(|| bad(format!("no context named {wanted:?}")))?;
        let cluster = file
            .clusters
            .iter()
            .find(|c| c.name == ctx.context.cluster)
            .ok_or_else(|| bad(format!("no cluster named {:?}", ctx.context.cluster)))?;
        let user = file
            .users
            .iter()
            .find(|u| u.name == ctx.context.user)
            .and_then(|u| u.user.as_ref());
        let cluster = &cluster.cluster;

        let read = |data: &Option<String>,
                    file: &Option<PathBuf>,
                    what: &str|
         -> Result<Option<Vec<u8>>, KubeError> {
            if let Some(data) = data {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| bad(format!("{what}-data is not base64: {e}")))?;
                return Ok(Some(bytes));
            }
            if let Some(file) = file {
                let full = base.join(file);
                let bytes = std::fs::read(&full)
                    .map_err(|e| bad(format!("{what} {}: {e}", full.display())))?;
                return Ok(Some(bytes));
            }
            Ok(None)
        };
        let ca_pem = read(&cluster.ca_data, &cluster.ca_file, "certificate-authority")?;
        let empty = User::default();
        let user = user.unwrap_or(&empty);
        let cert = read(&user.cert_data, &user.cert_file, "client-certificate")?;
        let key = read(&user.key_data, &user.key_file, "client-key")?;
        let identity_pem = match (cert, key) {
            (Some(mut cert), Some(key)) => {
                cert.push(b'\n');
                cert.extend(key);
                Some(cert)
            }
            (None, None) => None,
            _ => {
                return Err(bad(
                    "a client certificate needs both the certificate and the key".to_string(),
                ));
            }
        };
        let token = match (&user.token, &user.token_file) {
            (Some(token), _) => Some(Secret::new(token.trim())),
            (None, Some(file)) => {
                let full = base.join(file);
                let text = std::fs::read_to_string(&full)
                    .map_err(|e| bad(format!("tokenFile {}: {e}", full.display())))?;
                Some(Secret::new(text.trim()))
            }
            (None, None) => None,
        };
        Ok(KubeAccess {
            server: cluster.server.trim_end_matches('/').to_string(),
            tls: TlsMaterial {
                ca_pem,
                identity_pem,
                insecure: cluster.insecure,
            },
            token,
        })
    }
}
