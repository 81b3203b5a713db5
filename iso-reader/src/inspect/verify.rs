//! `verify`: reads an ISO once and runs every check on what it read.
//!
//! Order: every tree the image carries, checked to agree as [`crate::iso::trees`] says (an image
//! that fails is an error, not a report: no file of it is read), the volume id, `versions.txt`, every file's sha256 (each `docker/*.tar` is streamed
//! to a scratch file on the way and checked as an image layout), the SBOM against
//! `versions.txt`, the node contract on the
//! listing, the root manifests and the kubelet units, then the bundled images against the
//! `image:` lines.
//!
//! A volume id other than `CDROM` is a finding like any other: newer node templates find the
//! ISO with `blkid -t LABEL=CDROM` and would not mount it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cks_pinning::node_contract::{self, Fits};
use cks_pinning::versions_txt::{FILE_NAME, VersionsTxt};
use serde::Serialize;

use super::error::InspectError;
use super::finding::{Finding, Problem};
use super::images::Tarball;
use super::read::{self, Tee};
use super::{contract, files, images, manifests, sbom, tarball, units};
use crate::iso::DEFAULT_VOLUME_ID;
use crate::iso::IsoImage;

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The image checked.
    pub iso: PathBuf,
    /// Its volume identifier.
    pub volume_id: String,
    /// How many regular files it holds.
    pub files: usize,
    /// How many images its `docker/*.tar` files name.
    pub images: usize,
    /// Everything wrong, in the order checked; empty when the image is good.
    pub findings: Vec<Finding>,
    /// Which CloudStack lines' node contracts the files fit, and why not the others.
    pub fits: Fits,
}

impl Report {
    /// Whether nothing is wrong.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// One line: `OK: cks.iso (CDROM): 14 files, 4 images, all match versions.txt, the SBOM and the node contract`.
    pub fn summary(&self) -> String {
        if self.is_clean() {
            format!(
                "OK: {} ({}): {} files, {} images, all match versions.txt, the SBOM and the node contract",
                self.iso.display(),
                self.volume_id,
                self.files,
                self.images
            )
        } else {
            format!(
                "{}: {} problem{} found in {} files, {} images",
                self.iso.display(),
                self.findings.len(),
                if self.findings.len() == 1 { "" } else { "s" },
                self.files,
                self.images
            )
        }
    }
}

impl std::fmt::Display for Report {
    /// Every finding on its own line, then the summary line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        writeln!(f, "{}", self.fits.summary())?;
        for reason in self.fits.reasons() {
            writeln!(f, "{reason}")?;
        }
        for fit in &self.fits.0 {
            for note in &fit.unverified {
                writeln!(f, "unverified on {}: {note}", fit.line)?;
            }
        }
        writeln!(f, "{}", self.summary())
    }
}

/// Checks the ISO at `iso` against its `versions.txt` and the node contract.
///
/// Errors only when the image cannot be read at all (or no scratch file can be made); anything
/// wrong with its content is a [`Finding`] in the report.
pub fn verify(iso: &Path) -> Result<Report, InspectError> {
    verify_in(iso, &std::env::temp_dir())
}

