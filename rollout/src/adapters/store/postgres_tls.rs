//! TLS to the PostgreSQL store, as libpq's `sslmode` asks for it: `disable`, `prefer` (TLS when
//! the server offers it), `require` (TLS, the certificate checked only when `sslrootcert` names
//! a CA, as libpq does), `verify-ca` (the chain to `sslrootcert`'s CA) and `verify-full` (the
//! chain and the host name, to `sslrootcert`'s CA or, without one or with `sslrootcert=system`,
//! the system's roots). Without `sslmode` in the URL a server off this host gets `verify-full`,
//! so nobody on the path can present a certificate of their own and relay the login; loopback
//! keeps libpq's `prefer`. Whether the server is on this host is judged by the address dialled:
//! `hostaddr` when given (the host name is then only what the certificate must name). With TLS
//! required, SCRAM must bind the login to the TLS channel (`channel_binding=require`), so a
//! relayed login fails. A URL may ask for less (a weaker `sslmode` off this host, another
//! `channel_binding`); it gets it, with one warning. rustls does the TLS (through
//! `tokio-postgres-rustls`), with no OpenSSL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::{ChannelBinding, Host, SslMode as WireMode};
use postgres::{Client, Config, NoTls};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

use super::postgres_verify::{ChainOnly, Unchecked};

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

/// How the store connects: the mode, the CA file and channel binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// The mode (given, or the default for the host).
    pub mode: SslMode,
    /// The CA certificates (PEM) the server's certificate must chain to; `None` with
    /// `verify-full` is the system's roots.
    pub root_cert: Option<PathBuf>,
    /// Whether SCRAM binds the login to the TLS channel (`require` when TLS is required,
    /// unless the URL says otherwise).
    pub channel_binding: ChannelBinding,
    /// What the URL weakened, to tell the user once (see [`TlsSettings::warning`]).
    weakened: Vec<String>,
}

/// The TLS parameters of a store URL, taken out of it by [`split_tls_params`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsParams {
    /// The URL without `sslmode` and `sslrootcert` (the PostgreSQL client reads neither).
    pub rest: String,
    /// `sslmode`, when given.
    pub mode: Option<SslMode>,
    /// `sslrootcert`, when it names a file.
    pub root_cert: Option<PathBuf>,
    /// `sslrootcert=system`: the system's roots (libpq's meaning; it implies `verify-full`).
    pub system_roots: bool,
    /// `channel_binding`, when given (it stays in [`TlsParams::rest`] too).
    pub channel_binding: Option<ChannelBinding>,
}

/// What is wrong with the TLS settings of a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsSettingsError {
    /// An `sslmode` libpq does not know.
    #[error("sslmode={0:?} is not a mode: use disable, prefer, require, verify-ca or verify-full")]
    UnknownMode(String),
    /// `verify-ca` without a CA.
    #[error(
        "sslmode={0} checks the server's certificate chain but no CA was given: add sslrootcert=FILE (the PEM CA that signed the server's certificate), or use sslmode=verify-full, which also takes the system's roots"
    )]
    NoRootCert(&'static str),
    /// `sslrootcert=system` with a mode that does not check the host name.
    #[error(
        "sslrootcert=system trusts every public CA, so it needs sslmode=verify-full (the host name checked), not sslmode={0}"
    )]
    SystemRootsNeedVerifyFull(&'static str),
    /// A `channel_binding` the PostgreSQL client does not know.
    #[error("channel_binding={0:?} is not a setting: use disable, prefer or require")]
    UnknownBinding(String),
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
/// neither the verifying modes nor the CA file) and notes `channel_binding`.
pub fn split_tls_params(text: &str) -> Result<TlsParams, TlsSettingsError> {
    let Some((head, query)) = text.split_once('?') else {
        return Ok(TlsParams {
            rest: text.to_string(),
            ..TlsParams::default()
        });
    };
    let mut params = TlsParams::default();
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                let value = percent_decode(value);
                params.mode = Some(
                    SslMode::parse(&value).ok_or(TlsSettingsError::UnknownMode(value.clone()))?,
                );
            }
            "sslrootcert" if value == "system" => params.system_roots = true,
            "sslrootcert" => params.root_cert = Some(PathBuf::from(percent_decode(value))),
            "channel_binding" => {
                params.channel_binding = match value {
                    "disable" => Some(ChannelBinding::Disable),
                    "prefer" => Some(ChannelBinding::Prefer),
                    "require" => Some(ChannelBinding::Require),
                    other => return Err(TlsSettingsError::UnknownBinding(other.to_string())),
                };
                kept.push(pair);
            }
            _ => kept.push(pair),
        }
    }
    params.rest = if kept.is_empty() {
        head.to_string()
    } else {
        format!("{head}?{}", kept.join("&"))
    };
    Ok(params)
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

