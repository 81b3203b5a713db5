//! One `docker/*.tar` streamed out to a scratch file: an uncompressed tar holding an OCI layout
//! that `ctr -n k8s.io image import` names after the full reference, with every blob the index
//! reaches for the ISO's arch present and intact.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use cks_pinning::image::ImageRef;
use serde::Deserialize;

use super::finding::{Finding, Problem};
use crate::oci::{
    Arch, CONTAINERD_NAME, DOCKER_LIST, Manifest, OCI_INDEX, OCI_REF_NAME, Platform, parse_manifest,
};

/// The largest `index.json`, manifest or config read into memory (blobs are only hashed).
const MAX_JSON: u64 = 4 * 1024 * 1024;

/// An entry of the layout's `index.json`: what containerd imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutEntry {
    /// The full normalised reference from `io.containerd.image.name`, when usable.
    pub name: Option<String>,
    /// The digest of the top object (`sha256:<hex>`).
    pub digest: String,
}

#[derive(Deserialize)]
struct IndexFile {
    #[serde(default)]
    manifests: Vec<IndexEntry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexEntry {
    #[serde(default)]
    media_type: String,
    digest: String,
    size: u64,
    #[serde(default)]
    annotations: BTreeMap<String, String>,
}

/// The layout's `oci-layout` file: only that it names a layout version is checked.
#[derive(Deserialize)]
struct OciLayout {
    #[serde(rename = "imageLayoutVersion")]
    _version: serde::de::IgnoredAny,
}

/// What one pass over the tar saw.
#[derive(Default)]
struct Scan {
    oci_layout: Option<Vec<u8>>,
    index: Option<Vec<u8>>,
    docker_manifest: bool,
    /// Blob file name (hex) → (sha256 of its content, size).
    blobs: BTreeMap<String, (String, u64)>,
}

fn entry_name(entry: &tar::Entry<'_, impl Read>) -> io::Result<String> {
    let path = entry.path()?.to_string_lossy().into_owned();
    Ok(path.trim_start_matches("./").to_string())
}

fn read_capped(reader: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(MAX_JSON + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_JSON {
        return Err(io::Error::other(format!(
            "larger than {MAX_JSON} bytes, too large for JSON metadata"
        )));
    }
    Ok(bytes)
}

fn scan(file: &Path) -> io::Result<Scan> {
    let mut out = Scan::default();
    let mut archive = tar::Archive::new(File::open(file)?);
    for entry in archive.entries_with_seek()? {
        let mut entry = entry?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        let name = entry_name(&entry)?;
        match name.as_str() {
            "oci-layout" => out.oci_layout = Some(read_capped(&mut entry)?),
            "index.json" => out.index = Some(read_capped(&mut entry)?),
            "manifest.json" => out.docker_manifest = true,
            _ => {
                if let Some(hex) = name.strip_prefix("blobs/sha256/") {
                    let mut hashing = crate::digest::HashingWriter::new(io::sink());
                    io::copy(&mut entry, &mut hashing)?;
                    let (_, digest) = hashing.finish();
                    out.blobs
                        .insert(hex.to_string(), (digest.hex().to_string(), digest.bytes));
                }
            }
        }
    }
    Ok(out)
}

fn read_blob(file: &Path, hex: &str) -> io::Result<Vec<u8>> {
    let wanted = format!("blobs/sha256/{hex}");
    let mut archive = tar::Archive::new(File::open(file)?);
    for entry in archive.entries_with_seek()? {
        let entry = entry?;
        if entry_name(&entry)? == wanted {
            return read_capped(entry);
        }
    }
    Err(io::Error::new(io::ErrorKind::NotFound, wanted))
}

/// Checks the tarball at `file` (a scratch copy of `path` in the ISO) for a node of `arch`
/// (`None` when `versions.txt` names none: then only the top objects are checked).
pub fn check(path: &str, file: &Path, arch: Option<Arch>) -> (Vec<LayoutEntry>, Vec<Finding>) {
    let mut walk = Walk {
        path,
        file,
        arch,
        scan: Scan::default(),
        findings: Vec::new(),
    };
    let entries = walk.run();
    (entries, walk.findings)
}

struct Walk<'a> {
    path: &'a str,
    file: &'a Path,
    arch: Option<Arch>,
    scan: Scan,
    findings: Vec<Finding>,
}

impl Walk<'_> {
    fn finding(&mut self, detail: String) {
        self.findings
            .push(Finding::new(self.path, Problem::Tarball, detail));
    }

