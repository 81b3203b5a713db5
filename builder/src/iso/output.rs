//! Where an image lands: `<name>.iso.partial` while written, renamed when complete, with a
//! `<name>.iso.sha256` sidecar in `sha256sum` format.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::PackError;

/// The line `sha256sum` prints and `sha256sum -c` reads: `<hex>  <file name>`.
pub fn sidecar_line(sha256: &str, file_name: &str) -> String {
    format!("{sha256}  {file_name}\n")
}

/// `path` with `suffix` appended to its file name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// The sidecar path of an image: `<out>.sha256`.
pub fn sidecar_path(out: &Path) -> PathBuf {
    with_suffix(out, ".sha256")
}

/// The temporary name an image is written under: `<out>.partial`.
pub fn partial_path(out: &Path) -> PathBuf {
    with_suffix(out, ".partial")
}

/// A file being written under a temporary name, removed on drop unless committed.
pub struct Partial {
    temp: PathBuf,
    done: bool,
}

impl Partial {
    /// Creates `<out>.partial` (replacing a stale one) and returns it with the open file.
    pub fn create(out: &Path) -> Result<(Self, File), PackError> {
        let temp = partial_path(out);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temp)
            .map_err(|err| PackError::Output {
                out: out.to_path_buf(),
                detail: format!(
                    "cannot create {}: {err}; check that the directory exists and is writable",
                    temp.display()
                ),
            })?;
        Ok((Self { temp, done: false }, file))
    }

    /// Renames the temporary file to `out`.
    pub fn commit(mut self, out: &Path) -> Result<(), PackError> {
        fs::rename(&self.temp, out).map_err(|err| PackError::Output {
            out: out.to_path_buf(),
            detail: format!("cannot rename {} into place: {err}", self.temp.display()),
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Writes the sidecar of `out` under a temporary name; commit it after the image.
pub fn write_sidecar(out: &Path, sha256: &str) -> Result<Partial, PackError> {
    let sidecar = sidecar_path(out);
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (partial, mut file) = Partial::create(&sidecar)?;
    file.write_all(sidecar_line(sha256, &name).as_bytes())
        .and_then(|()| file.flush())
        .map_err(|err| PackError::Output {
            out: sidecar.clone(),
            detail: err.to_string(),
        })?;
    Ok(partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_line_is_what_sha256sum_prints() {
        assert_eq!(
            sidecar_line("ab12", "cks-1.33.13-x86_64.iso"),
            "ab12  cks-1.33.13-x86_64.iso\n"
        );
    }

    #[test]
    fn suffixes_go_on_the_file_name() {
        assert_eq!(
            with_suffix(Path::new("out/k.iso"), ".partial"),
            PathBuf::from("out/k.iso.partial")
        );
        assert_eq!(
            sidecar_path(Path::new("k.iso")),
            PathBuf::from("k.iso.sha256")
        );
    }
}