/// True when every address `config` dials is this machine: its `hostaddr`s when given (the
/// host name then only names the certificate), else its hosts (a loopback address,
/// `localhost`, a Unix socket).
pub fn is_loopback(config: &Config) -> bool {
    if !config.get_hostaddrs().is_empty() {
        return config.get_hostaddrs().iter().all(|ip| ip.is_loopback());
    }
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
    /// The settings for `config` and the URL's `params`: the mode given, else `verify-full` off
    /// this host (to `sslrootcert`'s CA or the system's roots) and `prefer` on it; channel
    /// binding required whenever TLS is, unless the URL sets it. What the URL weakens off this
    /// host is kept for [`TlsSettings::warning`] (loopback traffic never leaves the host).
    pub fn decide(config: &Config, params: &TlsParams) -> Result<Self, TlsSettingsError> {
        let local = is_loopback(config);
        let mode = params.mode.unwrap_or(if local && !params.system_roots {
            SslMode::Prefer
        } else {
            SslMode::VerifyFull
        });
        if params.system_roots && mode != SslMode::VerifyFull {
            return Err(TlsSettingsError::SystemRootsNeedVerifyFull(mode.as_str()));
        }
        if mode == SslMode::VerifyCa && params.root_cert.is_none() {
            return Err(TlsSettingsError::NoRootCert(mode.as_str()));
        }
        let tls_required = matches!(
            mode,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
        );
        let channel_binding = params.channel_binding.unwrap_or(if tls_required {
            ChannelBinding::Require
        } else {
            ChannelBinding::Prefer
        });
        let mut weakened = Vec::new();
        if !local && mode != SslMode::VerifyFull {
            let why = match (mode, params.root_cert.is_some()) {
                (SslMode::Disable | SslMode::Prefer, _) => {
                    "the password and the records may cross the network in clear"
                }
                (SslMode::Require, false) => {
                    "any certificate is accepted, so anyone on the path can stand in for the server"
                }
                _ => {
                    "the host name is not checked, so whoever holds a certificate of that CA can stand in for the server"
                }
            };
            weakened.push(format!("sslmode={} ({why})", mode.as_str()));
        }
        if !local && tls_required && channel_binding != ChannelBinding::Require {
            weakened.push(
                "channel binding not required (a login relayed through another TLS connection is not noticed)".to_string(),
            );
        }
        Ok(TlsSettings {
            mode,
            root_cert: params.root_cert.clone(),
            channel_binding,
            weakened,
        })
    }

    /// The one warning about what the URL asked to weaken, if it did.
    pub fn warning(&self) -> Option<String> {
        (!self.weakened.is_empty()).then(|| {
            format!(
                "the store URL asks for {}; remove the setting to get sslmode=verify-full with channel binding",
                self.weakened.join(" and ")
            )
        })
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
        config.channel_binding(self.channel_binding);
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
            (SslMode::VerifyFull, None) => webpki(system_roots()?, &provider)?,
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

/// The system's CA certificates (the OS bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR`).
fn system_roots() -> Result<RootCertStore, TlsSettingsError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(TlsSettingsError::RootCert {
            path: "system".to_string(),
            detail:
                "no CA certificate found on this system; give the server's CA with sslrootcert=FILE"
                    .to_string(),
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn decide(url: &str) -> Result<TlsSettings, TlsSettingsError> {
        let params = split_tls_params(url).expect("parses");
        let config = Config::from_str(&params.rest).expect("url");
        TlsSettings::decide(&config, &params)
    }

    #[test]
    fn the_tls_parameters_are_taken_out_of_the_url() {
        let params = split_tls_params(
            "postgres://u@db.example/cks?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem&channel_binding=prefer",
        )
        .expect("parses");
        assert_eq!(
            params.rest,
            "postgres://u@db.example/cks?application_name=x&channel_binding=prefer"
        );
        assert_eq!(params.mode, Some(SslMode::VerifyFull));
        assert_eq!(params.root_cert, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(params.channel_binding, Some(ChannelBinding::Prefer));
        let e = split_tls_params("postgres://u@h/d?sslmode=allow").expect_err("unknown");
        assert!(e.to_string().contains("sslmode=\"allow\""), "{e}");
        let system = split_tls_params("postgres://u@h/d?sslrootcert=system").expect("parses");
        assert!(system.system_roots && system.root_cert.is_none());
    }

    #[test]
    fn a_host_off_this_machine_gets_verify_full_with_channel_binding_and_no_warning() {
        let remote = decide("postgres://u@db.example/cks").expect("decides");
        assert_eq!(remote.mode, SslMode::VerifyFull);
        assert_eq!(remote.root_cert, None, "the system's roots");
        assert_eq!(remote.channel_binding, ChannelBinding::Require);
        assert_eq!(remote.warning(), None);
        for local in [
            "postgres://u@127.0.0.1/cks",
            "postgres://u@127.0.0.2/cks",
            "postgres://u@localhost/cks",
            "postgres://u@[::1]/cks",
        ] {
            let s = decide(local).expect("decides");
            assert_eq!(s.mode, SslMode::Prefer, "{local}");
            assert_eq!(s.channel_binding, ChannelBinding::Prefer, "{local}");
            assert_eq!(s.warning(), None, "{local}");
        }
        let system = decide("postgres://u@127.0.0.1/cks?sslrootcert=system").expect("decides");
        assert_eq!(system.mode, SslMode::VerifyFull);
    }

    #[test]
    fn the_address_dialled_decides_not_the_host_name() {
        let relayed = decide("postgres://u@localhost/cks?hostaddr=203.0.113.7").expect("decides");
        assert!(!is_loopback(
            &Config::from_str("postgres://u@localhost/cks?hostaddr=203.0.113.7").expect("url")
        ));
        assert_eq!(relayed.mode, SslMode::VerifyFull, "hostaddr is remote");
        let pinned = decide("postgres://u@db.example/cks?hostaddr=127.0.0.1").expect("decides");
        assert_eq!(
            pinned.mode,
            SslMode::Prefer,
            "the address dialled is this host"
        );
    }

    #[test]
    fn a_weaker_setting_is_taken_only_when_asked_with_one_warning() {
        let require = decide("postgres://u@db.example/cks?sslmode=require").expect("decides");
        assert_eq!(require.mode, SslMode::Require);
        assert_eq!(require.channel_binding, ChannelBinding::Require);
        let warning = require.warning().expect("warned");
        assert!(
            warning.contains("sslmode=require") && warning.contains("any certificate"),
            "{warning}"
        );
        let both = decide("postgres://u@db.example/cks?sslmode=disable&channel_binding=disable")
            .expect("decides");
        assert_eq!(both.mode, SslMode::Disable);
        let unbound =
            decide("postgres://u@db.example/cks?channel_binding=prefer").expect("decides");
        assert_eq!(unbound.mode, SslMode::VerifyFull);
        assert_eq!(unbound.channel_binding, ChannelBinding::Prefer);
        assert!(
            unbound
                .warning()
                .is_some_and(|w| w.contains("channel binding not required")),
            "{:?}",
            unbound.warning()
        );
        let local = decide("postgres://u@127.0.0.1/cks?sslmode=disable").expect("decides");
        assert_eq!(
            local.warning(),
            None,
            "loopback traffic never leaves the host"
        );
        let e = decide("postgres://u@db.example/cks?sslmode=verify-ca").expect_err("no CA");
        assert!(e.to_string().contains("sslrootcert=FILE"), "{e}");
        let e = decide("postgres://u@db.example/cks?sslmode=require&sslrootcert=system")
            .expect_err("system roots need the host name checked");
        assert!(e.to_string().contains("verify-full"), "{e}");
    }
}
