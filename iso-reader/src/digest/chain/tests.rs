//! The chain's checkpoints, resumed states and the proof a file's segments make.

use super::*;
use std::io::{Seek, SeekFrom, Write};

fn reference(bytes: &[u8]) -> String {
    cks_pinning::digest::sha256_hex(bytes)
}

fn bytes(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

#[test]
fn the_digest_is_sha256_for_every_length_and_split() {
    for len in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096 + 17] {
        let data = bytes(len);
        for split in [0, 1, 63, 64, len / 2, len] {
            let split = split.min(len);
            let mut chain = Sha256Chain::new();
            chain.update(&data[..split]);
            chain.update(&data[split..]);
            assert_eq!(
                chain.finish_hex(),
                reference(&data),
                "len {len} split {split}"
            );
        }
    }
}

#[test]
fn a_hash_resumed_from_a_checkpoint_ends_where_the_whole_one_does() {
    let data = bytes(10_000);
    let mut first = Sha256Chain::new();
    first.update(&data[..640]);
    let at = first.checkpoint().expect("on a block boundary");
    assert_eq!(at.to_string().parse::<Checkpoint>(), Ok(at));
    let mut second = Sha256Chain::resume(at);
    second.update(&data[640..]);
    assert_eq!(second.finish_hex(), reference(&data));
    first.update(b"x");
    assert_eq!(first.checkpoint(), None, "mid-block has no checkpoint");
}

#[test]
fn a_checkpoint_line_that_is_not_one_is_refused() {
    for line in [
        "",
        "12",
        "65 00",
        "64 zz",
        &format!("63 {}", "0".repeat(64)),
    ] {
        assert!(line.parse::<Checkpoint>().is_err(), "{line:?}");
    }
}

/// A file of `len` bytes and the checkpoints a writer records every `every` bytes.
fn file_with_checkpoints(
    len: usize,
    every: usize,
) -> (tempfile::NamedTempFile, Vec<u8>, Vec<Checkpoint>) {
    let data = bytes(len);
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(&data).expect("write");
    let mut chain = Sha256Chain::new();
    let mut points = vec![chain.checkpoint().expect("start")];
    for piece in data.chunks(every) {
        chain.update(piece);
        if let Some(point) = chain.checkpoint()
            && point.offset < len as u64
        {
            points.push(point);
        }
    }
    (file, data, points)
}

#[test]
fn a_file_noted_once_verifies_from_its_own_checkpoints() {
    let data = bytes(3 * CHECKPOINT_EVERY as usize + 100);
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(&data).expect("write");
    let (digested, points) = noted_file(file.path()).expect("hashed");
    assert_eq!(digested.hex(), reference(&data));
    assert_eq!(points.len(), 4, "0 and every {CHECKPOINT_EVERY} bytes");
    let verified = verify_file(file.path(), &points, 2).expect("verified");
    assert_eq!(verified, reference(&data));
}

#[test]
fn a_file_verified_on_several_threads_gives_its_sha256() {
    let (file, data, points) = file_with_checkpoints(300_000, 4096);
    assert!(points.len() > 10);
    for threads in [1, 2, 5] {
        let digest = verify_file(file.path(), &points, threads).expect("verified");
        assert_eq!(digest, reference(&data));
    }
}

#[test]
fn a_changed_byte_a_lying_checkpoint_or_a_misfit_list_is_found() {
    let (mut file, _, points) = file_with_checkpoints(300_000, 4096);
    // A lying checkpoint: the segment before it no longer ends there.
    let mut lied = points.clone();
    lied[5].state[0] ^= 1;
    assert!(matches!(
        verify_file(file.path(), &lied, 2),
        Err(ChainError::Broken { .. })
    ));
    // A list that does not start from the initial state, or runs past the end.
    assert!(matches!(
        verify_file(file.path(), &points[1..], 2),
        Err(ChainError::Misfit { .. })
    ));
    let mut past = points.clone();
    past.push(Checkpoint {
        offset: 1 << 30,
        state: INITIAL,
    });
    assert!(matches!(
        verify_file(file.path(), &past, 2),
        Err(ChainError::Misfit { .. })
    ));
    // One byte changed in the middle.
    file.as_file_mut()
        .seek(SeekFrom::Start(150_001))
        .expect("seek");
    file.write_all(b"\xff").expect("write");
    assert!(matches!(
        verify_file(file.path(), &points, 2),
        Err(ChainError::Broken { .. })
    ));
}

#[test]
fn an_open_file_is_proven_whatever_its_path_names_and_a_stopped_proof_says_so() {
    let (file, data, points) = file_with_checkpoints(300_000, 4096);
    let open = std::fs::File::open(file.path()).expect("opens");
    // Another file renamed over the path after it was opened: the handle still names the first.
    let other = tempfile::NamedTempFile::new_in(file.path().parent().expect("a folder"))
        .expect("temp file");
    std::fs::write(other.path(), b"something else").expect("write");
    std::fs::rename(other.path(), file.path()).expect("renamed over it");
    let never = AtomicBool::new(false);
    assert_eq!(
        verify_open(&open, &points, 2, &never).expect("verified"),
        reference(&data)
    );
    let stopped = AtomicBool::new(true);
    assert!(matches!(
        verify_open(&open, &points, 2, &stopped),
        Err(ChainError::Stopped)
    ));
}

#[test]
fn a_change_in_the_last_segment_changes_the_digest() {
    let (mut file, data, points) = file_with_checkpoints(300_000, 4096);
    file.as_file_mut()
        .seek(SeekFrom::Start(299_999))
        .expect("seek");
    file.write_all(b"\x00").expect("write");
    let digest = verify_file(file.path(), &points, 2).expect("a chain still");
    assert_ne!(digest, reference(&data));
}
