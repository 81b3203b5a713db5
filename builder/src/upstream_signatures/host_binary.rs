//! A downloaded program this build runs on its own host (kubeadm, to list the images): its
//! signature is checked before it runs, not after the downloads like the others. A program
//! whose signature is refused never runs, whatever the mode (but for a missing log entry under
//! `warn`, which the signature phase warns of); under `require` one that is not verified never
//! runs either.

use std::path::Path;

use cks_pinning::sources::Source;
use cks_pinning::sources::signing::{Signing, signing};
use cks_signature::{Mode, Outcome, SignatureError};

use super::files::verify;
use super::material::SignatureMaterial;
use super::material::material as fetch_material;
use super::verifier::Verifier;
use crate::fetch::{ChecksumStatus, FetchOptions, FetchedFile, Fetcher};

/// Why a downloaded program is not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file} ({url}) is not run on this host: {reason}; check the --mirror serving it, or its URL"
)]
pub struct NotRun {
    /// The program's name in the plan.
    pub file: String,
    /// Where it came from.
    pub url: String,
    /// What is wrong.
    pub reason: String,
}

/// Why a program may run: its signature verified, or (under `warn`) not, saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cleared {
    /// Its signature verified.
    Verified,
    /// Its signature is not checked: no trusted root, `--signatures off`, or not signed upstream.
    NotChecked,
    /// Under `warn`, its signature could not be verified (missing, or without a log entry).
    Unverified {
        /// What was missing.
        reason: String,
    },
}

impl Verifier {
    /// Whether `file` (fetched for `source`) may run here: its digest verified against the
    /// publisher's checksum or the lock, and its signature (when `source` is signed upstream
    /// and the mode is not `off`) not refused, and verified under `require`. Its signature
    /// material is the one `material` holds for the URL it came from (fetched into `scratch`
    /// when it holds none); what it was checked with is kept there, for the signature phase.
    pub async fn check_before_running(
        &self,
        source: &Source,
        file: &FetchedFile,
        material: &mut SignatureMaterial,
        fetcher: &Fetcher,
        scratch: &Path,
    ) -> Result<Cleared, NotRun> {
        let refuse = |reason: String| NotRun {
            file: file.name.clone(),
            url: file.url_used.clone(),
            reason,
        };
        if !matches!(file.checksum, ChecksumStatus::Verified { .. }) {
            return Err(refuse(
                "its digest could not be checked against a published checksum or the lock".into(),
            ));
        }
        let Some(root) = &self.root else {
            return Ok(Cleared::NotChecked);
        };
        if signing(source) != Signing::Kubernetes {
            return Ok(Cleared::NotChecked);
        }
        let mut sha256 = [0u8; 32];
        hex::decode_to_slice(&file.upstream_sha256, &mut sha256)
            .map_err(|_| refuse(format!("{:?} is not a SHA-256", file.upstream_sha256)))?;
        // The material fetched while the program downloaded, when it is for the URL it came
        // from; what it is checked with is kept for the signature phase.
        let found = match material.take(&file.url) {
            Some(found) => found,
            None => fetch_material(fetcher, file, scratch).await,
        };
        let found = match found {
            Ok(found) => found,
            Err(error) => {
                let reason = format!("its signature could not be fetched: {error}");
                material.put(&file.url, Err(error));
                if self.settings.mode == Mode::Require {
                    return Err(refuse(reason));
                }
                // The signature phase says so under `warn`.
                return Ok(Cleared::Unverified { reason });
            }
        };
        let mut verdict = verify(&file.url, &sha256, &found, root, &self.settings);
        let mut kept = found;
        if kept.cached && !matches!(verdict, Outcome::Verified(_)) {
            // Material from a cache may be older than upstream's: asked again, past the caches.
            for suffix in [".sig", ".cert", ".sigstore.json"] {
                fetcher.forget_cached(&format!("{}{suffix}", file.url));
            }
            let options = FetchOptions {
                cache_registry: None,
                ..fetcher.options().clone()
            };
            if let Ok(upstream) = Fetcher::new(options)
                && let Ok(found) = fetch_material(&upstream, file, &scratch.join("upstream")).await
            {
                verdict = verify(&file.url, &sha256, &found, root, &self.settings);
                kept = found;
            }
        }
        material.put(&file.url, Ok(kept));
        match verdict {
            Outcome::Verified(_) => Ok(Cleared::Verified),
            // A certificate and identity that verified, but no log entry proving when it was
            // signed: refused under `require`; under `warn` the signature phase says so once, as
            // for any other artifact, and the program may run.
            Outcome::Refused(SignatureError::NoLogEntry) if self.settings.mode != Mode::Require => {
                Ok(Cleared::Unverified {
                    reason: SignatureError::NoLogEntry.to_string(),
                })
            }
            Outcome::Refused(error) => Err(refuse(format!("its signature is refused: {error}"))),
            Outcome::Missing(what) if self.settings.mode == Mode::Require => {
                Err(refuse(format!("it is not signed ({what})")))
            }
            Outcome::Missing(what) => Ok(Cleared::Unverified {
                reason: format!("it is not signed ({what})"),
            }),
        }
    }
}