    fn run(&mut self) -> Vec<LayoutEntry> {
        if let Some(kind) = compression(self.file) {
            self.finding(format!(
                "is {kind}-compressed; `ctr image import` needs an uncompressed tar"
            ));
            return Vec::new();
        }
        self.scan = match scan(self.file) {
            Ok(scan) => scan,
            Err(err) => {
                self.finding(format!("is not a readable tar archive: {err}"));
                return Vec::new();
            }
        };
        match self
            .scan
            .oci_layout
            .as_deref()
            .map(serde_json::from_slice::<OciLayout>)
        {
            None if self.scan.docker_manifest => {
                self.finding(
                    "is a docker archive (manifest.json), not an OCI layout; build ISOs carry OCI layouts naming the full reference".into(),
                );
                return Vec::new();
            }
            None => {
                self.finding("has no oci-layout file; it is not an OCI image layout".into());
                return Vec::new();
            }
            Some(Ok(_)) => {}
            Some(Err(_)) => {
                self.finding("oci-layout is not `{\"imageLayoutVersion\":\"1.0.0\"}`".into())
            }
        }
        let index = match self
            .scan
            .index
            .as_deref()
            .map(serde_json::from_slice::<IndexFile>)
        {
            None => {
                self.finding("has no index.json; containerd finds nothing to import".into());
                return Vec::new();
            }
            Some(Err(err)) => {
                self.finding(format!("index.json is not an OCI index: {err}"));
                return Vec::new();
            }
            Some(Ok(index)) => index,
        };
        if index.manifests.is_empty() {
            self.finding("index.json lists no manifests; containerd imports nothing".into());
        }
        let mut out = Vec::new();
        for entry in &index.manifests {
            let name = self.check_name(entry);
            self.check_object(
                &entry.media_type,
                &entry.digest,
                entry.size,
                "the top object",
                0,
            );
            out.push(LayoutEntry {
                name,
                digest: entry.digest.clone(),
            });
        }
        out
    }

    fn check_name(&mut self, entry: &IndexEntry) -> Option<String> {
        let Some(name) = entry.annotations.get(CONTAINERD_NAME) else {
            let fallback = entry
                .annotations
                .get(OCI_REF_NAME)
                .filter(|r| full_reference(r));
            let detail = match fallback {
                Some(reference) => format!(
                    "index.json entry {} has no {CONTAINERD_NAME} annotation; only containerd releases that fall back to {OCI_REF_NAME} ({reference}) name the import, so add the annotation",
                    entry.digest
                ),
                None => format!(
                    "index.json entry {} has no {CONTAINERD_NAME} annotation (and no full reference in {OCI_REF_NAME}); containerd would import it under a made-up name or skip it, so nodes never find the image",
                    entry.digest
                ),
            };
            self.finding(detail);
            return fallback.cloned();
        };
        match ImageRef::parse(name) {
            Ok(_) if full_reference(name) => Some(name.clone()),
            Ok(parsed) => {
                self.finding(format!(
                    "{CONTAINERD_NAME} is {name:?}, not the full normalised reference {:?} that kubeadm and the manifests use",
                    parsed.canonical().to_string()
                ));
                None
            }
            Err(err) => {
                self.finding(format!(
                    "{CONTAINERD_NAME} {name:?} is not an image reference: {err}"
                ));
                None
            }
        }
    }

