//! Small files written whole or not at all: a temporary file in the same folder, renamed into
//! place when complete (mode 0644, readable by all as the ISO is).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file beside it, renamed into place.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(plain)?;
    file.as_file_mut().write_all(bytes)?;
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `error` without the temporary file's name that `tempfile` adds to it (`... at path
/// "/out/.tmpOsFXCR"`): the caller names the final path instead.
pub fn plain(error: std::io::Error) -> std::io::Error {
    match error.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::new(error.kind(), error.kind().to_string()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_leaves_the_temporary_name_out() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("gone");
        let error = tempfile::NamedTempFile::new_in(&missing).expect_err("no folder");
        assert!(error.to_string().contains(".tmp"), "{error}");
        let plain = super::plain(error).to_string();
        assert!(
            !plain.contains(".tmp") && !plain.contains("gone"),
            "{plain}"
        );
    }
}
