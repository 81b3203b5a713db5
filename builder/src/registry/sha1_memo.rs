//! The SHA-1 of each image blob, remembered in the cache folder's `sha1/` (a file named by the
//! blob's sha256 holding `<sha1> <size>`).
//!
//! The SBOM lists every layer with a SHA-1 (SPDX asks one of every file). Hashed from the
//! tarballs after the pull, that is a pass over every layer while nothing else moves; hashed as
//! each blob lands in the blob store, it is done while the other blobs are still on the way,
//! and the SBOM only reads it back. A remembered SHA-1 is used only for a blob of the same
//! sha256 and size.

use std::io::Read;
use std::path::Path;

use sha1::{Digest as _, Sha1};

/// The remembered SHA-1 of the blob with sha256 `hex` and `size` bytes, if any.
pub fn recall(memo: &Path, hex: &str, size: u64) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(memo.join(hex))
        .ok()?
        .take(128)
        .read_to_string(&mut text)
        .ok()?;
    let (sha1, bytes) = text.trim().split_once(' ')?;
    let sound = sha1.len() == 40 && sha1.bytes().all(|b| b.is_ascii_hexdigit());
    (sound && bytes.parse::<u64>().ok() == Some(size)).then(|| sha1.to_string())
}

/// Remembers a blob's SHA-1 (best effort: written under a temporary name and renamed; a memo
/// that cannot be written is computed again).
pub fn remember(memo: &Path, hex: &str, sha1: &str, size: u64) {
    if !crate::digest::is_sha256_hex(hex) || std::fs::create_dir_all(memo).is_err() {
        return;
    }
    let Ok(temp) = tempfile::NamedTempFile::new_in(memo) else {
        return;
    };
    if std::fs::write(temp.path(), format!("{sha1} {size}\n")).is_ok() {
        let _ = temp.persist(memo.join(hex));
    }
}

/// Hashes the blob at `path` (sha256 `hex`, `size` bytes) and remembers its SHA-1, unless it
/// is remembered already.
pub fn remember_file(memo: &Path, hex: &str, path: &Path, size: u64) {
    if recall(memo, hex, size).is_some() {
        return;
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return;
    };
    if let Ok((sha1, read)) = sha1_of(&mut file)
        && read == size
    {
        remember(memo, hex, &sha1, size);
    }
}

/// The SHA-1 of what `reader` gives until its end, 40 lower-case hex digits, and how many
/// bytes that was.
pub fn sha1_of(reader: &mut impl Read) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha1::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut read = 0u64;
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        read += n as u64;
    }
    Ok((hex::encode(hasher.finalize()), read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_hashed_as_it_lands_is_recalled_for_its_digest_and_size_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let memo = dir.path().join("sha1");
        let blob = dir.path().join("blob");
        std::fs::write(&blob, b"abc").expect("write");
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        remember_file(&memo, hex, &blob, 3);
        assert_eq!(
            recall(&memo, hex, 3).as_deref(),
            Some("a9993e364706816aba3e25717850c26c9cd0d89d")
        );
        assert!(recall(&memo, hex, 4).is_none(), "another size");
        // A blob shorter than its size is not remembered; nor is a name that is no digest.
        let other = "0".repeat(64);
        remember_file(&memo, &other, &blob, 5);
        assert!(recall(&memo, &other, 5).is_none());
        remember(
            &memo,
            "../escape",
            "a9993e364706816aba3e25717850c26c9cd0d89d",
            3,
        );
        assert!(!dir.path().join("escape").exists());
    }

    #[test]
    fn a_remembered_sha1_is_used_only_for_the_same_size() {
        let memo = tempfile::tempdir().expect("memo dir");
        let hex = "a".repeat(64);
        let sha1 = "b".repeat(40);
        remember(memo.path(), &hex, &sha1, 7);
        assert_eq!(recall(memo.path(), &hex, 7), Some(sha1));
        assert_eq!(recall(memo.path(), &hex, 8), None);
        assert_eq!(recall(memo.path(), &"c".repeat(64), 7), None);
        std::fs::write(memo.path().join(&hex), "not-a-sha1 7\n").expect("write");
        assert_eq!(
            recall(memo.path(), &hex, 7),
            None,
            "a damaged memo is not used"
        );
    }

    #[test]
    fn sha1_of_matches_the_known_digest() {
        let mut bytes: &[u8] = b"abc";
        assert_eq!(
            sha1_of(&mut bytes).expect("reads"),
            ("a9993e364706816aba3e25717850c26c9cd0d89d".to_string(), 3)
        );
    }
}