/// [`verify`] with its scratch files (a copy of each image tarball while it is read) in
/// `scratch_dir` rather than `TMPDIR`.
pub fn verify_in(iso: &Path, scratch_dir: &Path) -> Result<Report, InspectError> {
    let (image, entries) = read::open(iso)?;
    let mut findings = Vec::new();
    if image.volume_id() != DEFAULT_VOLUME_ID {
        findings.push(Finding::new(
            "/",
            Problem::VolumeId,
            format!(
                "volume id is {:?}, expected {DEFAULT_VOLUME_ID}: nodes find the ISO with `blkid -t LABEL={DEFAULT_VOLUME_ID}`",
                image.volume_id()
            ),
        ));
    }
    let versions = read_versions(&image, &entries, &mut findings);
    let arch = versions.as_ref().map(|v| v.arch);

    let mut digests = BTreeMap::new();
    let mut tarballs: Vec<Tarball> = Vec::new();
    for (path, entry) in read::files(&entries) {
        let is_image = path.starts_with("docker/") && path.ends_with(".tar");
        if !is_image {
            match image.sha256(&entry.path) {
                Ok(sha) => {
                    digests.insert(path.to_string(), sha);
                }
                Err(err) => findings.push(unreadable(path, err)),
            }
            continue;
        }
        let scratch = tempfile::Builder::new()
            .prefix(".cks-verify-")
            .suffix(".tar")
            .tempfile_in(scratch_dir)
            .map_err(|source| InspectError::Scratch {
                dir: scratch_dir.to_path_buf(),
                source,
            })?;
        let mut tee = Tee::new(std::io::BufWriter::new(scratch.as_file()));
        let copied = image.copy_file(&entry.path, &mut tee).and_then(|_| {
            std::io::Write::flush(&mut tee).map_err(|err| crate::iso::IsoError::Read {
                iso: iso.to_path_buf(),
                detail: format!("writing {path} to a scratch file: {err}"),
            })
        });
        if let Err(err) = copied {
            findings.push(unreadable(path, err));
            continue;
        }
        digests.insert(path.to_string(), tee.finish());
        let (layout, problems) = tarball::check(path, scratch.path(), arch);
        findings.extend(problems);
        tarballs.push((path.to_string(), layout));
    }
    if let Some(versions) = &versions {
        findings.extend(files::check(&versions.files, &digests));
        let sbom_path = format!("/{}", cks_pinning::sbom::FILE_NAME);
        let sbom = read::files(&entries)
            .any(|(path, _)| path == cks_pinning::sbom::FILE_NAME)
            .then(|| read::text(&image, &sbom_path));
        findings.extend(sbom::check(sbom, versions));
    }
    findings.extend(contract::check(&entries, versions.as_ref()));
    for (path, entry) in read::files(&entries) {
        if units::UNIT_FILES.contains(&path) {
            match read::text(&image, &entry.path) {
                Ok(text) => findings.extend(units::check(path, &text, &entries)),
                Err(detail) => {
                    findings.push(Finding::new(path, Problem::Unreadable, detail.to_string()))
                }
            }
            continue;
        }
        if path.contains('/') || !path.ends_with(".yaml") {
            continue;
        }
        match read::text(&image, &entry.path) {
            Ok(text) => findings.extend(manifests::check(path, &text, versions.as_ref())),
            Err(detail) => findings.push(Finding::new(path, Problem::Manifest, detail.to_string())),
        }
    }
    findings.extend(images::check(
        &tarballs,
        versions.as_ref().map(|v| v.images.as_slice()),
    ));
    let paths: Vec<&str> = read::files(&entries).map(|(path, _)| path).collect();
    let fits = node_contract::fit(&paths);
    Ok(Report {
        iso: iso.to_path_buf(),
        volume_id: image.volume_id().to_string(),
        files: digests.len(),
        images: tarballs.iter().map(|(_, layout)| layout.len()).sum(),
        findings,
        fits,
    })
}

fn unreadable(path: &str, err: crate::iso::IsoError) -> Finding {
    Finding::new(path, Problem::Unreadable, format!("cannot be read: {err}"))
}

fn read_versions(
    image: &IsoImage,
    entries: &[crate::iso::IsoEntry],
    findings: &mut Vec<Finding>,
) -> Option<VersionsTxt> {
    let present = read::files(entries).any(|(path, _)| path == FILE_NAME);
    if !present {
        findings.push(Finding::new(
            FILE_NAME,
            Problem::VersionsTxt,
            "missing; a build records every version, file and image in /versions.txt, so nothing can be checked against it",
        ));
        return None;
    }
    let parsed = read::text(image, &format!("/{FILE_NAME}"))
        .map_err(|err| err.to_string())
        .and_then(|text| VersionsTxt::parse(&text).map_err(|err| err.to_string()));
    match parsed {
        Ok(versions) => Some(versions),
        Err(detail) => {
            findings.push(Finding::new(FILE_NAME, Problem::VersionsTxt, detail));
            None
        }
    }
}
