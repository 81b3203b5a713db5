//! Reading published checksum files: a bare digest (dl.k8s.io `<url>.sha256`), `<hex>  <name>`
//! (CNI plugins and crictl `<asset>.sha256`) and lists of such lines (etcd `SHA256SUMS`).

pub use crate::digest::is_sha256_hex;

/// What is wrong with a published checksum file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChecksumFileError {
    /// No line at all.
    #[error("it is empty")]
    Empty,
    /// One bare word that is not a sha256.
    #[error("`{digest}` is not a sha256 (64 hex digits)")]
    BareNotSha256 {
        /// The word.
        digest: String,
    },
    /// A line that is not `<sha256>  <name>`.
    #[error("line `{line}` is not `<sha256>  <name>`")]
    NotALine {
        /// The line.
        line: String,
    },
    /// The file's digest is not a sha256.
    #[error("`{digest}` for {file} is not a sha256")]
    NotSha256 {
        /// The digest given.
        digest: String,
        /// The file.
        file: String,
    },
    /// The file listed twice with different digests.
    #[error(
        "it lists {file} twice with different digests ({earlier} and {digest}); the checksum file is not trustworthy"
    )]
    Twice {
        /// The file.
        file: String,
        /// The first digest.
        earlier: String,
        /// The other digest.
        digest: String,
    },
    /// No line for the file.
    #[error("it has no line for {file} (it lists {})", names.join(", "))]
    NoLine {
        /// The file.
        file: String,
        /// The names it lists.
        names: Vec<String>,
    },
}

/// The sha256 that `text` publishes for `file_name`, in lower-case hex.
///
/// A file holding one bare digest applies to any name; otherwise the line whose name (after an
/// optional `*` binary marker and leading directories) equals `file_name` is used; the same
/// line twice is accepted, two lines with different digests are refused. The error says what
/// was expected.
pub fn published_digest(text: &str, file_name: &str) -> Result<String, ChecksumFileError> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().ok_or(ChecksumFileError::Empty)?;
    let mut fields = first.split_whitespace();
    if let (Some(digest), None) = (fields.next(), fields.next())
        && lines.clone().next().is_none()
    {
        return if is_sha256_hex(digest) {
            Ok(digest.to_ascii_lowercase())
        } else {
            Err(ChecksumFileError::BareNotSha256 {
                digest: digest.to_string(),
            })
        };
    }
    let mut names = Vec::new();
    let mut found: Option<String> = None;
    for line in std::iter::once(first).chain(lines) {
        let mut fields = line.split_whitespace();
        let (Some(digest), Some(name)) = (fields.next(), fields.next()) else {
            return Err(ChecksumFileError::NotALine {
                line: line.to_string(),
            });
        };
        let name = name.trim_start_matches('*');
        let base = name.rsplit('/').next().unwrap_or(name);
        if base != file_name {
            names.push(base.to_string());
            continue;
        }
        if !is_sha256_hex(digest) {
            return Err(ChecksumFileError::NotSha256 {
                digest: digest.to_string(),
                file: file_name.to_string(),
            });
        }
        let digest = digest.to_ascii_lowercase();
        match &found {
            Some(earlier) if *earlier != digest => {
                return Err(ChecksumFileError::Twice {
                    file: file_name.to_string(),
                    earlier: earlier.clone(),
                    digest,
                });
            }
            _ => found = Some(digest),
        }
    }
    found.ok_or_else(|| ChecksumFileError::NoLine {
        file: file_name.to_string(),
        names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "6d0e4a5ba3c5ca1b8f1d8da8e3c0e2c6a2b77bb40c1ba6f2b7f0a1cb0d3e2f10";
    const B: &str = "1111111111111111111111111111111111111111111111111111111111111111";

    #[test]
    fn reads_a_bare_digest_for_any_name() {
        assert_eq!(published_digest(A, "kubeadm"), Ok(A.to_string()));
        assert_eq!(
            published_digest(&format!("{}\n", A.to_uppercase()), "x"),
            Ok(A.to_string())
        );
    }

    #[test]
    fn reads_the_line_for_the_file() {
        let text = format!("{A}  cni-plugins-linux-amd64-v1.4.0.tgz\n");
        assert_eq!(
            published_digest(&text, "cni-plugins-linux-amd64-v1.4.0.tgz"),
            Ok(A.to_string())
        );
        let sums =
            format!("{B}  etcd-v3.5.12-darwin-amd64.zip\n{A} *etcd-v3.5.12-linux-amd64.tar.gz\n");
        assert_eq!(
            published_digest(&sums, "etcd-v3.5.12-linux-amd64.tar.gz"),
            Ok(A.to_string())
        );
    }

    #[test]
    fn refuses_a_list_without_the_file_and_a_malformed_digest() {
        let sums = format!("{B}  other.tgz\n");
        let err = published_digest(&sums, "mine.tgz")
            .expect_err("no line for mine.tgz")
            .to_string();
        assert!(
            err.contains("mine.tgz") && err.contains("other.tgz"),
            "{err}"
        );
        assert!(published_digest("<html>", "x").is_err());
        assert!(published_digest("", "x").is_err());
    }

    #[test]
    fn refuses_one_file_listed_twice_with_different_digests() {
        let sums = format!("{A}  etcd.tar.gz\n{B}  other.tgz\n{B} *dir/etcd.tar.gz\n");
        let err = published_digest(&sums, "etcd.tar.gz")
            .expect_err("two digests for one file")
            .to_string();
        assert!(
            err.contains("twice") && err.contains(A) && err.contains(B),
            "{err}"
        );
        let repeated = format!("{A}  etcd.tar.gz\n{A}  etcd.tar.gz\n");
        assert_eq!(
            published_digest(&repeated, "etcd.tar.gz"),
            Ok(A.to_string())
        );
    }
}
