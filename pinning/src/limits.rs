//! How much a build reads from any one answer: a limit per kind of input, each with a default
//! far above what real upstreams send, raised with `--limit KIND=SIZE` or the `[limit]` table of
//! the config. A server that sends more is refused as soon as it does, so neither memory nor the
//! disk grows with what a hostile or broken server sends.
//!
//! ```
//! use cks_pinning::limits::{LimitKind, Limits};
//! let mut limits = Limits::default();
//! assert_eq!(limits.get(LimitKind::Manifest), 8 << 20);
//! limits.set_text("manifest=16MiB").expect("valid");
//! assert_eq!(limits.get(LimitKind::Manifest), 16 << 20);
//! assert_eq!(LimitKind::of_file("network.yaml"), LimitKind::Manifest);
//! assert_eq!(LimitKind::of_file("k8s/kubeadm"), LimitKind::File);
//! ```

use std::fmt;

/// A kind of input with its own limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LimitKind {
    /// Kubernetes manifests and the other small text files of the ISO (kubelet units).
    Manifest,
    /// Published checksum files and signature files (`.sha256`, `SHA256SUMS`, `.sig`, bundles).
    Checksum,
    /// Token answers and error bodies.
    Answer,
    /// OCI manifests, indexes and image configs.
    Oci,
    /// One git answer (an `info/refs` advertisement or an `ls-refs` reply).
    Git,
    /// Layers in one image (a count, not bytes).
    Layers,
    /// One large file: a Kubernetes binary, the CNI plugins, crictl, etcd.
    File,
}

impl LimitKind {
    /// Every kind, in the order the README lists them.
    pub const ALL: [LimitKind; 7] = [
        LimitKind::Manifest,
        LimitKind::Checksum,
        LimitKind::Answer,
        LimitKind::Oci,
        LimitKind::Git,
        LimitKind::Layers,
        LimitKind::File,
    ];

    /// The kind's name in `--limit KIND=SIZE` and the `[limit]` table.
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Manifest => "manifest",
            LimitKind::Checksum => "checksum",
            LimitKind::Answer => "answer",
            LimitKind::Oci => "oci",
            LimitKind::Git => "git",
            LimitKind::Layers => "layers",
            LimitKind::File => "file",
        }
    }

    /// The default limit: bytes, or layers for [`LimitKind::Layers`].
    pub fn default_limit(self) -> u64 {
        match self {
            LimitKind::Manifest => 8 << 20,
            LimitKind::Checksum => 1 << 20,
            LimitKind::Answer => 1 << 20,
            LimitKind::Oci => 4 << 20,
            LimitKind::Git => 32 << 20,
            LimitKind::Layers => 1000,
            LimitKind::File => 512 << 20,
        }
    }

    /// The kind of a file of the plan (or a signature file) by its name: manifests and other
    /// text files by extension, checksum and signature files by their suffixes, anything else is
    /// a large file.
    pub fn of_file(name: &str) -> LimitKind {
        let base = name.rsplit('/').next().unwrap_or(name);
        let has = |suffixes: &[&str]| suffixes.iter().any(|s| base.ends_with(s));
        if has(&[".yaml", ".yml", ".service", ".conf", ".json"]) && !has(&[".sigstore.json"]) {
            LimitKind::Manifest
        } else if has(&[
            ".sha256",
            ".sha512",
            "SUMS",
            ".sig",
            ".pem",
            ".cert",
            ".crt",
            ".sigstore.json",
            ".bundle",
            ".asc",
        ]) {
            LimitKind::Checksum
        } else {
            LimitKind::File
        }
    }

    /// How the user raises this limit, for error messages.
    pub fn advice(self) -> String {
        format!(
            "raise it with --limit {0}=SIZE or `{0} = \"SIZE\"` in the [limit] table of the config",
            self.name()
        )
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for LimitKind {
    type Err = LimitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        LimitKind::ALL
            .into_iter()
            .find(|k| k.name() == text)
            .ok_or_else(|| LimitError::Kind(text.to_string()))
    }
}

