//! Checking a finished ISO taken from a cache against what this build knows on its own: every
//! tree it carries agreeing ([`crate::iso::trees`], run as the image opens), the volume id, exactly the planned files, tarballs and generated files (no file more, no
//! symlink), each planned file's sha256 and mode, each image tarball checked as
//! [`TarballCheck`] does, and the generated files' bytes handed back for the caller to
//! compare with the ones it renders. Each file is read once, hashed as it streams; nothing
//! large is held.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::refusal::IsoRefusal;
use super::seal::{SealFacts, SealedImage};
use crate::follow::Watermark;
use crate::iso::{EntryKind, IsoImage};
use crate::registry::{Arch, Sha1s, TarballCheck, TarballFacts};
use cks_pinning::limits::Limits;

/// The largest generated file (versions.txt, the SBOM) read into memory.
const MAX_GENERATED: u64 = 16 * 1024 * 1024;

/// The most threads that read an ISO at once.
const MAX_WORKERS: usize = 4;

/// What the ISO must hold.
#[derive(Debug, Clone, Default)]
pub struct IsoWant {
    /// Its volume id.
    pub volume_id: String,
    /// The target architecture (of its images).
    pub arch: Option<Arch>,
    /// Each planned file by its path in the ISO: its sha256 (hex) and mode.
    pub files: BTreeMap<String, (String, u32)>,
    /// Each image tarball by its path in the ISO: the image's full name and the digest its
    /// reference resolved to.
    pub images: BTreeMap<String, (String, String)>,
    /// The files the build generates (versions.txt, the SBOM), by path.
    pub generated: Vec<String>,
    /// The limits its image tarballs are read within.
    pub limits: Limits,
    /// What is already proven of the bytes, and how to read them.
    pub proof: Proof,
}

/// What the check of an ISO may take as proven, and how it reads the ISO.
#[derive(Debug, Clone, Default)]
pub enum Proof {
    /// Nothing: every file is read and hashed.
    #[default]
    Nothing,
    /// The bytes are proven to be the sealed ones ([`super::seal`]): nothing is hashed again,
    /// the sealed findings are compared with the digests wanted instead.
    Sealed(SealFacts),
    /// Nothing yet, and the ISO is still being written: every file is read and hashed behind
    /// the transfer (publishing `mark`), in the order of the image.
    Following(Arc<Watermark>),
}

impl Proof {
    fn sealed(&self) -> Option<&SealFacts> {
        match self {
            Proof::Sealed(facts) => Some(facts),
            _ => None,
        }
    }

    fn mark(&self) -> Option<Arc<Watermark>> {
        match self {
            Proof::Following(mark) => Some(mark.clone()),
            _ => None,
        }
    }

    /// Opens the image at `path` as this proof reads it.
    fn open(&self, path: &Path) -> Result<IsoImage, IsoRefusal> {
        match self.mark() {
            Some(mark) => IsoImage::open_following(path, mark),
            None => IsoImage::open(path),
        }
        .map_err(unreadable)
    }
}

/// What the ISO holds beyond the planned files, once checked.
#[derive(Debug, Clone, Default)]
pub struct IsoContents {
    /// Each image tarball's facts, by path.
    pub images: BTreeMap<String, TarballFacts>,
    /// Each generated file's bytes, by path.
    pub generated: BTreeMap<String, Vec<u8>>,
    /// Each planned file's size, by path.
    pub sizes: BTreeMap<String, u64>,
    /// What the check found, to seal the ISO with.
    pub facts: SealFacts,
}

