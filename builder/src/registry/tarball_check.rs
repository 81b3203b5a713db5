//! Checking an image tarball taken from a cache as thoroughly as writing it: streamed once
//! (pushed through [`std::io::Write`], so it can come from a file or from inside an ISO), each
//! blob hashed as it passes and checked against its name, the blobs exactly those the image's
//! digest reaches for the target platform, and every other byte (headers, `index.json`, the
//! Docker archive files, padding, the end) equal to what [`super::layout::write_tarball`]
//! writes. What comes out is what the build reports of the tarball, the SBOM's layers with it.

use std::collections::BTreeMap;
use std::io::{self, Write};

use cks_pinning::digest::Digest;
use cks_pinning::limits::{LimitKind, Limits};
use cks_pinning::sbom::Layer;
use sha1::{Digest as _, Sha1};

use super::layout::{
    DockerImage, LayoutContents, docker_manifest_json, docker_repositories_json, entry_header,
    index_json,
};
use crate::digest::{HashBeside, Sha256Count};
use cks_iso_reader::oci::{
    Arch, Manifest, config_platform, parse_manifest, runs_on, select as select_platform,
};

mod blobs;
mod error;
mod index_json;
pub use blobs::Sha1s;
pub use error::TarballError;
use index_json::IndexJson;

/// Entries a written tarball holds beyond its layers: the layout's files (`oci-layout`,
/// `index.json`, `manifest.json`, `repositories`), its folders, the config and the manifests.
const ENTRIES_BESIDE_LAYERS: u64 = 16;

/// The bytes of `oci-layout`, as the writer puts them.
const OCI_LAYOUT: &[u8] = br#"{"imageLayoutVersion":"1.0.0"}"#;

/// What a checked tarball is, as a pull would report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TarballFacts {
    /// The top object's media type.
    pub media_type: String,
    /// The digest of the platform's manifest.
    pub platform_digest: Digest,
    /// The platform, e.g. `linux/amd64`.
    pub platform: String,
    /// The tarball's size.
    pub size: u64,
    /// Its `sha256:` digest.
    pub sha256: String,
    /// The blobs it holds, in the order a pull lists them.
    pub blobs: Vec<String>,
    /// The image's layers with their SHA-1s, in manifest order.
    pub layers: Vec<Layer>,
}

/// One blob seen in the stream.
struct Seen {
    size: u64,
    sha1: String,
    kept: Option<Vec<u8>>,
}

/// Where the stream stands.
enum State {
    /// Reading a 512-byte header (`trailer` once the first zero block was read).
    Header { block: Vec<u8>, trailer: u8 },
    /// Reading an entry's content.
    Content {
        name: String,
        left: u64,
        size: u64,
        sha256: Sha256Count,
        /// `None` when the blob's SHA-1 is known already (the same blob in another tarball).
        sha1: Option<Box<Sha1>>,
        kept: Option<Vec<u8>>,
    },
    /// Reading the zero padding after a content.
    Padding { left: u64 },
    /// After the two zero blocks: nothing more may come.
    End,
}

/// A tarball check in progress: write the tarball's bytes in, then [`TarballCheck::finish`].
pub struct TarballCheck {
    name: String,
    digest: String,
    arch: Arch,
    whole: HashBeside,
    state: State,
    headers: Vec<(String, [u8; 512])>,
    /// The largest file other than a layer kept in memory to be read (manifests, configs,
    /// `index.json`): the `oci` limit.
    max_kept: u64,
    /// The most entries: the `layers` limit and the layout's own files.
    max_entries: u64,
    files: BTreeMap<String, Vec<u8>>,
    blobs: BTreeMap<String, Seen>,
    failure: Option<TarballError>,
    /// The SHA-1s of blobs already hashed by the checks sharing it, by sha256 (hex).
    sha1s: Option<Sha1s>,
}

