//! TLS to the PostgreSQL store, as libpq's `sslmode` asks for it: `disable`, `prefer` (TLS when
//! the server offers it), `require` (TLS, the certificate checked only when `sslrootcert` names
//! a CA, as libpq does), `verify-ca` (the chain to `sslrootcert`'s CA) and `verify-full` (the
//! chain and the host name). Without `sslmode` in the URL a host other than loopback gets
//! `require`, so the password and the records never cross a network in clear; loopback keeps
//! libpq's `prefer`. rustls does the TLS (through `tokio-postgres-rustls`), with no OpenSSL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::{Host, SslMode as WireMode};
use postgres::{Client, Config, NoTls};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

/// libpq's `sslmode` values this store takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, else in clear.
    Prefer,
    /// TLS; the certificate is checked only against `sslrootcert` when given.
    Require,
    /// TLS with a certificate chain to the `sslrootcert` CA.
    VerifyCa,
    /// TLS with a certificate chain to the `sslrootcert` CA, for the host connected to.
    VerifyFull,
}

impl SslMode {
    /// The mode named `text`, as libpq spells it.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// The name libpq gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// How the store connects: the mode and the CA file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// The mode (given, or the default for the host).
    pub mode: SslMode,
    /// The CA certificates (PEM) the server's certificate must chain to.
    pub root_cert: Option<PathBuf>,
}

/// What is wrong with the TLS settings of a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsSettingsError {
    /// An `sslmode` libpq does not know.
    #[error("sslmode={0:?} is not a mode: use disable, prefer, require, verify-ca or verify-full")]
    UnknownMode(String),
    /// A verifying mode without a CA.
    #[error(
        "sslmode={0} checks the server's certificate but no CA was given: add sslrootcert=FILE (the PEM CA that signed the server's certificate)"
    )]
    NoRootCert(&'static str),
    /// The CA file cannot be read or holds no certificate.
    #[error("sslrootcert={path}: {detail}")]
    RootCert {
        /// The file.
        path: String,
        /// Why.
        detail: String,
    },
}

/// Takes `sslmode` and `sslrootcert` out of the URL's query (the PostgreSQL client reads
/// neither the verifying modes nor the CA file) and returns the rest of the URL with them.
pub fn split_tls_params(
    text: &str,
) -> Result<(String, Option<SslMode>, Option<PathBuf>), TlsSettingsError> {
    let Some((head, query)) = text.split_once('?') else {
        return Ok((text.to_string(), None, None));
    };
    let (mut mode, mut root) = (None, None);
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                let value = percent_decode(value);
                mode = Some(
                    SslMode::parse(&value).ok_or(TlsSettingsError::UnknownMode(value.clone()))?,
                );
            }
            "sslrootcert" => root = Some(PathBuf::from(percent_decode(value))),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", kept.join("&"))
    };
    Ok((rest, mode, root))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True when every host of `config` is this machine (loopback address, `localhost`, a Unix
/// socket).
pub fn is_loopback(config: &Config) -> bool {
    !config.get_hosts().is_empty()
        && config.get_hosts().iter().all(|host| match host {
            Host::Unix(_) => true,
            Host::Tcp(name) => {
                let name = name.trim_start_matches('[').trim_end_matches(']');
                name.eq_ignore_ascii_case("localhost")
                    || name
                        .parse::<std::net::IpAddr>()
                        .is_ok_and(|ip| ip.is_loopback())
            }
        })
}

impl TlsSettings {
    /// The settings for `config`: `mode` when given, else `require` off this host and `prefer`
    /// on it; a verifying mode needs `root_cert`.
    pub fn decide(
        config: &Config,
        mode: Option<SslMode>,
        root_cert: Option<PathBuf>,
    ) -> Result<Self, TlsSettingsError> {
        let mode = mode.unwrap_or(if is_loopback(config) {
            SslMode::Prefer
        } else {
            SslMode::Require
        });
        if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) && root_cert.is_none() {
            return Err(TlsSettingsError::NoRootCert(mode.as_str()));
        }
        Ok(TlsSettings { mode, root_cert })
    }

    /// What the wire protocol is told: TLS off, tried, or required.
    pub fn wire_mode(&self) -> WireMode {
        match self.mode {
            SslMode::Disable => WireMode::Disable,
            SslMode::Prefer => WireMode::Prefer,
            _ => WireMode::Require,
        }
    }

    /// Connects with `config` as these settings say.
    pub fn connect(&self, config: &Config) -> Result<Client, ConnectError> {
        let mut config = config.clone();
        config.ssl_mode(self.wire_mode());
        if self.mode == SslMode::Disable {
            return config.connect(NoTls).map_err(ConnectError::Postgres);
        }
        let tls = self.client_config().map_err(ConnectError::Settings)?;
        config
            .connect(tokio_postgres_rustls::MakeRustlsConnect::new(tls))
            .map_err(ConnectError::Postgres)
    }

    fn client_config(&self) -> Result<ClientConfig, TlsSettingsError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let roots = self.root_cert.as_deref().map(read_roots).transpose()?;
        let verifier: Arc<dyn ServerCertVerifier> = match (self.mode, roots) {
            (SslMode::VerifyFull, Some(roots)) => webpki(roots, &provider)?,
            // libpq: `require` with a CA file checks the chain as `verify-ca` does.
            (_, Some(roots)) => Arc::new(ChainOnly(webpki(roots, &provider)?)),
            (_, None) => Arc::new(Unchecked(provider.signature_verification_algorithms)),
        };
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsSettingsError::RootCert {
                path: String::new(),
                detail: e.to_string(),
            })?;
        Ok(builder
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth())
    }
}

