//! The signature material of a plan's signed files (`<url>.sig`, `<url>.cert`,
//! `<url>.sigstore.json` beside each Kubernetes release binary), fetched once as the plan
//! starts, while the binaries themselves download. kubeadm's is checked before kubeadm runs
//! ([`super::Verifier::check_before_running`]) and every file's, kubeadm's included, in the signature
//! phase ([`super::Verifier::check`]): the same values, so no URL is asked twice. Which files are
//! signed is [`super::Verifier::signed`]; each is fetched with [`Signed::fetch`] and kept in a
//! [`SignatureMaterial`].

use std::collections::BTreeMap;
use std::path::Path;

use crate::fetch::{FetchError, FetchedFile, Fetcher, FileSpec};

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

/// The most a `.sig`, `.cert` or `.sigstore.json` may hold.
const MATERIAL_LIMIT: u64 = 1 << 20;

/// The signature material found beside one file.
#[derive(Debug)]
pub(super) struct Material {
    pub(super) sig: Option<String>,
    pub(super) cert: Option<String>,
    pub(super) bundle: Option<String>,
    /// Whether any of it came from a cache (and may be older than upstream's).
    pub(super) cached: bool,
}

/// Why a file's signature material could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    /// A signature file could not be fetched (what the downloader said).
    #[error("{0}")]
    Fetch(String),
    /// A signature file is larger than any signature file.
    #[error("{url} is {bytes} bytes, more than a signature file holds ({MATERIAL_LIMIT})")]
    TooLarge {
        /// Where it came from.
        url: String,
        /// Its size.
        bytes: u64,
    },
    /// A fetched signature file, or the folder for it, could not be read or made.
    #[error("{what} {}: {reason}", path.display())]
    Disk {
        /// `reading` or `creating`.
        what: &'static str,
        /// The file or folder.
        path: std::path::PathBuf,
        /// What the system said.
        reason: String,
    },
    /// Nothing was fetched for the file.
    #[error("no signature material was fetched for {0}")]
    NotFetched(String),
}

/// One signature file fetched like any download (mirrors, retries, the content cache and the
/// cache registry: the material is checked cryptographically, so a cached copy is as good as
/// upstream's) into `dir`; `None` on 404.
async fn side_file(
    fetcher: &Fetcher,
    name: &str,
    url: String,
    dir: &Path,
) -> Result<Option<(String, bool)>, MaterialError> {
    let file_name = url.rsplit('/').next().unwrap_or("signature").to_string();
    let spec = FileSpec::new(format!("{name} ({file_name})"), url, dir.join(&file_name));
    let fetched = match fetcher.fetch(&spec).await {
        Ok(fetched) => fetched,
        Err(error) if matches!(error.error, FetchError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(MaterialError::Fetch(error.to_string())),
    };
    if fetched.bytes > MATERIAL_LIMIT {
        return Err(MaterialError::TooLarge {
            url: fetched.url,
            bytes: fetched.bytes,
        });
    }
    std::fs::read_to_string(&fetched.dest)
        .map(|text| Some((text, fetched.from_cache)))
        .map_err(|e| MaterialError::Disk {
            what: "reading",
            path: fetched.dest.clone(),
            reason: e.to_string(),
        })
}

pub(super) async fn material(
    fetcher: &Fetcher,
    file: &FetchedFile,
    scratch: &Path,
) -> Result<Material, MaterialError> {
    material_at(fetcher, &file.name, &file.url, scratch).await
}

/// [`material`] for the file named `name` whose canonical URL is `url`, before it is fetched.
pub(super) async fn material_at(
    fetcher: &Fetcher,
    name: &str,
    url: &str,
    scratch: &Path,
) -> Result<Material, MaterialError> {
    let dir = scratch.join(name.replace('/', "_"));
    std::fs::create_dir_all(&dir).map_err(|e| MaterialError::Disk {
        what: "creating",
        path: dir.clone(),
        reason: e.to_string(),
    })?;
    let (sig, cert, bundle) = futures_util::join!(
        side_file(fetcher, name, format!("{url}.sig"), &dir),
        side_file(fetcher, name, format!("{url}.cert"), &dir),
        side_file(fetcher, name, format!("{url}.sigstore.json"), &dir),
    );
    let (sig, cert, bundle) = (sig?, cert?, bundle?);
    let cached = [&sig, &cert, &bundle]
        .iter()
        .any(|found| found.as_ref().is_some_and(|(_, cached)| *cached));
    let text = |found: Option<(String, bool)>| found.map(|(text, _)| text);
    Ok(Material {
        sig: text(sig),
        cert: text(cert),
        bundle: text(bundle),
        cached,
    })
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