impl TarballCheck {
    /// A check of the tarball of `name` (the full reference) whose reference resolved to
    /// `digest`, for `arch`, within the default limits.
    pub fn new(name: &str, digest: &str, arch: Arch) -> Self {
        let check = TarballCheck {
            name: name.to_string(),
            digest: digest.to_string(),
            arch,
            whole: HashBeside::start(),
            state: State::Header {
                block: Vec::with_capacity(512),
                trailer: 0,
            },
            headers: Vec::new(),
            max_kept: 0,
            max_entries: 0,
            files: BTreeMap::new(),
            blobs: BTreeMap::new(),
            failure: None,
            sha1s: None,
        };
        check.within(&Limits::default())
    }

    /// The same check within `limits` (the `oci` size of what is read in memory, the `layers`
    /// count) instead of the defaults.
    pub fn within(mut self, limits: &Limits) -> Self {
        self.max_kept = limits.get(LimitKind::Oci);
        self.max_entries = limits
            .get(LimitKind::Layers)
            .saturating_add(ENTRIES_BESIDE_LAYERS);
        self
    }

    fn fail(&mut self, reason: TarballError) -> io::Error {
        let error = io::Error::other(reason.to_string());
        self.failure.get_or_insert(reason);
        error
    }

    /// Consumes a header block.
    fn header(&mut self, block: &[u8], trailer: u8) -> Result<State, TarballError> {
        if block.iter().all(|b| *b == 0) {
            return Ok(match trailer {
                0 => State::Header {
                    block: Vec::with_capacity(512),
                    trailer: 1,
                },
                _ => State::End,
            });
        }
        if trailer > 0 {
            return Err(TarballError::HeaderAfterEnd);
        }
        let header = tar::Header::from_byte_slice(block);
        let name = header
            .path()
            .map_err(|e| TarballError::Name {
                detail: e.to_string(),
            })?
            .to_string_lossy()
            .into_owned();
        let size = header.size().map_err(|e| TarballError::Size {
            name: name.clone(),
            detail: e.to_string(),
        })?;
        let mut bytes = [0u8; 512];
        bytes.copy_from_slice(block);
        self.headers.push((name.clone(), bytes));
        if self.headers.len() as u64 > self.max_entries {
            return Err(TarballError::TooManyEntries {
                max: self.max_entries,
            });
        }
        let blob = name.strip_prefix("blobs/sha256/").filter(|h| !h.is_empty());
        let known = blob.is_some()
            || matches!(
                name.as_str(),
                "oci-layout"
                    | "index.json"
                    | "manifest.json"
                    | "repositories"
                    | "blobs/"
                    | "blobs/sha256/"
            );
        if !known {
            return Err(TarballError::Unknown { name });
        }
        if blob.is_none() && size > self.max_kept {
            return Err(TarballError::TooLarge { name, size });
        }
        let sha1 = match blob.and_then(|hex| self.known_sha1(hex)) {
            Some(_) => None,
            None => Some(Box::new(Sha1::new())),
        };
        Ok(State::Content {
            kept: (size <= self.max_kept).then(Vec::new),
            name,
            left: size,
            size,
            sha256: Sha256Count::new(),
            sha1,
        })
    }

