//! Checking a finished ISO taken from a cache against what this build knows on its own: every
//! tree it carries agreeing ([`crate::iso::trees`], run as the image opens), the volume id, exactly the planned files, tarballs and generated files (no file more, no
//! symlink), each planned file's sha256 and mode, each image tarball checked as
//! [`TarballCheck`] does, and the generated files' bytes handed back for the caller to
//! compare with the ones it renders. Each file is read once, hashed as it streams; nothing
//! large is held.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::iso::{EntryKind, IsoImage};
use crate::registry::{Arch, TarballCheck, TarballFacts};
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

/// Checks the ISO at `path` against `want`; what is wrong, in one line, when it does not hold.
pub fn check_iso(path: &Path, want: &IsoWant) -> Result<IsoContents, String> {
    let image = IsoImage::open(path).map_err(|e| e.to_string())?;
    if image.volume_id() != want.volume_id {
        return Err(format!(
            "its volume id is {:?}, not {:?}",
            image.volume_id(),
            want.volume_id
        ));
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
    let entries = image.entries().map_err(|e| e.to_string())?;
    let mut present = BTreeSet::new();
    for entry in &entries {
        let rel = entry.path.trim_start_matches('/');
        match entry.kind {
            EntryKind::Dir if dirs.contains(rel) => {}
            EntryKind::File if files.contains(rel) => {
                present.insert(rel.to_string());
            }
            _ => {
                return Err(format!(
                    "it holds {}, which this build does not make",
                    entry.path
                ));
            }
        }
        if let Some((_, mode)) = want.files.get(rel)
            && entry.mode != *mode
        {
            return Err(format!(
                "{} has mode {:o}, not {mode:o}",
                entry.path, entry.mode
            ));
        }
    }
    if let Some(missing) = files.iter().find(|f| !present.contains(**f)) {
        return Err(format!("it lacks {missing}"));
    }
    let sizes: BTreeMap<&str, u64> = entries
        .iter()
        .map(|e| (e.path.trim_start_matches('/'), e.size))
        .collect();
    let arch = want
        .arch
        .ok_or("no target architecture to check images for")?;
    let mut reads: Vec<Read<'_>> = want
        .files
        .iter()
        .map(|(rel, (sha256, _))| Read::File(rel, sha256))
        .chain(
            want.images
                .iter()
                .map(|(rel, (name, digest))| Read::Image(rel, name, digest)),
        )
        .chain(want.generated.iter().map(|rel| Read::Generated(rel)))
        .collect();
    // The largest first, so the workers end together.
    reads.sort_by_key(|read| std::cmp::Reverse(sizes.get(read.path()).copied().unwrap_or(0)));
    let done = read_all(path, &image, &reads, arch, &want.limits)?;
    let mut contents = IsoContents::default();
    for (read, outcome) in reads.iter().zip(done) {
        match outcome {
            Done::File => {
                let rel = read.path();
                contents
                    .sizes
                    .insert(rel.to_string(), sizes.get(rel).copied().unwrap_or(0));
            }
            Done::Image(facts) => {
                contents.images.insert(read.path().to_string(), facts);
            }
            Done::Generated(bytes) => {
                contents.generated.insert(read.path().to_string(), bytes);
            }
        }
    }
    Ok(contents)
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

    /// Reads the file from `image` and checks it.
    fn run(&self, image: &IsoImage, arch: Arch, limits: &Limits) -> Result<Done, String> {
        match *self {
            Read::File(rel, sha256) => {
                let actual = image
                    .sha256(&format!("/{rel}"))
                    .map_err(|e| e.to_string())?;
                if actual != sha256 {
                    return Err(format!("{rel} hashes to {actual}, not {sha256}"));
                }
                Ok(Done::File)
            }
            Read::Image(rel, name, digest) => {
                let mut check = TarballCheck::new(name, digest, arch).within(limits);
                // A read that stops early leaves the check short of its end, which it reports.
                let _ = image.copy_file(&format!("/{rel}"), &mut check);
                let facts = check
                    .finish()
                    .map_err(|reason| format!("{rel}: {reason}"))?;
                Ok(Done::Image(facts))
            }
            Read::Generated(rel) => {
                let mut out = Capped(Vec::new());
                image
                    .copy_file(&format!("/{rel}"), &mut out)
                    .map_err(|e| format!("{rel}: {e}"))?;
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

/// Runs every read, on as many threads as the host has cores (up to four), each with the
/// image opened on its own; one result per read, in order, or the first failure in that
/// order. A failure stops the reads not yet started.
fn read_all(
    path: &Path,
    first: &IsoImage,
    reads: &[Read<'_>],
    arch: Arch,
    limits: &Limits,
) -> Result<Vec<Done>, String> {
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_WORKERS)
        .min(reads.len().max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<Done, String>>>> =
        reads.iter().map(|_| Mutex::new(None)).collect();
    let work = |image: &IsoImage| {
        while !failed.load(Ordering::Relaxed) {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(read) = reads.get(index) else {
                break;
            };
            let outcome = read.run(image, arch, limits);
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
            scope.spawn(|| match IsoImage::open(path) {
                Ok(image) => work(&image),
                Err(err) => {
                    failed.store(true, Ordering::Relaxed);
                    tracing::debug!(%err, "a second reader of the ISO could not open it");
                }
            });
        }
        work(first);
    });
    let mut done = Vec::with_capacity(reads.len());
    for (read, slot) in reads.iter().zip(slots) {
        match slot.into_inner().ok().flatten() {
            Some(Ok(outcome)) => done.push(outcome),
            Some(Err(reason)) => return Err(reason),
            None => return Err(format!("{} was not read", read.path())),
        }
    }
    Ok(done)
}
