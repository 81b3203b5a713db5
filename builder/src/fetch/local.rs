//! Local sources: a "URL" that names an existing file (or a `file://` URL) is copied, hashed
//! on the way, into a temporary file beside the destination.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Count;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// Copies `src` into a new temporary file in `dir`, hashing it.
pub async fn copy_hashing(
    src: &Path,
    dir: &Path,
    dest_name: &str,
    progress: &dyn ProgressSink,
    name: &str,
) -> Result<Downloaded, FetchError> {
    let mut input = tokio::fs::File::open(src)
        .await
        .map_err(|e| FetchError::io("opening", src, e))?;
    let total = input.metadata().await.ok().map(|m| m.len());
    let temp = temp_in(dir, dest_name)?;
    let std_file = temp
        .as_file()
        .try_clone()
        .map_err(|e| FetchError::io("opening", dir.join(dest_name), e))?;
    let mut output = tokio::fs::File::from_std(std_file);
    let mut hasher = Sha256Count::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    progress.on_start(name, total);
    loop {
        let n = input
            .read(&mut buf)
            .await
            .map_err(|e| FetchError::io("reading", src, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        output
            .write_all(&buf[..n])
            .await
            .map_err(|e| FetchError::io("writing", dir.join(dest_name), e))?;
        bytes += n as u64;
        progress.on_bytes(name, n as u64);
    }
    output
        .flush()
        .await
        .map_err(|e| FetchError::io("writing", dir.join(dest_name), e))?;
    Ok(Downloaded {
        temp,
        sha256: hasher.finish().into_hex(),
        bytes,
    })
}
