//! Local sources: a "URL" that names an existing file (or a `file://` URL) is copied, hashed
//! on the way, into a temporary file beside the destination.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Count;
use std::io::{Read, Write};

use super::error::FetchError;
use super::http::{Downloaded, temp_in};
use crate::progress::ProgressSink;

/// The local file a source names, if it is not an http(s) URL. `Err` when it is neither.
pub fn local_path(source: &str) -> Result<Option<PathBuf>, FetchError> {
    if source.starts_with("http://") || source.starts_with("https://") {
        return Ok(None);
    }
    let path = PathBuf::from(source.strip_prefix("file://").unwrap_or(source));
    if path.is_file() {
        Ok(Some(path))
    } else {
        Err(FetchError::BadSource {
            source_text: source.to_string(),
        })
    }
}

/// Bytes copied by one blocking step of [`copy_hashing`]: large enough that the steps cost
/// nothing beside the copy, small enough that progress moves several times a second.
const STEP: usize = 8 << 20;

/// The bytes read, hashed and written at a time within a step (stays in the core's cache).
const CHUNK: usize = 256 << 10;

/// Copies `src` into a new temporary file in `dir`, hashing it.
///
/// Each step runs on a blocking thread with plain reads and writes: an async file would copy
/// every byte once more through its own buffer and cross threads for every chunk (a cached
/// kubeadm restored on a warm rebuild is 75 MiB).
pub async fn copy_hashing(
    src: &Path,
    dir: &Path,
    dest_name: &str,
    progress: &dyn ProgressSink,
    name: &str,
) -> Result<Downloaded, FetchError> {
    let input = std::fs::File::open(src).map_err(|e| FetchError::io("opening", src, e))?;
    let total = input.metadata().ok().map(|m| m.len());
    let temp = temp_in(dir, dest_name)?;
    let output = temp
        .as_file()
        .try_clone()
        .map_err(|e| FetchError::io("opening", dir.join(dest_name), e))?;
    let mut copy = Copy {
        input,
        output,
        hasher: Sha256Count::new(),
        buf: vec![0u8; CHUNK],
    };
    let mut bytes = 0u64;
    progress.on_start(name, total);
    loop {
        let (back, step) = tokio::task::spawn_blocking(move || {
            let step = copy.step();
            (copy, step)
        })
        .await
        .map_err(|e| FetchError::io("copying", src, std::io::Error::other(e)))?;
        copy = back;
        let n = match step {
            Ok(n) => n,
            Err((Side::Read, e)) => return Err(FetchError::io("reading", src, e)),
            Err((Side::Write, e)) => return Err(FetchError::io("writing", dir.join(dest_name), e)),
        };
        if n == 0 {
            break;
        }
        bytes += n as u64;
        progress.on_bytes(name, n as u64);
    }
    Ok(Downloaded {
        temp,
        sha256: copy.hasher.finish().into_hex(),
        bytes,
    })
}

/// Which side of a copy failed.
enum Side {
    Read,
    Write,
}

/// A copy in progress, moved to a blocking thread for each step.
struct Copy {
    input: std::fs::File,
    output: std::fs::File,
    hasher: Sha256Count,
    buf: Vec<u8>,
}

impl Copy {
    /// Reads, hashes and writes up to [`STEP`] bytes; how many (0 at the end of the input).
    fn step(&mut self) -> Result<usize, (Side, std::io::Error)> {
        let mut done = 0;
        while done < STEP {
            let n = match self.input.read(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err((Side::Read, e)),
            };
            if n == 0 {
                break;
            }
            self.hasher.update(&self.buf[..n]);
            self.output
                .write_all(&self.buf[..n])
                .map_err(|e| (Side::Write, e))?;
            done += n;
        }
        Ok(done)
    }
}