    /// Consumes as much of `buf` as the current state takes; how much.
    fn step(&mut self, buf: &[u8]) -> Result<usize, TarballError> {
        let state = std::mem::replace(&mut self.state, State::End);
        let (next, used) = match state {
            State::Header { mut block, trailer } => {
                let n = (512 - block.len()).min(buf.len());
                block.extend_from_slice(&buf[..n]);
                if block.len() < 512 {
                    (State::Header { block, trailer }, n)
                } else {
                    (self.header(&block, trailer)?, n)
                }
            }
            State::Content {
                name,
                left,
                size,
                mut sha256,
                mut sha1,
                mut kept,
            } => {
                let n = left.min(buf.len() as u64) as usize;
                let chunk = &buf[..n];
                sha256.update(chunk);
                if let Some(sha1) = sha1.as_mut() {
                    sha1.update(chunk);
                }
                if let Some(kept) = kept.as_mut() {
                    kept.extend_from_slice(chunk);
                }
                let left = left - n as u64;
                if left > 0 {
                    let state = State::Content {
                        name,
                        left,
                        size,
                        sha256,
                        sha1,
                        kept,
                    };
                    (state, n)
                } else {
                    self.ended(name, size, sha256, sha1.map(|h| *h), kept)?;
                    let pad = (512 - size % 512) % 512;
                    (State::Padding { left: pad }, n)
                }
            }
            State::Padding { left } => {
                let n = left.min(buf.len() as u64) as usize;
                if buf[..n].iter().any(|b| *b != 0) {
                    return Err(TarballError::Padding);
                }
                let left = left - n as u64;
                let state = match left {
                    0 => State::Header {
                        block: Vec::with_capacity(512),
                        trailer: 0,
                    },
                    _ => State::Padding { left },
                };
                (state, n)
            }
            // The writer ends with exactly two zero blocks: even zeros after them are more.
            State::End => return Err(TarballError::BytesAfterEnd),
        };
        self.state = next;
        Ok(used)
    }

