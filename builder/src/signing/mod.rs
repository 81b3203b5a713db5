//! Signing what we publish: `cks-iso keygen` writes an ECDSA P-256 key pair, `--sign-key` writes
//! a detached signature beside an ISO, a checksum file or the catalog. A signature is the base64
//! of the DER ECDSA signature over the file's SHA-256, the form `cosign verify-blob --key PUB
//! --signature SIG FILE` and `openssl dgst -sha256 -verify PUB -signature <decoded SIG> FILE`
//! accept; [`cks_signature::BlobKey`] checks it. The digest is the one taken while the file was
//! written or hashed: nothing is read again to sign it.
//!
//! The private key is never printed: errors name its file, not its content.
//!
//! ```no_run
//! use cks_builder::signing::{SigningKey, write_key_pair};
//! let pair = write_key_pair("release".as_ref())?;
//! let key = SigningKey::read(&pair.private_key)?;
//! let sig = key.sign_file("out/cks-1.33.13-x86_64.iso".as_ref())?;
//! println!("{}", sig.display());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod key;
mod sign;

pub use error::SigningError;
pub use key::{KeyPair, SigningKey, write_key_pair};
pub use sign::{SIG_SUFFIX, sig_path};