/// A limit that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The kind is not one of [`LimitKind::ALL`].
    #[error(
        "unknown limit `{0}`: expected one of manifest, checksum, answer, oci, git, layers, file"
    )]
    Kind(String),
    /// The size is not a whole number with an optional unit.
    #[error(
        "bad size `{0}`: expected a whole number with an optional unit (B, KiB, MiB, GiB), e.g. 16MiB"
    )]
    Size(String),
    /// Not `KIND=SIZE`.
    #[error("bad limit `{0}`: expected KIND=SIZE, e.g. manifest=16MiB")]
    Form(String),
}

/// The limit of every kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    values: [u64; 7],
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            values: LimitKind::ALL.map(LimitKind::default_limit),
        }
    }
}

impl Limits {
    fn index(kind: LimitKind) -> usize {
        LimitKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or_default()
    }

    /// The limit of `kind`.
    pub fn get(&self, kind: LimitKind) -> u64 {
        self.values[Self::index(kind)]
    }

    /// Sets the limit of `kind`.
    pub fn set(&mut self, kind: LimitKind, value: u64) {
        self.values[Self::index(kind)] = value;
    }

    /// Sets one limit from `KIND=SIZE` (the `--limit` flag's form).
    pub fn set_text(&mut self, text: &str) -> Result<(), LimitError> {
        let (kind, size) = text
            .split_once('=')
            .ok_or_else(|| LimitError::Form(text.to_string()))?;
        let kind: LimitKind = kind.trim().parse()?;
        self.set(kind, parse_size(size)?);
        Ok(())
    }
}

/// A size: a whole number with an optional unit `B`, `K`/`KiB`, `M`/`MiB`, `G`/`GiB` (powers of
/// 1024; `KB`, `MB`, `GB` are taken as the same).
pub fn parse_size(text: &str) -> Result<u64, LimitError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let bad = || LimitError::Size(text.to_string());
    let number: u64 = number.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(bad()),
    };
    number.checked_mul(1 << shift).ok_or_else(bad)
}

/// `bytes` for a person: `8 MiB`, `1536 KiB`, `12 B`.
pub fn show_size(bytes: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sizes_with_and_without_units() {
        assert_eq!(parse_size("12"), Ok(12));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("2 G"), Ok(2 << 30));
        assert_eq!(parse_size("4kb"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    #[test]
    fn a_flag_sets_one_kind_and_refuses_an_unknown_one() {
        let mut limits = Limits::default();
        limits.set_text("layers=5000").expect("valid");
        assert_eq!(limits.get(LimitKind::Layers), 5000);
        assert_eq!(limits.get(LimitKind::Oci), 4 << 20);
        assert_eq!(
            limits.set_text("blobs=1"),
            Err(LimitError::Kind("blobs".into()))
        );
        assert!(limits.set_text("manifest").is_err());
    }

    #[test]
    fn files_are_classed_by_name() {
        for (name, kind) in [
            ("network.yaml", LimitKind::Manifest),
            ("kubelet.service", LimitKind::Manifest),
            ("10-kubeadm.conf", LimitKind::Manifest),
            ("kubeadm.sha256", LimitKind::Checksum),
            ("SHA256SUMS", LimitKind::Checksum),
            ("kubeadm.sigstore.json", LimitKind::Checksum),
            ("cni/cni-plugins-linux-amd64-v1.6.2.tgz", LimitKind::File),
            ("k8s/kubelet", LimitKind::File),
        ] {
            assert_eq!(LimitKind::of_file(name), kind, "{name}");
        }
    }

    #[test]
    fn sizes_read_back_in_whole_units() {
        assert_eq!(show_size(8 << 20), "8 MiB");
        assert_eq!(show_size(1536 << 10), "1536 KiB");
        assert_eq!(show_size(1000), "1000 B");
    }
}
