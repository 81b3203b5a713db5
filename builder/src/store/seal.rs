//! The seal a local `--cache-dir` keeps beside an ISO it has vouched for: the ISO's sha256, the
//! hash's checkpoints ([`crate::digest::chain`]) and what the check of a written ISO found in it
//! (each planned file's sha256, each image tarball's facts). An ISO is sealed only after every
//! byte of it was checked: when this build packed it from what it verified, or when it passed
//! the whole check ([`super::check_iso`]) on its way in from elsewhere.
//!
//! A later build proves the bytes are still the sealed ones by hashing the file from checkpoint
//! to checkpoint on every core (each byte read once and hashed once, the whole-image sha256
//! coming out of the same pass), then checks everything that needs no hashing as it would for
//! any ISO: every tree as a kernel reads it, the names, modes and sizes, the sealed digests
//! against the ones it knows on its own, and `versions.txt` and the SBOM byte for byte against
//! what it renders from all that. A seal that lies makes the chain or one of those comparisons
//! fail, and the ISO is not used. A seal is read from the cache: its size is bounded.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use cks_pinning::digest::Digest;
use cks_pinning::sbom::Layer;
use serde::{Deserialize, Serialize};

use crate::digest::chain::Checkpoint;
use crate::registry::TarballFacts;

/// The largest seal read (a few thousand files and images fit many times over).
const MAX_SEAL: u64 = 4 << 20;

/// What the check of a written ISO found in it, beyond its bytes' own digest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealFacts {
    /// Each planned file's sha256 (hex), by its path in the ISO.
    pub files: BTreeMap<String, String>,
    /// Each image tarball, by its path in the ISO.
    pub images: BTreeMap<String, SealedImage>,
}

/// An image tarball as it was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedImage {
    /// The image's full name.
    pub name: String,
    /// The digest its reference resolved to.
    pub digest: String,
    /// What the tarball is, as a pull reports it.
    pub facts: TarballFacts,
}

/// An ISO's seal: its sha256, its checkpoints and what its check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    /// The sha256 of the whole image, hex.
    pub sha256: String,
    /// The hash's checkpoints, the first at 0.
    pub checkpoints: Vec<Checkpoint>,
    /// What the check found.
    pub facts: SealFacts,
}

/// A seal kept beside an ISO that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// It could not be read.
    #[error("its seal cannot be read: {0}")]
    Read(#[from] std::io::Error),
    /// It is larger than any seal this tool writes.
    #[error("its seal is larger than {MAX_SEAL} bytes")]
    TooLarge,
    /// It is not a seal this tool writes.
    #[error("its seal does not read as one: {0}")]
    Format(String),
}

