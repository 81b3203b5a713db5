//! The signature material of a plan's signed files (`<url>.sig`, `<url>.cert`,
//! `<url>.sigstore.json` beside each Kubernetes release binary), fetched once as the plan
//! starts, while the binaries themselves download. kubeadm's is checked before kubeadm runs
//! ([`Verifier::check_before_running`]) and every file's, kubeadm's included, in the signature
//! phase ([`Verifier::check`]): the same values, so no URL is asked twice. Which files are
//! signed is [`Verifier::signed`]; each is fetched with [`Signed::fetch`] and kept in a
//! [`SignatureMaterial`].

use std::collections::BTreeMap;
use std::path::Path;

use super::files::{Material, MaterialError, material_at};
use super::verifier::Verifier;
use crate::fetch::Fetcher;
use cks_pinning::sources::Source;
use cks_pinning::sources::signing::{Signing, signing};

/// The signature material fetched so far, by the canonical URL of the file it signs.
#[derive(Debug, Default)]
pub struct SignatureMaterial {
    found: BTreeMap<String, Result<Material, MaterialError>>,
}

/// One signed file whose material is to be fetched: its name in the plan and the canonical
/// URL its material lies beside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The file's path in the ISO (or the host kubeadm's name).
    pub name: String,
    /// The URL the material is fetched beside (`<url>.sig`, ...).
    pub url: String,
}

/// The material of one signed file, fetched.
#[derive(Debug)]
pub struct FetchedMaterial {
    url: String,
    found: Result<Material, MaterialError>,
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

impl Signed {
    /// Fetches this file's material into `scratch` (outside the ISO tree).
    pub async fn fetch(&self, fetcher: &Fetcher, scratch: &Path) -> FetchedMaterial {
        FetchedMaterial {
            url: self.url.clone(),
            found: material_at(fetcher, &self.name, &self.url, scratch).await,
        }
    }
}

impl SignatureMaterial {
    /// Keeps `fetched` (replacing what was kept for its URL).
    pub fn add(&mut self, fetched: FetchedMaterial) {
        self.found.insert(fetched.url, fetched.found);
    }

    /// Whether material for the file at `url` was fetched.
    pub fn holds(&self, url: &str) -> bool {
        self.found.contains_key(url)
    }

    /// The material fetched for the file at `url`.
    pub(super) fn get(&self, url: &str) -> Option<&Result<Material, MaterialError>> {
        self.found.get(url)
    }

    /// Takes the material fetched for the file at `url` out, to check it (and put back what
    /// was checked with [`SignatureMaterial::put`]).
    pub(super) fn take(&mut self, url: &str) -> Option<Result<Material, MaterialError>> {
        self.found.remove(url)
    }

    /// Keeps `found` as the material of the file at `url`.
    pub(super) fn put(&mut self, url: &str, found: Result<Material, MaterialError>) {
        self.found.insert(url.to_string(), found);
    }
}
