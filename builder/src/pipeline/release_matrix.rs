//! The matrix of `cks-iso release --matrix FILE`: a TOML file naming the minors to build, for
//! which arches, and (per minor) the tool versions that would otherwise be chosen for it.
//!
//! ```toml
//! arch = ["x86_64", "aarch64"]   # every release's arches (default: --arch)
//!
//! [[release]]
//! minor = "1.33"
//! etcd-version = "kubeadm"       # optional: crictl-version, cni-version, etcd-version
//!
//! [[release]]
//! minor = "1.32"
//! arch = ["x86_64"]              # this minor only for x86_64
//! crictl-version = "1.32.0"
//! ```
//!
//! Unknown keys, a minor that is not `X.Y`, a minor named twice, an unknown arch or an empty
//! matrix are refused, naming the file and the entry.

use std::path::Path;

use anyhow::{Context, Result, bail};
use cks_pinning::arch::Arch;
use cks_pinning::kube_request::KubeRequest;
use serde::Deserialize;

use super::release::Minors;

/// The largest matrix file read (a matrix is a few lines).
const MATRIX_LIMIT: u64 = 64 * 1024;

/// A release matrix, as read from its file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Matrix {
    /// The arches of every release that names none (`--arch` when empty).
    #[serde(default)]
    pub arch: Vec<String>,
    /// The releases, one per minor, in the order built.
    #[serde(default, rename = "release")]
    pub releases: Vec<MatrixRelease>,
}

/// One minor of a [`Matrix`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MatrixRelease {
    /// The minor (`1.33`); its newest patch is built.
    pub minor: String,
    /// Its arches (the matrix's, then `--arch`, when empty).
    #[serde(default)]
    pub arch: Vec<String>,
    /// CRICTL_VERSION for this minor (default: the newest cri-tools release of the minor).
    pub crictl_version: Option<String>,
    /// CNI_VERSION for this minor (default: the newest CNI plugins release).
    pub cni_version: Option<String>,
    /// ETCD_VERSION for this minor (a release, or `kubeadm`; default: the build's).
    pub etcd_version: Option<String>,
}

