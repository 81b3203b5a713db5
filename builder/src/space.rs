//! Why a write found no room: ENOSPC and EFBIG explained with the size the file needed when
//! known, and the filesystem (its mount point, device and free space) or the file size limit
//! (`ulimit -f`) that stopped it.
//!
//! ```
//! use std::path::Path;
//! let full = std::io::Error::from_raw_os_error(28); // ENOSPC
//! let said = cks_builder::space::explain(full, Path::new("/tmp/x.iso"), Some(1 << 30));
//! assert!(said.to_string().contains("No space left on device (os error 28), needing 1.0 GiB"));
//! ```

use std::io;
use std::path::{Path, PathBuf};

use crate::progress::human;

/// `ENOSPC`: no space left on the device.
const ENOSPC: i32 = 28;
/// `EFBIG`: the file would pass the file size limit (or the filesystem's largest file).
const EFBIG: i32 = 27;

/// `error`, met writing `path`, explained when it is ENOSPC or EFBIG: `needed` bytes when known,
/// and the filesystem or limit that stopped it (the caller's message names `path`). Any other
/// error is returned as it is; the kind stays what it was, the system's error is the source.
pub fn explain(error: io::Error, path: &Path, needed: Option<u64>) -> io::Error {
    let why = match error.raw_os_error() {
        Some(ENOSPC) => filesystem(path),
        Some(EFBIG) => file_size_limit(),
        _ => return error,
    };
    let needs = needed
        .map(|n| format!(", needing {}", human(n)))
        .unwrap_or_default();
    let kind = error.kind();
    io::Error::new(
        kind,
        NoRoom {
            said: format!("{error}{needs}; {why}"),
            cause: error,
        },
    )
}

/// Whether `error` is ENOSPC or EFBIG, the errors [`explain`] explains.
pub fn no_room(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(ENOSPC | EFBIG))
}

/// An ENOSPC or EFBIG error with its explanation; its source is the system's error.
#[derive(Debug, thiserror::Error)]
#[error("{said}")]
struct NoRoom {
    said: String,
    #[source]
    cause: io::Error,
}

/// The filesystem `path` is on: mount point, device, free space.
fn filesystem(path: &Path) -> String {
    let dir = path.parent().unwrap_or(path);
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let free = rustix::fs::statvfs(&dir)
        .ok()
        .map(|s| format!(", {} free", human(s.f_bavail.saturating_mul(s.f_frsize))))
        .unwrap_or_default();
    match mount_of(&dir) {
        Some((mount, device)) => format!(
            "the filesystem at {} ({device}{free}) is full; free space there or point the \
             output or TMPDIR elsewhere",
            mount.display()
        ),
        None => format!(
            "the filesystem of {}{free} is full; free space there or point the output or \
             TMPDIR elsewhere",
            dir.display()
        ),
    }
}

/// The mount point holding `dir` and its device, from /proc/self/mountinfo.
pub(crate) fn mount_of(dir: &Path) -> Option<(PathBuf, String)> {
    let table = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    table
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let mount = unescape(fields.get(4)?);
            let after = fields.iter().position(|f| *f == "-")?;
            let device = fields.get(after + 2)?.to_string();
            dir.starts_with(&mount)
                .then_some((PathBuf::from(mount), device))
        })
        .max_by_key(|(mount, _)| mount.components().count())
}

/// A mountinfo path with its octal escapes (`\040` for a space) read.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest
            .get(at + 1..at + 4)
            .and_then(|c| u8::from_str_radix(c, 8).ok());
        match code {
            Some(byte) => {
                out.push(char::from(byte));
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The file size limit that stopped a write.
fn file_size_limit() -> String {
    match rustix::process::getrlimit(rustix::process::Resource::Fsize).current {
        Some(limit) => format!(
            "the file size limit (ulimit -f) is {}; raise it or write elsewhere",
            human(limit)
        ),
        None => "the filesystem's largest file is smaller".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enospc_names_the_file_the_size_and_the_filesystem() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.iso");
        let said = explain(io::Error::from_raw_os_error(ENOSPC), &path, Some(3 << 20));
        let text = said.to_string();
        assert!(
            text.contains("No space left on device (os error 28), needing 3.0 MiB"),
            "{text}"
        );
        assert!(text.contains("the filesystem at /"), "{text}");
        assert!(text.contains("free)"), "{text}");
        assert_eq!(said.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn efbig_names_the_file_and_the_limit() {
        let said = explain(
            io::Error::from_raw_os_error(EFBIG),
            Path::new("/o/x.iso"),
            None,
        );
        let text = said.to_string();
        assert!(text.starts_with("File too large (os error 27); "), "{text}");
    }

    #[test]
    fn other_errors_pass_unchanged() {
        let said = explain(io::Error::from_raw_os_error(13), Path::new("/o/x"), None);
        assert_eq!(said.raw_os_error(), Some(13));
    }

    #[test]
    fn mountinfo_escapes_are_read() {
        assert_eq!(unescape("/mnt/a\\040b"), "/mnt/a b");
    }
}
