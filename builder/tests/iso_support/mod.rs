//! Shared pieces of the ISO tests: a tree shaped like a CKS ISO, running the real readers, and
//! parsing what they print.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_builder::iso::{EntryKind, image_mode};
use sha2::{Digest, Sha256};

/// A name of `len` characters ending in `.yaml`, distinct per `tag`.
pub fn long_name(tag: &str, len: usize) -> String {
    let stem = format!("{tag}-");
    let fill = len - stem.len() - ".yaml".len();
    format!("{stem}{}.yaml", "x".repeat(fill))
}

/// The names longer than Joliet's 64 characters in [`write_sample`].
pub fn long_names() -> Vec<String> {
    vec![
        long_name("manifests-cluster-autoscaler", 70),
        long_name("csi-snapshot-controller", 100),
        long_name("rock-ridge-keeps-every-byte", 200),
    ]
}

/// Deterministic bytes, different per `seed`.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn put(root: &Path, rel: &str, data: &[u8], mode: u32) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    fs::write(&path, data).expect("write sample file");
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Writes a tree shaped like a CKS ISO into `root`: image tarballs named by reference (with `:`
/// and `+`), binaries downloaded as private executables, private manifests, names longer than
/// Joliet allows, a symlink, an empty file and an empty directory.
pub fn write_sample(root: &Path) {
    put(
        root,
        "docker/kube-apiserver:v1.33.13.tar",
        &bytes(1, 300_000),
        0o600,
    );
    put(
        root,
        "docker/registry.k8s.io+pause:3.10.tar",
        &bytes(2, 40_000),
        0o600,
    );
    put(
        root,
        "binaries/1.33.13/kubeadm",
        &bytes(3, 1_200_000),
        0o700,
    );
    put(root, "binaries/1.33.13/kubelet", &bytes(4, 900_000), 0o755);
    put(root, "binaries/1.33.13/kubectl", &bytes(5, 700_000), 0o744);
    put(
        root,
        "conf/10-kubeadm.conf",
        b"[Service]\nEnvironment=\"KUBELET_KUBECONFIG_ARGS=\"\n",
        0o644,
    );
    put(
        root,
        "manifests/Cluster-Autoscaler.yaml",
        b"kind: Deployment\n",
        0o600,
    );
    for (i, name) in long_names().iter().enumerate() {
        put(
            root,
            &format!("manifests/{name}"),
            &bytes(10 + i as u64, 5_000),
            0o640,
        );
    }
    put(root, "versions.txt", b"kubernetes v1.33.13\n", 0o644);
    put(root, "empty", b"", 0o600);
    fs::create_dir_all(root.join("cni/empty-dir")).expect("mkdir");
    fs::set_permissions(root.join("cni"), fs::Permissions::from_mode(0o700)).expect("chmod");
    std::os::unix::fs::symlink("1.33.13", root.join("binaries/current")).expect("symlink");
}

/// What an entry of the source tree must look like in the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// `ls -l` style mode string, e.g. `-rwxr-xr-x`.
    pub mode: String,
    /// Size of a file.
    pub size: u64,
    /// sha256 of a file.
    pub sha256: Option<String>,
    /// Target of a symlink.
    pub target: Option<String>,
}

/// `ls -l` mode string of a kind and permission bits.
pub fn mode_string(kind: EntryKind, mode: u32) -> String {
    let mut s = String::from(match kind {
        EntryKind::Dir => "d",
        EntryKind::Symlink => "l",
        EntryKind::File => "-",
    });
    for shift in [6, 3, 0] {
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    s
}

/// Every entry under `root` (paths like `/docker/x.tar`), as the image must show it.
pub fn expected(root: &Path) -> BTreeMap<String, Expected> {
    let mut out = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("read source dir") {
            let path = entry.expect("entry").path();
            let meta = fs::symlink_metadata(&path).expect("metadata");
            let rel = format!(
                "/{}",
                path.strip_prefix(root).expect("under root").display()
            );
            let (kind, sha256, target) = if meta.file_type().is_symlink() {
                let target = fs::read_link(&path)
                    .expect("readlink")
                    .display()
                    .to_string();
                (EntryKind::Symlink, None, Some(target))
            } else if meta.is_dir() {
                pending.push(path.clone());
                (EntryKind::Dir, None, None)
            } else {
                (EntryKind::File, Some(sha256_file(&path)), None)
            };
            let size = if kind == EntryKind::File {
                meta.len()
            } else {
                0
            };
            let mode = mode_string(kind, image_mode(kind, meta.permissions().mode()));
            out.insert(
                rel,
                Expected {
                    mode,
                    size,
                    sha256,
                    target,
                },
            );
        }
    }
    out
}