impl Matrix {
    /// Reads and checks the matrix at `path`.
    pub fn read(path: &Path) -> Result<Matrix> {
        let shown = path.display();
        let size = std::fs::metadata(path)
            .with_context(|| format!("reading the release matrix {shown}"))?
            .len();
        if size > MATRIX_LIMIT {
            bail!(
                "the release matrix {shown} is {size} bytes; a matrix is at most {MATRIX_LIMIT} bytes"
            );
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the release matrix {shown} (is it UTF-8 text?)"))?;
        Matrix::parse(&text).with_context(|| format!("the release matrix {shown}"))
    }

    /// Parses and checks a matrix's text.
    pub fn parse(text: &str) -> Result<Matrix> {
        let matrix: Matrix = toml::from_str(text).context(
            "expected TOML with `arch = [...]` and `[[release]]` tables of `minor`, `arch`, \
             `crictl-version`, `cni-version` and `etcd-version`",
        )?;
        if matrix.releases.is_empty() {
            bail!("it names no release; add a `[[release]]` table with `minor = \"1.33\"`");
        }
        check_arches(&matrix.arch, "`arch`")?;
        let mut seen = Vec::new();
        for (index, release) in matrix.releases.iter().enumerate() {
            let entry = format!("release {} (minor {:?})", index + 1, release.minor);
            let minor = release.minor_request().with_context(|| entry.clone())?;
            if seen.contains(&minor) {
                bail!("{entry} names a minor already in the matrix; give each minor once");
            }
            seen.push(minor);
            check_arches(&release.arch, &format!("the `arch` of {entry}"))?;
        }
        Ok(matrix)
    }

    /// The minors, in the matrix's order.
    pub fn minors(&self) -> Result<Minors> {
        self.releases
            .iter()
            .map(MatrixRelease::minor_request)
            .collect::<Result<Vec<_>>>()
            .map(Minors::List)
    }

    /// The arches of `release`: its own, else the matrix's, else `fallback`.
    pub fn arches_of(&self, release: &MatrixRelease, fallback: &[String]) -> Vec<String> {
        [&release.arch, &self.arch]
            .into_iter()
            .find(|arches| !arches.is_empty())
            .cloned()
            .unwrap_or_else(|| fallback.to_vec())
    }
}

impl MatrixRelease {
    /// The minor as a request.
    fn minor_request(&self) -> Result<KubeRequest> {
        match KubeRequest::parse(&self.minor) {
            Ok(minor @ KubeRequest::Minor { .. }) => Ok(minor),
            _ => bail!(
                "`minor = {:?}` is not a minor; expected one such as \"1.33\"",
                self.minor
            ),
        }
    }
}

fn check_arches(arches: &[String], what: &str) -> Result<()> {
    for arch in arches {
        arch.parse::<Arch>().map_err(|_| {
            anyhow::anyhow!("{what} names {arch:?}; expected x86_64 (amd64) or aarch64 (arm64)")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATRIX: &str = r#"
arch = ["x86_64", "aarch64"]

[[release]]
minor = "1.33"
etcd-version = "kubeadm"

[[release]]
minor = "1.32"
arch = ["x86_64"]
crictl-version = "1.32.0"
"#;

    #[test]
    fn a_matrix_names_minors_arches_and_tool_versions() {
        let matrix = Matrix::parse(MATRIX).expect("a matrix");
        assert_eq!(
            matrix.minors().expect("minors"),
            Minors::List(vec![
                KubeRequest::Minor {
                    major: 1,
                    minor: 33
                },
                KubeRequest::Minor {
                    major: 1,
                    minor: 32
                },
            ])
        );
        let fallback = vec!["aarch64".to_string()];
        assert_eq!(
            matrix.arches_of(&matrix.releases[0], &fallback),
            ["x86_64", "aarch64"]
        );
        assert_eq!(matrix.arches_of(&matrix.releases[1], &fallback), ["x86_64"]);
        assert_eq!(matrix.releases[0].etcd_version.as_deref(), Some("kubeadm"));
        assert_eq!(matrix.releases[1].crictl_version.as_deref(), Some("1.32.0"));
        let bare = Matrix::parse("[[release]]\nminor = \"1.31\"\n").expect("a matrix");
        assert_eq!(bare.arches_of(&bare.releases[0], &fallback), ["aarch64"]);
    }

    #[test]
    fn a_bad_matrix_is_refused_naming_what_is_wrong() {
        let refused = |text: &str| {
            format!(
                "{:#}",
                Matrix::parse(text).expect_err(&format!("refused: {text}"))
            )
        };
        let unknown = refused("[[release]]\nminor = \"1.33\"\nkubernetes = \"1.33.1\"\n");
        assert!(unknown.contains("unknown field `kubernetes`"), "{unknown}");
        let top = refused("minors = 3\n[[release]]\nminor = \"1.33\"\n");
        assert!(top.contains("unknown field `minors`"), "{top}");
        let exact = refused("[[release]]\nminor = \"1.33.1\"\n");
        assert!(exact.contains("release 1 (minor \"1.33.1\")"), "{exact}");
        assert!(exact.contains("is not a minor"), "{exact}");
        let twice = refused("[[release]]\nminor = \"1.33\"\n[[release]]\nminor = \"1.33\"\n");
        assert!(twice.contains("release 2"), "{twice}");
        assert!(twice.contains("already in the matrix"), "{twice}");
        let arch = refused("[[release]]\nminor = \"1.33\"\narch = [\"riscv64\"]\n");
        assert!(arch.contains("\"riscv64\""), "{arch}");
        let empty = refused("arch = [\"x86_64\"]\n");
        assert!(empty.contains("names no release"), "{empty}");
    }

    #[test]
    fn a_large_or_missing_file_is_refused_naming_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("none.toml");
        let error = format!("{:#}", Matrix::read(&missing).expect_err("missing"));
        assert!(error.contains("none.toml"), "{error}");
        let large = dir.path().join("large.toml");
        std::fs::write(&large, vec![b'#'; MATRIX_LIMIT as usize + 1]).expect("write");
        let error = format!("{:#}", Matrix::read(&large).expect_err("large"));
        assert!(error.contains("at most"), "{error}");
    }
}