/// A writer that keeps at most [`MAX_GENERATED`] bytes.
struct Capped(Vec<u8>);

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if (self.0.len() + buf.len()) as u64 > MAX_GENERATED {
            return Err(io::Error::other(format!(
                "larger than {MAX_GENERATED} bytes"
            )));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The reader's error as a refusal.
fn unreadable(error: crate::iso::IsoError) -> IsoRefusal {
    IsoRefusal::Unreadable(error.to_string())
}

/// Checks the ISO at `path` against `want`; what is wrong when it does not hold.
pub fn check_iso(path: &Path, want: &IsoWant) -> Result<IsoContents, IsoRefusal> {
    let image = want.proof.open(path)?;
    if image.volume_id() != want.volume_id {
        return Err(IsoRefusal::VolumeId {
            actual: image.volume_id().to_string(),
            wanted: want.volume_id.clone(),
        });
    }
    let files: BTreeSet<&str> = want
        .files
        .keys()
        .chain(want.images.keys())
        .chain(&want.generated)
        .map(String::as_str)
        .collect();
    let dirs: BTreeSet<String> = files
        .iter()
        .flat_map(|f| {
            let parts: Vec<&str> = f.split('/').collect();
            (1..parts.len())
                .map(|n| parts[..n].join("/"))
                .collect::<Vec<_>>()
        })
        .collect();
    let entries = image.entries().map_err(unreadable)?;
    let mut present = BTreeSet::new();
    for entry in &entries {
        let rel = entry.path.trim_start_matches('/');
        match entry.kind {
            EntryKind::Dir if dirs.contains(rel) => {}
            EntryKind::File if files.contains(rel) => {
                present.insert(rel.to_string());
            }
            _ => return Err(IsoRefusal::Extra(entry.path.clone())),
        }
        if let Some((_, mode)) = want.files.get(rel)
            && entry.mode != *mode
        {
            return Err(IsoRefusal::Mode {
                path: entry.path.clone(),
                actual: entry.mode,
                wanted: *mode,
            });
        }
    }
    if let Some(missing) = files.iter().find(|f| !present.contains(**f)) {
        return Err(IsoRefusal::Missing(missing.to_string()));
    }
    let sizes: BTreeMap<&str, u64> = entries
        .iter()
        .map(|e| (e.path.trim_start_matches('/'), e.size))
        .collect();
    let arch = want.arch.ok_or(IsoRefusal::NoArch)?;
    if let Some(sealed) = want.proof.sealed() {
        sealed_as_wanted(sealed, want)?;
    }
    // Under a seal, only the generated files are read: every other byte is proven by the
    // chain of the sealed sha256, and its findings were compared above.
    let hashed = want.proof.sealed().is_none();
    let mut reads: Vec<Read<'_>> = want
        .files
        .iter()
        .filter(|_| hashed)
        .map(|(rel, (sha256, _))| Read::File(rel, sha256))
        .chain(
            want.images
                .iter()
                .filter(|_| hashed)
                .map(|(rel, (name, digest))| Read::Image(rel, name, digest)),
        )
        .chain(want.generated.iter().map(|rel| Read::Generated(rel)))
        .collect();
    match want.proof {
        // Behind a transfer, in the order the bytes land.
        Proof::Following(_) => reads.sort_by_key(|read| image.start_of(read.path())),
        // The largest first, so the workers end together.
        _ => reads
            .sort_by_key(|read| std::cmp::Reverse(sizes.get(read.path()).copied().unwrap_or(0))),
    }
    let done = read_all(&image, &reads, arch, want)?;
    let mut contents = IsoContents::default();
    for rel in want.files.keys() {
        contents
            .sizes
            .insert(rel.clone(), sizes.get(rel.as_str()).copied().unwrap_or(0));
    }
    for (read, outcome) in reads.iter().zip(done) {
        match outcome {
            Done::File => {}
            Done::Image(facts) => {
                contents.images.insert(read.path().to_string(), facts);
            }
            Done::Generated(bytes) => {
                contents.generated.insert(read.path().to_string(), bytes);
            }
        }
    }
    contents.facts = match want.proof.sealed() {
        Some(sealed) => {
            for (rel, image) in &sealed.images {
                contents.images.insert(rel.clone(), image.facts.clone());
            }
            sealed.clone()
        }
        None => SealFacts {
            files: want
                .files
                .iter()
                .map(|(rel, (sha256, _))| (rel.clone(), sha256.clone()))
                .collect(),
            images: want
                .images
                .iter()
                .filter_map(|(rel, (name, digest))| {
                    let facts = contents.images.get(rel)?.clone();
                    let image = SealedImage {
                        name: name.clone(),
                        digest: digest.clone(),
                        facts,
                    };
                    Some((rel.clone(), image))
                })
                .collect(),
        },
    };
    Ok(contents)
}

/// Whether a seal's findings are the ones `want` asks for: the same planned files with the same
/// sha256s, the same image tarballs for the same names and digests; what differs otherwise.
fn sealed_as_wanted(sealed: &SealFacts, want: &IsoWant) -> Result<(), IsoRefusal> {
    let paths = |a: Vec<&String>, b: Vec<&String>| a == b;
    if !paths(sealed.files.keys().collect(), want.files.keys().collect()) {
        return Err(IsoRefusal::Seal(
            "lists other files than this build plans".to_string(),
        ));
    }
    if let Some((rel, (sha256, _))) = want
        .files
        .iter()
        .find(|(rel, (sha256, _))| sealed.files.get(*rel) != Some(sha256))
    {
        return Err(IsoRefusal::Seal(format!(
            "gives {rel} another sha256 than {sha256}, the one this build knows"
        )));
    }
    if !paths(sealed.images.keys().collect(), want.images.keys().collect()) {
        return Err(IsoRefusal::Seal(
            "lists other image tarballs than this build plans".to_string(),
        ));
    }
    if let Some((rel, (name, digest))) = want.images.iter().find(|(rel, (name, digest))| {
        sealed
            .images
            .get(*rel)
            .is_none_or(|image| &image.name != name || &image.digest != digest)
    }) {
        return Err(IsoRefusal::Seal(format!(
            "gives {rel} another image than {name}@{digest}, the one this build knows"
        )));
    }
    Ok(())
}

/// One file of the ISO to read, and what it is checked as.
enum Read<'a> {
    /// A planned file, with its sha256.
    File(&'a str, &'a str),
    /// An image tarball, with the image's full name and digest.
    Image(&'a str, &'a str, &'a str),
    /// A generated file, kept to compare.
    Generated(&'a str),
}

impl Read<'_> {
    fn path(&self) -> &str {
        match self {
            Read::File(rel, _) | Read::Image(rel, _, _) | Read::Generated(rel) => rel,
        }
    }

    /// Reads the file from `image` and checks it (an image tarball sharing its blobs' SHA-1s
    /// through `sha1s`).
    fn run(
        &self,
        image: &IsoImage,
        arch: Arch,
        limits: &Limits,
        sha1s: &Sha1s,
    ) -> Result<Done, IsoRefusal> {
        match *self {
            Read::File(rel, sha256) => {
                let actual = image.sha256(&format!("/{rel}")).map_err(unreadable)?;
                if actual != sha256 {
                    return Err(IsoRefusal::Digest {
                        path: rel.to_string(),
                        actual,
                        wanted: sha256.to_string(),
                    });
                }
                Ok(Done::File)
            }
            Read::Image(rel, name, digest) => {
                let mut check = TarballCheck::new(name, digest, arch)
                    .within(limits)
                    .sharing(sha1s.clone());
                // A read that stops early leaves the check short of its end, which it reports.
                let _ = image.copy_file(&format!("/{rel}"), &mut check);
                let facts = check.finish().map_err(|reason| IsoRefusal::Tarball {
                    path: rel.to_string(),
                    reason: reason.to_string(),
                })?;
                Ok(Done::Image(facts))
            }
            Read::Generated(rel) => {
                let mut out = Capped(Vec::new());
                image.copy_file(&format!("/{rel}"), &mut out).map_err(|e| {
                    IsoRefusal::Generated {
                        path: rel.to_string(),
                        reason: e.to_string(),
                    }
                })?;
                Ok(Done::Generated(out.0))
            }
        }
    }
}

/// What a [`Read`] found, once it passed.
enum Done {
    File,
    Image(TarballFacts),
    Generated(Vec<u8>),
}

/// Runs every read, on as many threads as the host has cores (up to four), all reading the one
/// opened `image` (positioned reads: its trees are checked once); one result per read, in
/// order, or the first failure in that order. A failure stops the reads not yet started.
fn read_all(
    image: &IsoImage,
    reads: &[Read<'_>],
    arch: Arch,
    want: &IsoWant,
) -> Result<Vec<Done>, IsoRefusal> {
    let limits = &want.limits;
    let sha1s = Sha1s::default();
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_WORKERS)
        .min(reads.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<Done, IsoRefusal>>>> =
        reads.iter().map(|_| Mutex::new(None)).collect();
    let work = |image: &IsoImage| {
        while !failed.load(Ordering::Relaxed) {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(read) = reads.get(index) else {
                break;
            };
            let outcome = read.run(image, arch, limits, &sha1s);
            if outcome.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            if let Ok(mut slot) = slots[index].lock() {
                *slot = Some(outcome);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(|| work(image));
        }
        work(image);
    });
    let mut done = Vec::with_capacity(reads.len());
    for (read, slot) in reads.iter().zip(slots) {
        match slot.into_inner().ok().flatten() {
            Some(Ok(outcome)) => done.push(outcome),
            Some(Err(reason)) => return Err(reason),
            None => return Err(IsoRefusal::NotRead(read.path().to_string())),
        }
    }
    Ok(done)
}
