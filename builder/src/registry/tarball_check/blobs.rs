//! The blobs of a tarball being checked: each one's end (its bytes hashed against its name, its
//! SHA-1 recorded), and the SHA-1s several checks share ([`Sha1s`]).

use std::collections::BTreeMap;

use sha1::{Digest as _, Sha1};

use super::{Seen, TarballCheck, TarballError};
use crate::digest::Sha256Count;

/// The SHA-1s of the blobs several [`TarballCheck`]s have hashed, by sha256 (hex): a blob found
/// again (the same base layer in every image of an ISO) is still hashed against its name, but
/// its SHA-1 is not computed twice.
pub type Sha1s = std::sync::Arc<std::sync::Mutex<BTreeMap<String, String>>>;

impl TarballCheck {
    /// The same check, sharing the SHA-1s of blobs with other checks through `sha1s`.
    pub fn sharing(mut self, sha1s: Sha1s) -> Self {
        self.sha1s = Some(sha1s);
        self
    }

    /// The SHA-1 of the blob `hex` another check sharing [`Sha1s`] computed, if any.
    pub(super) fn known_sha1(&self, hex: &str) -> Option<String> {
        let known = self.sha1s.as_ref()?.lock().ok()?;
        known.get(hex).cloned()
    }

    /// Records an entry whose content ended.
    pub(super) fn ended(
        &mut self,
        name: String,
        size: u64,
        sha256: Sha256Count,
        sha1: Option<Sha1>,
        kept: Option<Vec<u8>>,
    ) -> Result<(), TarballError> {
        let Some(hex) = name.strip_prefix("blobs/sha256/").filter(|h| !h.is_empty()) else {
            if let Some(bytes) = kept {
                self.files.insert(name, bytes);
            }
            return Ok(());
        };
        let actual = sha256.finish();
        if actual.hex() != hex {
            return Err(TarballError::BlobDigest {
                hex: hex.to_string(),
                actual: actual.hex().to_string(),
            });
        }
        // A blob whose bytes hash to its name is the blob another tarball held under it: the
        // SHA-1 found there is this one's.
        let sha1 = match sha1 {
            Some(sha1) => {
                let sha1 = hex::encode(sha1.finalize());
                if let Some(shared) = &self.sha1s
                    && let Ok(mut known) = shared.lock()
                {
                    known.insert(hex.to_string(), sha1.clone());
                }
                sha1
            }
            None => self.known_sha1(hex).ok_or_else(|| TarballError::Sha1Lost {
                hex: hex.to_string(),
            })?,
        };
        let seen = Seen { size, sha1, kept };
        if self.blobs.insert(format!("sha256:{hex}"), seen).is_some() {
            return Err(TarballError::BlobTwice {
                hex: hex.to_string(),
            });
        }
        Ok(())
    }
}
