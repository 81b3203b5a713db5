//! The verifier: one trusted root (`--trusted-root`, else the built-in public-good one) and the
//! build's policies, checking the files' and the images' signatures at once.

use std::path::{Path, PathBuf};

use cks_pinning::sources::Source;
use cks_pinning::sources::signing::{Signing, signing};
use cks_signature::{Mode, TrustedRoot};

use super::images::ImagesAhead;
use super::material::{SignatureMaterial, Signed};
use super::outcome::{self, Checked, SignatureRefusals};
use super::settings::SignatureSettings;
use super::{files, images};
use crate::fetch::{FetchedFile, Fetcher};
use crate::registry::{PullOptions, PullReport};
use cks_pinning::digest::Digest;
use cks_pinning::image::ImageRef;

/// The trusted root cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TrustedRootError {
    /// The `--trusted-root` file cannot be read or is not a trusted root.
    #[error(
        "--trusted-root {}: {reason}; expected a Sigstore trusted_root.json (as `cosign trusted-root create` or the TUF repository gives it)",
        path.display()
    )]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The built-in public-good root does not parse (a build of this program is broken).
    #[error("the built-in public-good trusted root is unusable: {0}")]
    BuiltIn(String),
}

/// Checks signatures with one trusted root and the build's policies.
#[derive(Debug)]
pub struct Verifier {
    pub(super) settings: SignatureSettings,
    pub(super) root: Option<TrustedRoot>,
    /// The sha256 of the trusted root's JSON (empty under `off`).
    pub(super) root_digest: String,
}

impl Verifier {
    /// Loads the trusted root (`--trusted-root`, else the built-in one; none under `off`).
    pub fn new(settings: &SignatureSettings) -> Result<Verifier, TrustedRootError> {
        let (root, root_digest) = match (&settings.mode, &settings.trusted_root) {
            (Mode::Off, _) => (None, String::new()),
            (_, Some(path)) => {
                let text = std::fs::read_to_string(path).map_err(|e| TrustedRootError::File {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                let root = TrustedRoot::from_json(&text).map_err(|e| TrustedRootError::File {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                (Some(root), crate::digest::sha256_hex(text.as_bytes()))
            }
            (_, None) => (
                Some(
                    TrustedRoot::public_good()
                        .map_err(|e| TrustedRootError::BuiltIn(e.to_string()))?,
                ),
                crate::digest::sha256_hex(cks_signature::PUBLIC_GOOD_JSON.as_bytes()),
            ),
        };
        Ok(Verifier {
            settings: settings.clone(),
            root,
            root_digest,
        })
    }

    /// The mode in force.
    pub fn mode(&self) -> Mode {
        self.settings.mode
    }

    /// What of these settings shapes an ISO (its `signature:` lines), as one line for a cache
    /// key: the mode, the policies and the trusted root's digest (not its path, which differs
    /// between machines).
    pub fn recipe(&self) -> String {
        let policies =
            serde_json::to_string(&(&self.settings.kubernetes, &self.settings.registries))
                .unwrap_or_default();
        format!(
            "signatures {:?} root {} policies {policies}",
            self.settings.mode, self.root_digest
        )
    }

    /// Checks every signed file of `fetched` (the plan's `sources`) and every pulled image with a
    /// policy, each file with the signature material `material` holds for it (the plan's, see
    /// [`Verifier::signed`]), fetching into `scratch` (outside the ISO tree) only what
    /// it lacks. Under `require`, anything not verified fails with every refusal named; under
    /// `off`, nothing is fetched.
    #[allow(clippy::too_many_arguments)]
    pub async fn check(
        &self,
        sources: &[cks_pinning::sources::Source],
        fetched: &[FetchedFile],
        material: &SignatureMaterial,
        report: &PullReport,
        fetcher: &Fetcher,
        pull: &PullOptions,
        ahead: ImagesAhead,
        scratch: &Path,
    ) -> Result<Checked, SignatureRefusals> {
        let Some(root) = &self.root else {
            return Ok(Checked::default());
        };
        // The files' and the images' material is fetched at once; the verdicts keep the
        // files first, then the images, as versions.txt lists them.
        let mut verdicts = outcome::Verdicts::new(self.settings.mode);
        let mut image_verdicts = outcome::Verdicts::new(self.settings.mode);
        futures_util::join!(
            files::check(
                sources,
                fetched,
                material,
                fetcher,
                scratch,
                root,
                &self.settings,
                &mut verdicts,
            ),
            images::check(
                report,
                pull,
                root,
                &self.settings,
                ahead,
                &mut image_verdicts
            ),
        );
        verdicts.append(image_verdicts);
        verdicts.finish()
    }

    /// The signature material of `images` (each reference with the digest it resolves to),
    /// fetched while their pull is still on the way, for [`Verifier::check`] to verify; nothing
    /// without a trusted root.
    pub async fn fetch_images_ahead(
        &self,
        images: &[(ImageRef, Digest)],
        pull: &PullOptions,
    ) -> ImagesAhead {
        if self.root.is_none() {
            return ImagesAhead::default();
        }
        images::fetch_ahead(images, pull, &self.settings).await
    }

    /// [`Verifier::check`] for the images of `report` alone.
    pub async fn check_images(
        &self,
        report: &PullReport,
        pull: &PullOptions,
    ) -> Result<Checked, SignatureRefusals> {
        let Some(root) = &self.root else {
            return Ok(Checked::default());
        };
        let mut verdicts = outcome::Verdicts::new(self.settings.mode);
        let ahead = ImagesAhead::default();
        images::check(report, pull, root, &self.settings, ahead, &mut verdicts).await;
        verdicts.finish()
    }
}

impl Verifier {
    /// The files among `sources` whose signatures this build checks (none without a trusted
    /// root, that is under `--signatures off`), each at its first URL.
    pub fn signed(&self, sources: &[Source]) -> Vec<Signed> {
        if self.root.is_none() {
            return Vec::new();
        }
        sources
            .iter()
            .filter(|source| signing(source) == Signing::Kubernetes)
            .filter_map(|source| {
                Some(Signed {
                    name: source.iso_path.clone(),
                    url: source.urls.first()?.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_trusted_root_file_is_named_and_off_needs_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("missing.json");
        let garbage = dir.path().join("garbage.json");
        std::fs::write(&garbage, "{\"mediaType\": 1}").expect("writes");
        for path in [&missing, &garbage] {
            let settings = SignatureSettings {
                trusted_root: Some(path.clone()),
                ..SignatureSettings::default()
            };
            let err = Verifier::new(&settings).expect_err("refused");
            let text = err.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(
                text.contains("expected a Sigstore trusted_root.json"),
                "{text}"
            );
        }
        let off = SignatureSettings {
            mode: Mode::Off,
            trusted_root: Some(missing),
            ..SignatureSettings::default()
        };
        assert!(Verifier::new(&off).is_ok());
        assert!(Verifier::new(&SignatureSettings::default()).is_ok());
    }
}