/// The seal as written: plain strings, checked when read.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    sha256: String,
    checkpoints: Vec<String>,
    files: BTreeMap<String, String>,
    images: BTreeMap<String, WireImage>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireImage {
    name: String,
    digest: String,
    media_type: String,
    platform_digest: Digest,
    platform: String,
    size: u64,
    sha256: String,
    blobs: Vec<String>,
    layers: Vec<WireLayer>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireLayer {
    digest: Digest,
    sha1: String,
    size: u64,
}

impl Seal {
    /// The seal as kept beside the ISO (JSON).
    pub fn to_text(&self) -> String {
        let wire = Wire {
            sha256: self.sha256.clone(),
            checkpoints: self.checkpoints.iter().map(ToString::to_string).collect(),
            files: self.facts.files.clone(),
            images: self
                .facts
                .images
                .iter()
                .map(|(path, image)| {
                    let f = &image.facts;
                    let wire = WireImage {
                        name: image.name.clone(),
                        digest: image.digest.clone(),
                        media_type: f.media_type.clone(),
                        platform_digest: f.platform_digest.clone(),
                        platform: f.platform.clone(),
                        size: f.size,
                        sha256: f.sha256.clone(),
                        blobs: f.blobs.clone(),
                        layers: f
                            .layers
                            .iter()
                            .map(|l| WireLayer {
                                digest: l.digest.clone(),
                                sha1: l.sha1.clone(),
                                size: l.size,
                            })
                            .collect(),
                    };
                    (path.clone(), wire)
                })
                .collect(),
        };
        // Plain strings, numbers and maps: serialising cannot fail.
        serde_json::to_string(&wire).unwrap_or_default()
    }

    /// The seal kept at `path`, read within [`MAX_SEAL`] bytes.
    pub fn read(path: &Path) -> Result<Seal, SealError> {
        let mut text = String::new();
        std::fs::File::open(path)?
            .take(MAX_SEAL + 1)
            .read_to_string(&mut text)?;
        if text.len() as u64 > MAX_SEAL {
            return Err(SealError::TooLarge);
        }
        Self::parse(&text)
    }

    /// The seal written as `text`.
    pub fn parse(text: &str) -> Result<Seal, SealError> {
        let wire: Wire =
            serde_json::from_str(text).map_err(|e| SealError::Format(e.to_string()))?;
        let checkpoints = wire
            .checkpoints
            .iter()
            .map(|line| line.parse())
            .collect::<Result<Vec<Checkpoint>, _>>()
            .map_err(|e| SealError::Format(e.to_string()))?;
        let images = wire
            .images
            .into_iter()
            .map(|(path, w)| {
                let facts = TarballFacts {
                    media_type: w.media_type,
                    platform_digest: w.platform_digest,
                    platform: w.platform,
                    size: w.size,
                    sha256: w.sha256,
                    blobs: w.blobs,
                    layers: w
                        .layers
                        .into_iter()
                        .map(|l| Layer {
                            digest: l.digest,
                            sha1: l.sha1,
                            size: l.size,
                        })
                        .collect(),
                };
                let image = SealedImage {
                    name: w.name,
                    digest: w.digest,
                    facts,
                };
                (path, image)
            })
            .collect();
        Ok(Seal {
            sha256: wire.sha256,
            checkpoints,
            facts: SealFacts {
                files: wire.files,
                images,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::chain::Sha256Chain;

    fn seal() -> Seal {
        let digest: Digest = format!("sha256:{}", "a".repeat(64))
            .parse()
            .expect("digest");
        let facts = TarballFacts {
            media_type: "application/vnd.oci.image.index.v1+json".into(),
            platform_digest: digest.clone(),
            platform: "linux/amd64".into(),
            size: 4096,
            sha256: format!("sha256:{}", "b".repeat(64)),
            blobs: vec![digest.to_string()],
            layers: vec![Layer {
                digest: digest.clone(),
                sha1: "c".repeat(40),
                size: 10,
            }],
        };
        Seal {
            sha256: "d".repeat(64),
            checkpoints: vec![Sha256Chain::new().checkpoint().expect("start")],
            facts: SealFacts {
                files: [("k8s/kubeadm".to_string(), "e".repeat(64))].into(),
                images: [(
                    "docker/pause.tar".to_string(),
                    SealedImage {
                        name: "registry.k8s.io/pause".into(),
                        digest: digest.to_string(),
                        facts,
                    },
                )]
                .into(),
            },
        }
    }

    #[test]
    fn a_seal_reads_back_as_written() {
        let seal = seal();
        assert_eq!(Seal::parse(&seal.to_text()).expect("reads"), seal);
    }

    #[test]
    fn a_seal_that_is_not_one_or_too_large_is_refused() {
        assert!(matches!(Seal::parse("{}"), Err(SealError::Format(_))));
        let text = seal().to_text().replace("\"0 ", "\"1 ");
        assert!(matches!(Seal::parse(&text), Err(SealError::Format(_))));
        let big = tempfile::NamedTempFile::new().expect("temp");
        std::fs::write(big.path(), vec![b' '; (MAX_SEAL + 1) as usize]).expect("write");
        assert!(matches!(Seal::read(big.path()), Err(SealError::TooLarge)));
    }
}