    /// The facts of a complete, sound tarball, or what is wrong with it.
    pub fn finish(self) -> Result<TarballFacts, TarballError> {
        if let Some(failure) = self.failure {
            return Err(failure);
        }
        if !matches!(self.state, State::End) {
            return Err(TarballError::Truncated);
        }
        let kept = |digest: &str| {
            self.blobs
                .get(digest)
                .and_then(|b| b.kept.as_deref())
                .ok_or_else(|| TarballError::MissingBlob {
                    digest: digest.to_string(),
                })
        };
        let index: IndexJson = self
            .files
            .get("index.json")
            .and_then(|b| serde_json::from_slice(b).ok())
            .ok_or(TarballError::IndexJson)?;
        let content_type = index
            .manifests
            .first()
            .and_then(|entry| entry.media_type.as_deref());
        let top = kept(&self.digest)?;
        let (media_type, parsed) = parse_manifest(&self.name, &self.digest, content_type, top)?;
        let (platform_digest, platform, config, layers) = match parsed {
            Manifest::Index(entries) => {
                let entry = select_platform(&entries, self.arch).ok_or_else(|| {
                    TarballError::NoPlatform {
                        platform: self.arch.platform(),
                    }
                })?;
                let child = kept(&entry.digest)?;
                if child.len() as u64 != entry.size {
                    return Err(TarballError::ManifestSize {
                        digest: entry.digest.to_string(),
                    });
                }
                let (_, parsed) = parse_manifest(&self.name, &entry.digest, None, child)?;
                let Manifest::Image { config, layers } = parsed else {
                    return Err(TarballError::NestedIndex {
                        digest: entry.digest.to_string(),
                    });
                };
                let platform = entry
                    .platform
                    .as_ref()
                    .map_or_else(|| self.arch.platform(), ToString::to_string);
                (entry.digest.clone(), platform, config, layers)
            }
            Manifest::Image { config, layers } => {
                let found = config_platform(&self.name, &config.digest, kept(&config.digest)?)?;
                if !runs_on(self.arch, &found) {
                    return Err(TarballError::OtherPlatform {
                        found: found.to_string(),
                    });
                }
                let top = Digest::parse(&self.digest)?;
                (top, found.to_string(), config, layers)
            }
        };
        let mut blobs = vec![self.digest.clone()];
        if platform_digest != self.digest {
            blobs.push(platform_digest.to_string());
        }
        blobs.push(config.digest.to_string());
        blobs.extend(layers.iter().map(|l| l.digest.to_string()));
        blobs.dedup();
        let mut wanted: Vec<&String> = blobs.iter().collect();
        wanted.sort();
        wanted.dedup();
        let held: Vec<&String> = self.blobs.keys().collect();
        if held != wanted {
            return Err(TarballError::BlobCount {
                held: held.len(),
                wanted: wanted.len(),
            });
        }
        for descriptor in std::iter::once(&config).chain(&layers) {
            if self.blobs.get(descriptor.digest.as_str()).map(|b| b.size) != Some(descriptor.size) {
                return Err(TarballError::BlobSize {
                    digest: descriptor.digest.to_string(),
                });
            }
        }
        let docker = DockerImage {
            config: config.digest.to_string(),
            layers: layers.iter().map(|l| l.digest.to_string()).collect(),
        };
        let contents = LayoutContents {
            name: self.name.clone(),
            media_type: media_type.clone(),
            digest: self.digest.clone(),
            size: top.len() as u64,
            blobs: Vec::new(),
            docker: None,
        };
        let mut expected: Vec<(String, Vec<u8>)> = vec![
            ("oci-layout".into(), OCI_LAYOUT.to_vec()),
            ("index.json".into(), index_json(&contents)),
            (
                "manifest.json".into(),
                docker_manifest_json(&self.name, &docker),
            ),
            (
                "repositories".into(),
                docker_repositories_json(&self.name, &docker),
            ),
        ];
        for (name, bytes) in &expected {
            if self.files.get(name) != Some(bytes) {
                return Err(TarballError::LayoutFile { name: name.clone() });
            }
        }
        expected.push(("blobs/".into(), Vec::new()));
        expected.push(("blobs/sha256/".into(), Vec::new()));
        let names: Vec<(String, bool, u64)> = expected
            .iter()
            .map(|(n, b)| (n.clone(), n.ends_with('/'), b.len() as u64))
            .chain(wanted.iter().map(|d| {
                let hex = d.trim_start_matches("sha256:");
                let size = self.blobs.get(*d).map_or(0, |b| b.size);
                (format!("blobs/sha256/{hex}"), false, size)
            }))
            .collect();
        if names.len() != self.headers.len() {
            return Err(TarballError::EntryCount {
                seen: self.headers.len(),
                written: names.len(),
            });
        }
        for ((name, directory, size), (seen, bytes)) in names.iter().zip(&self.headers) {
            let header = entry_header(name, *directory, *size).map_err(TarballError::Header)?;
            if seen != name || header != *bytes {
                return Err(TarballError::Entry {
                    seen: seen.clone(),
                    name: name.clone(),
                });
            }
        }
        let layers = layers
            .iter()
            .map(|l| Layer {
                digest: l.digest.clone(),
                sha1: self
                    .blobs
                    .get(l.digest.as_str())
                    .map(|b| b.sha1.clone())
                    .unwrap_or_default(),
                size: l.size,
            })
            .collect();
        let whole = self.whole.finish()?;
        Ok(TarballFacts {
            media_type,
            platform_digest,
            platform,
            size: whole.bytes,
            sha256: whole.digest(),
            blobs,
            layers,
        })
    }
}

/// Checks the tarball file at `path` within `limits` (see [`TarballCheck`]).
pub fn check_tarball_file(
    path: &std::path::Path,
    name: &str,
    digest: &str,
    arch: Arch,
    limits: &Limits,
) -> Result<TarballFacts, TarballError> {
    let file_error = |source| TarballError::File {
        path: path.to_path_buf(),
        source,
    };
    let mut check = TarballCheck::new(name, digest, arch).within(limits);
    let mut file = std::fs::File::open(path).map_err(file_error)?;
    let copied = io::copy(&mut file, &mut check);
    match (check.finish(), copied) {
        (Ok(facts), Ok(_)) => Ok(facts),
        (Err(reason), _) => Err(reason),
        (Ok(_), Err(error)) => Err(file_error(error)),
    }
}

impl Write for TarballCheck {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(failure) = &self.failure {
            return Err(io::Error::other(failure.to_string()));
        }
        let mut at = 0;
        while at < buf.len() {
            match self.step(&buf[at..]) {
                Ok(n) => at += n,
                Err(reason) => return Err(self.fail(reason)),
            }
        }
        self.whole.update(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
