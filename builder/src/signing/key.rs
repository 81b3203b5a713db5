//! The key pair: generated from the operating system's random source, written as PKCS#8 PEM
//! (mode 0600, never over an existing file) and SubjectPublicKeyInfo PEM (mode 0644), and read
//! back.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use p256::ecdsa::signature::hazmat::PrehashSigner;
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, LineEnding};
use rand::TryRngCore;

use super::error::SigningError;
use super::sign::write_signature;

/// An ECDSA P-256 private key. Its `Debug` shows nothing of the key.
pub struct SigningKey {
    inner: p256::ecdsa::SigningKey,
    path: PathBuf,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.path.display())
    }
}

/// The files `keygen` wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyPair {
    /// `PREFIX.key`: the private key, PKCS#8 PEM, mode 0600.
    pub private_key: PathBuf,
    /// `PREFIX.pub`: the public key, SubjectPublicKeyInfo PEM.
    pub public_key: PathBuf,
}

/// The largest key file read (a PEM P-256 key is about 240 bytes).
const MAX_KEY_FILE: u64 = 64 * 1024;

impl SigningKey {
    /// Reads an ECDSA P-256 private key in PKCS#8 PEM; refuses a file other users can read.
    pub fn read(path: &Path) -> Result<SigningKey, SigningError> {
        let io = |source| SigningError::Io {
            path: path.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(SigningError::Exposed {
                path: path.to_path_buf(),
                mode,
            });
        }
        let bad = |detail: &str| SigningError::BadKey {
            path: path.to_path_buf(),
            detail: detail.to_string(),
        };
        if meta.len() > MAX_KEY_FILE {
            return Err(bad("the file is far larger than a key"));
        }
        let text = std::fs::read(path).map_err(io)?;
        let text = std::str::from_utf8(&text).map_err(|_| bad("the file is not text"))?;
        // The parser's message is about the structure, never the bytes; still, only its kind
        // is shown.
        if text.contains("ENCRYPTED") {
            return Err(bad(
                "the key is encrypted; export it unencrypted into a file of mode 0600",
            ));
        }
        let inner = p256::ecdsa::SigningKey::from_pkcs8_pem(text).map_err(|e| match e {
            p256::pkcs8::Error::KeyMalformed => bad("the key is malformed"),
            p256::pkcs8::Error::PublicKey(_) | p256::pkcs8::Error::ParametersMalformed => {
                bad("the key is not on the P-256 curve")
            }
            _ => bad("no PKCS#8 private key found"),
        })?;
        Ok(SigningKey {
            inner,
            path: path.to_path_buf(),
        })
    }

    /// The key file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The DER ECDSA signature over the message whose SHA-256 is `sha256`.
    pub fn sign_sha256(&self, sha256: &[u8; 32]) -> Result<Vec<u8>, SigningError> {
        // RFC 6979 deterministic nonces: the same file and key give the same signature.
        let signature: p256::ecdsa::Signature =
            self.inner
                .sign_prehash(sha256)
                .map_err(|_| SigningError::Sign {
                    path: self.path.clone(),
                })?;
        Ok(signature.to_der().as_bytes().to_vec())
    }

    /// Hashes `file` (streamed) and writes `<file>.sig` beside it; returns its path.
    pub fn sign_file(&self, file: &Path) -> Result<PathBuf, SigningError> {
        let digest = crate::digest::sha256_file(file).map_err(|source| SigningError::Io {
            path: file.to_path_buf(),
            source,
        })?;
        self.sign_hex_digest(file, digest.hex())
    }

    /// Writes `<file>.sig` from the file's hex SHA-256, computed by the caller as it wrote or
    /// hashed the file; returns the signature's path.
    pub fn sign_hex_digest(&self, file: &Path, sha256_hex: &str) -> Result<PathBuf, SigningError> {
        let mut digest = [0u8; 32];
        hex::decode_to_slice(sha256_hex, &mut digest).map_err(|_| SigningError::Io {
            path: file.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("`{sha256_hex}` is not a sha256"),
            ),
        })?;
        write_signature(file, &self.sign_sha256(&digest)?)
    }
}

/// A new P-256 key from the operating system's random source.
fn generate() -> Result<p256::ecdsa::SigningKey, SigningError> {
    let mut rng = rand::rngs::OsRng;
    // A random 32-byte string is a valid scalar except with probability ~2^-32; draw again then.
    loop {
        let mut bytes = zeroizing_bytes();
        rng.try_fill_bytes(&mut bytes[..])
            .map_err(|e| SigningError::Random {
                detail: e.to_string(),
            })?;
        if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&bytes[..]) {
            return Ok(key);
        }
    }
}

fn zeroizing_bytes() -> p256::elliptic_curve::zeroize::Zeroizing<[u8; 32]> {
    p256::elliptic_curve::zeroize::Zeroizing::new([0u8; 32])
}

/// Writes a new key pair as `PREFIX.key` (PKCS#8 PEM, mode 0600) and `PREFIX.pub`
/// (SubjectPublicKeyInfo PEM, mode 0644); refuses when either exists, and leaves neither
/// half-written.
pub fn write_key_pair(prefix: &Path) -> Result<KeyPair, SigningError> {
    let with = |suffix: &str| {
        let mut name = prefix.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let pair = KeyPair {
        private_key: with(".key"),
        public_key: with(".pub"),
    };
    for path in [&pair.private_key, &pair.public_key] {
        if path.symlink_metadata().is_ok() {
            return Err(SigningError::Exists { path: path.clone() });
        }
    }
    let key = generate()?;
    let private = key
        .to_pkcs8_pem(LineEnding::LF)
        .map_err(|_| SigningError::Random {
            detail: "encoding the new key failed".to_string(),
        })?;
    let public = key
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .map_err(|_| SigningError::Random {
            detail: "encoding the new public key failed".to_string(),
        })?;
    write_new(&pair.private_key, private.as_bytes(), 0o600)?;
    if let Err(error) = write_new(&pair.public_key, public.as_bytes(), 0o644) {
        let _ = std::fs::remove_file(&pair.private_key);
        return Err(error);
    }
    Ok(pair)
}

/// Writes `bytes` to a new file at `path` of `mode` (through a temporary file beside it, made
/// 0600 and given `mode` once written, never over an existing one).
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), SigningError> {
    let io = |source| SigningError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // tempfile creates files with mode 0600.
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| io(crate::atomic::plain(e)))?;
    file.as_file_mut().write_all(bytes).map_err(io)?;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist_noclobber(path).map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            SigningError::Exists {
                path: path.to_path_buf(),
            }
        } else {
            io(e.error)
        }
    })?;
    Ok(())
}
