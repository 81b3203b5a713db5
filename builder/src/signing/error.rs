//! Why a key could not be made or read, or a signature not written: each names the file.

use std::path::PathBuf;

/// What went wrong signing; never carries key material.
#[derive(Debug, thiserror::Error)]
pub enum SigningError {
    /// A key file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `keygen` would replace a key file.
    #[error("{path} exists; keygen never overwrites a key: pass another --out, or remove it first")]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The key file is not an ECDSA P-256 private key in PKCS#8 PEM.
    #[error(
        "--sign-key {path}: expected an ECDSA P-256 private key in PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, as `cks-iso keygen` writes); {detail}"
    )]
    BadKey {
        /// The file.
        path: PathBuf,
        /// What is wrong (no key bytes).
        detail: String,
    },
    /// The key file may be read by others.
    #[error("--sign-key {path} can be read by other users (mode {mode:o}); run `chmod 600 {path}`")]
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its mode bits.
        mode: u32,
    },
    /// The signature could not be made.
    #[error("--sign-key {path}: signing failed; make a new key with `cks-iso keygen`")]
    Sign {
        /// The key file.
        path: PathBuf,
    },
    /// The operating system's random number generator failed.
    #[error("no random bytes from the operating system for a new key: {detail}")]
    Random {
        /// What failed.
        detail: String,
    },
}
