//! The POSIX modes an image records: every entry world-readable, executables stay executable.

pub use cks_iso_reader::iso::EntryKind;

/// The mode an entry gets in the image, from its mode on disk.
///
/// Files become `0644`, or `0755` when any execute bit is set (a binary downloaded to a `0700`
/// temp file stays executable for everyone); directories `0755`; symlinks `0777`. Set-id and
/// sticky bits are dropped. Like `mkisofs -r`, so a node reads every file whatever the umask of
/// the build host.
pub fn image_mode(kind: EntryKind, host_mode: u32) -> u32 {
    match kind {
        EntryKind::Dir => 0o755,
        EntryKind::Symlink => 0o777,
        EntryKind::File if host_mode & 0o111 != 0 => 0o755,
        EntryKind::File => 0o644,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_execute_bit_makes_a_file_executable_for_all() {
        for mode in [0o700, 0o744, 0o710, 0o701, 0o4755, 0o500] {
            assert_eq!(image_mode(EntryKind::File, mode), 0o755, "{mode:o}");
        }
    }

    #[test]
    fn private_files_become_world_readable() {
        for mode in [0o600, 0o400, 0o640, 0o666, 0o1644] {
            assert_eq!(image_mode(EntryKind::File, mode), 0o644, "{mode:o}");
        }
    }

    #[test]
    fn directories_and_symlinks_are_open() {
        assert_eq!(image_mode(EntryKind::Dir, 0o700), 0o755);
        assert_eq!(image_mode(EntryKind::Symlink, 0o700), 0o777);
    }
}
