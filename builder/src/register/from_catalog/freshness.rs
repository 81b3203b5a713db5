//! The serial of the last catalog applied with a key, kept beside the key as `<key>.serial` (one
//! decimal number), so that a catalog served again after a newer one was applied is refused.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::error::CatalogRegisterError;

/// The most read of the state file.
const MAX_STATE: u64 = 64;

/// `<key>.serial`.
pub fn state_path(key: &Path) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push(".serial");
    PathBuf::from(name)
}

/// The serial last applied with `key` (0 when none was).
pub fn last_applied(key: &Path) -> Result<u64, CatalogRegisterError> {
    let path = state_path(key);
    let bad = |detail: String| CatalogRegisterError::State {
        path: path.display().to_string(),
        detail,
    };
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(bad(e.to_string())),
    };
    let mut text = String::new();
    file.take(MAX_STATE)
        .read_to_string(&mut text)
        .map_err(|e| bad(e.to_string()))?;
    text.trim()
        .parse()
        .map_err(|_| bad(format!("{:?} is not a serial", text.trim())))
}

/// Records `serial` as the last applied with `key`, unless a larger one already is.
pub fn record(key: &Path, serial: u64) -> Result<(), CatalogRegisterError> {
    if last_applied(key)? >= serial {
        return Ok(());
    }
    let path = state_path(key);
    crate::atomic::write(&path, format!("{serial}\n").as_bytes()).map_err(|e| {
        CatalogRegisterError::State {
            path: path.display().to_string(),
            detail: e.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_only_grows_and_a_damaged_state_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let key = dir.path().join("release.pub");
        assert_eq!(last_applied(&key).expect("none yet"), 0);
        record(&key, 7).expect("record");
        record(&key, 5).expect("record an older one");
        assert_eq!(last_applied(&key).expect("read"), 7);
        std::fs::write(state_path(&key), "seven").expect("write");
        let err = last_applied(&key).expect_err("damaged");
        assert!(err.to_string().contains("release.pub.serial"), "{err}");
    }
}