/// Hex sha256 of a file, streamed.
pub fn sha256_file(path: &Path) -> String {
    let mut file = fs::File::open(path).expect("open for hashing");
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).expect("read for hashing");
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    hex::encode(hasher.finalize())
}

/// Runs `program args`, failing the test with its stderr unless it succeeds; returns stdout.
pub fn run(program: &str, package: &str, args: &[&str]) -> String {
    let path = cks_fixtures::process::require_program(program, package).expect("reader installed");
    let output = Command::new(&path).args(args).output().expect("run reader");
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The `cks-iso` binary under test.
pub fn cks_iso() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
}

/// Runs `cks-iso pack ARGS` with `SOURCE_DATE_EPOCH` set as given.
pub fn pack_cli(args: &[&str], epoch: Option<&str>) -> Output {
    let mut cmd = cks_iso();
    cmd.arg("pack").args(args);
    match epoch {
        Some(epoch) => cmd.env("SOURCE_DATE_EPOCH", epoch),
        None => cmd.env_remove("SOURCE_DATE_EPOCH"),
    };
    cmd.output().expect("run cks-iso pack")
}

/// One line of `xorriso -find / -exec lsdl`: mode, size, target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Mode string.
    pub mode: String,
    /// Size column.
    pub size: u64,
    /// Date columns as printed.
    pub date: String,
    /// Symlink target.
    pub target: Option<String>,
}

/// Parses `xorriso -indev ISO -find / -exec lsdl` into path → entry (the root left out).
pub fn xorriso_lsdl(iso: &Path) -> BTreeMap<String, Listed> {
    let text = run(
        "xorriso",
        "xorriso",
        &[
            "-indev",
            &iso.display().to_string(),
            "-find",
            "/",
            "-exec",
            "lsdl",
        ],
    );
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let quote = line.find(" '/").expect("a quoted path") + 1;
        let columns: Vec<&str> = line[..quote].split_whitespace().collect();
        let rest = &line[quote + 1..];
        let end = rest.find('\'').expect("closing quote");
        let path = rest[..end].to_string();
        let target = rest[end + 1..]
            .strip_prefix(" -> '")
            .map(|t| t.trim_end_matches('\'').to_string());
        if path == "/" {
            continue;
        }
        out.insert(
            path,
            Listed {
                mode: columns[0].to_string(),
                size: columns[4].parse().expect("size column"),
                date: columns[5..].join(" "),
                target,
            },
        );
    }
    out
}

/// Parses `isoinfo -l` output (with `-R` or `-J`) into path → (mode, size, symlink target).
pub fn isoinfo_listing(iso: &Path, flag: &str) -> BTreeMap<String, (String, u64, Option<String>)> {
    let text = run(
        "isoinfo",
        "genisoimage",
        &[flag, "-l", "-i", &iso.display().to_string()],
    );
    let mut out = BTreeMap::new();
    let mut dir = String::new();
    for line in text.lines() {
        if let Some(d) = line.strip_prefix("Directory listing of ") {
            dir = d.trim_end().to_string();
            continue;
        }
        let Some(close) = line.find("]  ") else {
            continue;
        };
        let name = line[close + 3..].trim_end_matches(' ');
        if name.is_empty() || name == "." || name == ".." || name == "\u{0}" || name == "\u{1}" {
            continue;
        }
        let columns: Vec<&str> = line[..close].split_whitespace().collect();
        let (name, target) = match name.split_once(" -> ") {
            Some((n, t)) => (n, Some(t.to_string())),
            None => (name, None),
        };
        out.insert(
            format!("{dir}{name}"),
            (
                columns[0].to_string(),
                columns[4].parse().unwrap_or(0),
                target,
            ),
        );
    }
    out
}

/// A temp dir holding `tree/` (filled by [`write_sample`]) and room for images.
pub struct Workspace {
    /// Removed on drop.
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// A new workspace with the sample tree written.
    pub fn with_sample() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        write_sample(&dir.path().join("tree"));
        Self { dir }
    }

    /// The tree to pack.
    pub fn tree(&self) -> PathBuf {
        self.dir.path().join("tree")
    }

    /// A path in the workspace.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}
