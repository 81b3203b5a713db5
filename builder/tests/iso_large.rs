//! A file over 4 GiB (a large image tarball) round-trips through a multi-extent level-3 image,
//! written under `.partial` and renamed, with flat memory. The source and the image are sparse,
//! so the test needs little disk; it still needs 12 GiB free to run, as a real build would.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::iso_support::{Workspace, run, sha256_file, xorriso_lsdl};
use sha2::{Digest, Sha256};

const SIZE: u64 = 4_831_838_208; // 4.5 GiB
const NEED_FREE: u64 = 12 << 30;

/// Kills the child if the test fails before it ends.
struct Reap(Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_bytes(dir: &std::path::Path) -> u64 {
    let text = run(
        "df",
        "coreutils",
        &["-B1", "--output=avail", &dir.display().to_string()],
    );
    text.lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("df output")
}

fn sparse_file(path: &std::path::Path) {
    let mut file = File::create(path).expect("create sparse file");
    for (at, mark) in [
        (0, &b"head"[..]),
        ((4 << 30) - 2, b"across-4GiB"),
        (SIZE - 4, b"tail"),
    ] {
        file.seek(SeekFrom::Start(at)).expect("seek");
        file.write_all(mark).expect("mark");
    }
    assert_eq!(file.metadata().expect("meta").len(), SIZE);
}

#[test]
fn a_sparse_4_5_gib_file_round_trips_with_rock_ridge_through_a_partial_file() {
    let ws = tempfile::tempdir().expect("tempdir");
    let free = free_bytes(ws.path());
    if free < NEED_FREE {
        cks_fixtures::skip::skip(&format!(
            "only {free} bytes free in {}, the 4.5 GiB test needs 12 GiB",
            ws.path().display()
        ));
        return;
    }
    let ws = Workspace { dir: ws };
    let tree = ws.path("tree");
    fs::create_dir_all(tree.join("docker")).expect("mkdir");
    let big = tree.join("docker/registry.k8s.io+huge-image:v1.0.0.tar");
    sparse_file(&big);
    fs::write(tree.join("small.txt"), b"next to a big one\n").expect("small");

    let out = ws.path("big.iso");
    let partial = ws.path("big.iso.partial");
    let time = run("which", "debianutils", &["time"]);
    assert!(
        !time.trim().is_empty(),
        "/usr/bin/time is installed (Debian package time)"
    );
    let child = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_cks-iso"))
        .args([
            "pack",
            &tree.display().to_string(),
            &out.display().to_string(),
        ])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cks-iso pack");
    let mut child = Reap(child);
    // While the image is written only the partial file exists.
    cks_fixtures::process::wait_for_path(&partial, Duration::from_secs(60))
        .expect("partial file appears");
    assert!(
        !out.exists(),
        "the image is not in place before it is complete"
    );
    let want = sha256_file(&big);
    let status = child.0.wait().expect("wait for pack");
    let mut stdout = String::new();
    child
        .0
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout)
        .expect("read stdout");
    let mut stderr = String::new();
    child
        .0
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    assert!(status.success(), "{stderr}");
    assert!(!partial.exists(), "partial renamed");
    assert!(out.exists());

    // Flat memory: a 4.5 GiB image in a few MiB.
    let rss_kib: u64 = stderr
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("peak RSS in {stderr}"));
    assert!(
        rss_kib < 64 * 1024,
        "peak RSS {rss_kib} KiB for a 4.5 GiB image"
    );

    let printed = stdout
        .lines()
        .find_map(|l| l.strip_prefix("sha256: "))
        .unwrap_or_else(|| panic!("sha256 printed: {stdout}"))
        .to_string();
    let listed = xorriso_lsdl(&out);
    let entry = &listed["/docker/registry.k8s.io+huge-image:v1.0.0.tar"];
    assert_eq!((entry.mode.as_str(), entry.size), ("-rw-r--r--", SIZE));

    // The file streamed out of the image by bsdtar hashes as the source does.
    let mut reader = Command::new("bsdtar")
        .args([
            "-xOf",
            &out.display().to_string(),
            "docker/registry.k8s.io+huge-image:v1.0.0.tar",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start bsdtar");
    let mut streamed = reader.stdout.take().expect("stdout");
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = streamed.read(&mut buf).expect("read bsdtar");
        if n == 0 {
            break;
        }
        total += n as u64;
        hasher.update(&buf[..n]);
    }
    assert!(reader.wait().expect("bsdtar").success());
    assert_eq!(total, SIZE);
    assert_eq!(hex::encode(hasher.finalize()), want);
    // Our own reader streams it out too.
    let image = cks_builder::iso::IsoImage::open(&out).expect("open image");
    assert_eq!(
        image
            .sha256("/docker/registry.k8s.io+huge-image:v1.0.0.tar")
            .expect("hash"),
        want
    );
    assert_eq!(
        fs::read_to_string(ws.path("big.iso.sha256")).expect("sidecar"),
        format!("{printed}  big.iso\n"),
        "the sidecar holds the sha256 the writer computed (checked against sha256sum in iso_cli)"
    );
}
