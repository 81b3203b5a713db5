//! The entries of a cache folder, each with its files, size and last use. An entry is one kept
//! thing a build may take: a finished ISO (`iso/<key>.iso` and the texts beside it), an image
//! tarball (`tarballs/<key>.tar` and its texts), an image blob (`blobs/sha256/<hex>`) or a
//! downloaded file (`files/sha256/<hex>`). Its last use is the later of its modification and
//! access times; a build that takes an entry sets its access time ([`mark_used`]), whatever
//! the file system's `atime` options.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use super::CacheDirError;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A finished ISO.
    Iso,
    /// A finished image tarball.
    Tarball,
    /// An image blob.
    Blob,
    /// A downloaded file.
    File,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Iso => "iso",
            Kind::Tarball => "tarball",
            Kind::Blob => "blob",
            Kind::File => "file",
        })
    }
}

/// One entry of the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// What it holds.
    pub kind: Kind,
    /// Its name in its folder (`<key>.iso`, a blob's hex digest).
    pub name: String,
    /// Its files: the entry first, then the texts beside it.
    pub files: Vec<PathBuf>,
    /// The bytes of its files.
    pub size: u64,
    /// When it was last written or taken, seconds since 1970.
    pub last_use: i64,
}

/// Where each kind lives in the cache folder, and the suffix its entries end with (`None`:
/// every file there not ending in `.part`).
const LAYOUT: [(Kind, &str, Option<&str>); 4] = [
    (Kind::Iso, "iso", Some(".iso")),
    (Kind::Tarball, "tarballs", Some(".tar")),
    (Kind::Blob, "blobs/sha256", None),
    (Kind::File, "files/sha256", None),
];

/// Every entry of the cache folder `dir`, least recently used first.
pub fn list(dir: &Path) -> Result<Vec<Entry>, CacheDirError> {
    if !dir.is_dir() {
        return Err(CacheDirError::NotAFolder {
            dir: dir.to_path_buf(),
        });
    }
    let mut entries = Vec::new();
    for (kind, sub, suffix) in LAYOUT {
        let folder = dir.join(sub);
        let names = match std::fs::read_dir(&folder) {
            Ok(items) => items
                .flatten()
                .filter(|i| i.file_type().is_ok_and(|t| t.is_file()))
                .map(|i| i.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(CacheDirError::Io {
                    path: folder,
                    source,
                });
            }
        };
        for name in names.iter().filter(|n| match suffix {
            Some(suffix) => n.ends_with(suffix),
            None => !n.starts_with('.') && !n.ends_with(".part"),
        }) {
            // The texts beside an ISO or a tarball: `<name>.<side>`.
            let sides = names.iter().filter(|other| {
                other.len() > name.len() + 1 && other.starts_with(&format!("{name}."))
            });
            let files: Vec<PathBuf> = std::iter::once(name)
                .chain(sides)
                .map(|n| folder.join(n))
                .collect();
            if let Some(entry) = entry(kind, name, files) {
                entries.push(entry);
            }
        }
    }
    entries.sort_by(|a, b| (a.last_use, a.kind, &a.name).cmp(&(b.last_use, b.kind, &b.name)));
    Ok(entries)
}

/// The entry of `files` (gone when its first file went meanwhile).
fn entry(kind: Kind, name: &str, files: Vec<PathBuf>) -> Option<Entry> {
    let main = std::fs::symlink_metadata(files.first()?).ok()?;
    let mut size = main.len();
    for side in &files[1..] {
        size += std::fs::symlink_metadata(side).map_or(0, |m| m.len());
    }
    let seconds = |time: std::io::Result<SystemTime>| {
        time.ok()
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    };
    let last_use = seconds(main.modified()).max(seconds(main.accessed()));
    Some(Entry {
        kind,
        name: name.to_string(),
        files,
        size,
        last_use,
    })
}

/// Marks the cache file at `path` as used now (its access time), for pruning by last use. Best
/// effort: a file that cannot be marked is simply older to the pruner.
pub fn mark_used(path: &Path) {
    if let Ok(file) = std::fs::File::open(path) {
        let times = std::fs::FileTimes::new().set_accessed(SystemTime::now());
        let _ = file.set_times(times);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_the_kept_things_with_their_sides_least_recently_used_first() {
        let dir = tempfile::tempdir().expect("dir");
        let (iso, blobs) = (dir.path().join("iso"), dir.path().join("blobs/sha256"));
        std::fs::create_dir_all(&iso).expect("mkdir");
        std::fs::create_dir_all(&blobs).expect("mkdir");
        std::fs::write(iso.join("k.iso"), b"12345").expect("write");
        std::fs::write(iso.join("k.iso.sha256"), b"ab").expect("write");
        std::fs::write(blobs.join("aa"), b"1").expect("write");
        std::fs::write(blobs.join(".aa.1.part"), b"12").expect("write");
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        let file = std::fs::File::options()
            .write(true)
            .open(blobs.join("aa"))
            .expect("open");
        file.set_times(
            std::fs::FileTimes::new()
                .set_accessed(old)
                .set_modified(old),
        )
        .expect("set times");
        let entries = list(dir.path()).expect("list");
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(
            (entries[0].kind, entries[0].name.as_str()),
            (Kind::Blob, "aa")
        );
        assert_eq!((entries[1].kind, entries[1].size), (Kind::Iso, 7));
        assert_eq!(entries[1].files.len(), 2);
        mark_used(&blobs.join("aa"));
        let entries = list(dir.path()).expect("list");
        assert_eq!(entries[1].name, "aa", "used now, so last");
    }
}