    /// Checks the blob `digest` is present and intact, and walks into it if it is an index or
    /// manifest. Returns its content when it was read.
    fn check_object(&mut self, media_type: &str, digest: &str, size: u64, what: &str, depth: u8) {
        if !self.check_blob(digest, size, what) || depth > 2 {
            return;
        }
        let is_index = media_type == OCI_INDEX || media_type == DOCKER_LIST;
        let is_manifest =
            media_type == crate::oci::OCI_MANIFEST || media_type == crate::oci::DOCKER_MANIFEST;
        if !is_index && !is_manifest {
            return;
        }
        let hex = digest.trim_start_matches("sha256:");
        let bytes = match read_blob(self.file, hex) {
            Ok(bytes) => bytes,
            Err(err) => {
                self.finding(format!("cannot read {what} {digest}: {err}"));
                return;
            }
        };
        match parse_manifest(self.path, digest, Some(media_type), &bytes) {
            Err(err) => self.finding(format!("{what} {digest}: {err}")),
            Ok((_, Manifest::Index(entries))) => {
                let Some(arch) = self.arch else { return };
                let chosen: Vec<_> = entries
                    .iter()
                    .filter(|e| {
                        e.platform
                            .as_ref()
                            .is_some_and(|p| crate::oci::runs_on(arch, p))
                    })
                    .collect();
                if chosen.is_empty() {
                    self.finding(format!(
                        "the index {digest} has no manifest for {}, the ISO's platform",
                        arch.platform()
                    ));
                }
                for entry in chosen {
                    let what = format!("the {} manifest", arch.platform());
                    self.check_object(
                        &entry.media_type,
                        &entry.digest,
                        entry.size,
                        &what,
                        depth + 1,
                    );
                }
            }
            Ok((_, Manifest::Image { config, layers })) => {
                if self.check_blob(&config.digest, config.size, "the image config") {
                    self.check_config_platform(&config.digest);
                }
                for (n, layer) in layers.iter().enumerate() {
                    self.check_blob(&layer.digest, layer.size, &format!("layer {}", n + 1));
                }
            }
        }
    }

    fn check_config_platform(&mut self, digest: &str) {
        let Some(arch) = self.arch else { return };
        let hex = digest.trim_start_matches("sha256:");
        let platform = read_blob(self.file, hex)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<Platform>(&b).map_err(|e| e.to_string()));
        match platform {
            Ok(platform) if !crate::oci::runs_on(arch, &platform) => self.finding(format!(
                "the image config {digest} is for {platform}; {} nodes cannot run it",
                arch.platform()
            )),
            Ok(_) => {}
            Err(err) => self.finding(format!(
                "the image config {digest} is not valid JSON: {err}"
            )),
        }
    }

    /// Whether the blob is present with the right content and size (a finding otherwise).
    fn check_blob(&mut self, digest: &str, size: u64, what: &str) -> bool {
        let Some(hex) = digest.strip_prefix("sha256:") else {
            self.finding(format!("{what} has digest {digest:?}, not sha256"));
            return false;
        };
        match self.scan.blobs.get(hex).cloned() {
            None => {
                self.finding(format!("{what} {digest} is missing from blobs/sha256/"));
                false
            }
            Some((actual, _)) if actual != hex => {
                self.finding(format!(
                    "{what} blobs/sha256/{hex} holds content with sha256 {actual}; the blob is corrupt"
                ));
                false
            }
            Some((_, actual)) if actual != size => {
                self.finding(format!(
                    "{what} {digest} is {actual} bytes, but its descriptor says {size}"
                ));
                false
            }
            Some(_) => true,
        }
    }
}

/// Whether `name` is a full normalised reference with a tag and no digest
/// (`registry.k8s.io/pause:3.10`), as kubeadm and the manifests name images.
fn full_reference(name: &str) -> bool {
    ImageRef::parse(name)
        .is_ok_and(|parsed| parsed.to_string() == name && parsed.digest().is_none())
}

/// `Some("gzip")` or `Some("zstd")` when the file starts with that magic.
fn compression(file: &Path) -> Option<&'static str> {
    let mut magic = [0u8; 4];
    let n = File::open(file).and_then(|mut f| f.read(&mut magic)).ok()?;
    match &magic[..n] {
        [0x1f, 0x8b, ..] => Some("gzip"),
        [0x28, 0xb5, 0x2f, 0xfd] => Some("zstd"),
        [b'B', b'Z', b'h', ..] => Some("bzip2"),
        [0xfd, b'7', b'z', b'X'] => Some("xz"),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