/// Why the connection failed: the TLS settings, or PostgreSQL.
#[derive(Debug)]
pub enum ConnectError {
    /// The CA could not be used.
    Settings(TlsSettingsError),
    /// The connection (TLS handshake included) failed.
    Postgres(postgres::Error),
}

fn read_roots(path: &Path) -> Result<RootCertStore, TlsSettingsError> {
    let bad = |detail: String| TlsSettingsError::RootCert {
        path: path.display().to_string(),
        detail,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(format!("cannot read it: {e}")))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not PEM certificates: {e}")))?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(bad("holds no CA certificate".to_string()));
    }
    Ok(roots)
}

fn webpki(
    roots: RootCertStore,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, TlsSettingsError> {
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| TlsSettingsError::RootCert {
            path: String::new(),
            detail: e.to_string(),
        })
}

/// `verify-ca`: the chain to the CA is checked, the host name is not.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a CA (libpq's meaning): encrypted, the certificate not
/// checked; the handshake signatures still are.
#[derive(Debug)]
struct Unchecked(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn the_tls_parameters_are_taken_out_of_the_url() {
        let (rest, mode, root) = split_tls_params(
            "postgres://u@db.example/cks?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem",
        )
        .expect("parses");
        assert_eq!(rest, "postgres://u@db.example/cks?application_name=x");
        assert_eq!(mode, Some(SslMode::VerifyFull));
        assert_eq!(root, Some(PathBuf::from("/etc/ca.pem")));
        let e = split_tls_params("postgres://u@h/d?sslmode=allow").expect_err("unknown");
        assert!(e.to_string().contains("sslmode=\"allow\""), "{e}");
    }

    #[test]
    fn a_host_off_this_machine_requires_tls_by_default() {
        let config = |url: &str| Config::from_str(url).expect("url");
        let remote = TlsSettings::decide(&config("postgres://u@db.example/cks"), None, None)
            .expect("decides");
        assert_eq!(remote.mode, SslMode::Require);
        for local in [
            "postgres://u@127.0.0.1/cks",
            "postgres://u@localhost/cks",
            "postgres://u@[::1]/cks",
        ] {
            let s = TlsSettings::decide(&config(local), None, None).expect("decides");
            assert_eq!(s.mode, SslMode::Prefer, "{local}");
        }
        let given = TlsSettings::decide(
            &config("postgres://u@db.example/cks"),
            Some(SslMode::Disable),
            None,
        )
        .expect("decides");
        assert_eq!(given.mode, SslMode::Disable);
        let e = TlsSettings::decide(
            &config("postgres://u@db.example/cks"),
            Some(SslMode::VerifyFull),
            None,
        )
        .expect_err("no CA");
        assert!(e.to_string().contains("sslrootcert=FILE"), "{e}");
    }
}
