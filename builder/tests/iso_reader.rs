//! Our reader lists what real readers list (names, modes, symlinks) and streams each file's bytes
//! out with the source's sha256, so `cks-iso verify` can check an image.

use crate::iso_support::{Workspace, expected, mode_string, xorriso_lsdl};
use cks_builder::iso::IsoImage;
use cks_builder::iso::{BuildTime, EntryKind, IsoError, PackOptions, pack};

#[test]
fn the_reader_lists_every_entry_as_xorriso_does_and_hashes_every_file_as_the_source() {
    let ws = Workspace::with_sample();
    let out = ws.path("cks.iso");
    let options = PackOptions::new("CKS_TEST", BuildTime::fixed(1_700_000_000)).expect("id");
    pack(&ws.tree(), &out, &options).expect("pack");
    let image = IsoImage::open(&out).expect("open image");
    assert_eq!(image.volume_id(), "CKS_TEST");
    let want = expected(&ws.tree());
    let lsdl = xorriso_lsdl(&out);
    let entries = image.entries().expect("entries");
    assert_eq!(
        entries.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(),
        want.keys().map(String::as_str).collect::<Vec<_>>()
    );
    for entry in &entries {
        let source = &want[&entry.path];
        assert_eq!(
            mode_string(entry.kind, entry.mode),
            source.mode,
            "{}",
            entry.path
        );
        assert_eq!(
            mode_string(entry.kind, entry.mode),
            lsdl[&entry.path].mode,
            "{}",
            entry.path
        );
        assert_eq!(entry.target, source.target, "{}", entry.path);
        if entry.kind == EntryKind::File {
            assert_eq!(entry.size, source.size, "{}", entry.path);
            assert_eq!(
                Some(image.sha256(&entry.path).expect("hash")),
                source.sha256,
                "{}",
                entry.path
            );
        }
    }
    let mut bytes = Vec::new();
    let n = image.copy_file("/versions.txt", &mut bytes).expect("copy");
    assert_eq!((n, bytes.as_slice()), (20, &b"kubernetes v1.33.13\n"[..]));
}

#[test]
fn asking_for_a_directory_or_a_missing_file_names_it() {
    let ws = Workspace::with_sample();
    let out = ws.path("cks.iso");
    pack(
        &ws.tree(),
        &out,
        &PackOptions::with_time(BuildTime::fixed(1)),
    )
    .expect("pack");
    let image = IsoImage::open(&out).expect("open");
    let err = image.sha256("/docker").expect_err("a directory");
    assert!(matches!(err, IsoError::NotAFile { .. }), "{err}");
    assert!(err.to_string().contains("/docker"), "{err}");
    let err = image.sha256("/no/such/file").expect_err("missing");
    assert!(err.to_string().contains("/no/such/file"), "{err}");
}

#[test]
fn a_file_that_is_not_an_iso_is_refused_naming_it() {
    let ws = Workspace::with_sample();
    let not_iso = ws.tree().join("versions.txt");
    let err = IsoImage::open(&not_iso).err().expect("not an image");
    assert!(err.to_string().contains("versions.txt"), "{err}");
    let err = IsoImage::open(&ws.path("missing.iso"))
        .err()
        .expect("missing");
    assert!(err.to_string().contains("missing.iso"), "{err}");
}
