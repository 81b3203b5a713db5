//! `versions.txt`, the ISO's record of what it holds: rendered by a build, parsed back by the
//! verifier and by tools comparing two ISOs. (Not a `.yaml` file: the node scripts copy
//! `*.yaml`.)
//!
//! One `key: value` per line, in this order: `kubernetes`, `cni-plugins`, `crictl`, `ccm`,
//! `csi-driver`, `autoscaler`, `etcd` (only when bundled), `arch`; then one `url: <url>` line per
//! file downloaded; one `file: <path in the ISO> sha256:<64 hex>` line per file in the ISO; one
//! `image: <normalised reference>@sha256:<64 hex>` line per bundled image; and one
//! `skipped-image: <reference> <platform>` line per image left out for its platform. Two
//! records follow when they apply: one `mirror: <upstream url> <url used>` line per file fetched
//! through a mirror, and `built: <unix seconds>`, the time every timestamp of the ISO was set to.
//!
//! ```
//! use cks_pinning::versions_txt::VersionsTxt;
//! let text = "kubernetes: 1.33.13\ncni-plugins: v1.7.1\ncrictl: v1.33.0\nccm: v1.2.0\n\
//!             csi-driver: v3.0.0\nautoscaler: cluster-autoscaler-1.33.6\narch: amd64\n";
//! let parsed = VersionsTxt::parse(text).expect("valid");
//! assert_eq!(parsed.render().expect("renders"), text);
//! ```

use thiserror::Error;

use crate::image::ImageRef;

/// The file name in the ISO.
pub const FILE_NAME: &str = "versions.txt";

/// The version keys, in the order they are written.
pub const VERSION_KEYS: [&str; 8] = [
    "kubernetes",
    "cni-plugins",
    "crictl",
    "ccm",
    "csi-driver",
    "autoscaler",
    "etcd",
    "arch",
];

/// What an ISO holds, as `versions.txt` records it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct VersionsTxt {
    /// The Kubernetes version.
    pub kubernetes: String,
    /// The CNI plugins version.
    pub cni_plugins: String,
    /// The crictl version.
    pub crictl: String,
    /// The CCM tag.
    pub ccm: String,
    /// The CSI driver version.
    pub csi_driver: String,
    /// The autoscaler tag.
    pub autoscaler: String,
    /// The etcd version, when etcd is bundled.
    pub etcd: Option<String>,
    /// The architecture (`amd64`, `arm64`).
    pub arch: String,
    /// Every file downloaded, by URL.
    pub urls: Vec<String>,
    /// Every file in the ISO with its digest.
    pub files: Vec<FileEntry>,
    /// Every bundled image, pinned by digest.
    pub images: Vec<ImageRef>,
    /// Images left out because they have no build for the ISO's platform.
    pub skipped_images: Vec<SkippedImage>,
    /// Files fetched through a mirror: the upstream URL and the URL actually used.
    pub mirrored: Vec<Mirrored>,
    /// The time of every timestamp in the ISO (`SOURCE_DATE_EPOCH`, else the build's start).
    pub built: Option<i64>,
}

/// A file fetched through a mirror.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mirrored {
    /// The upstream URL, as in the `url:` lines.
    pub upstream: String,
    /// The URL the bytes came from.
    pub used: String,
}

/// A file in the ISO and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileEntry {
    /// The path in the ISO, e.g. `binaries/v1.33.13/kubeadm`.
    pub path: String,
    /// The SHA-256 as 64 lowercase hex digits.
    pub sha256: String,
}

/// An image left out for its platform.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedImage {
    /// The image.
    pub reference: ImageRef,
    /// The platform it has no build for, e.g. `linux/arm64`.
    pub platform: String,
}

/// Why a `versions.txt` cannot be rendered or parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VersionsTxtError {
    /// A line is not `key: value` with a known key.
    #[error("versions.txt line {line_number}: expected `key: value`, found {line:?}")]
    Line {
        /// The 1-based line number.
        line_number: usize,
        /// The line.
        line: String,
    },
    /// A key comes out of order or twice.
    #[error(
        "versions.txt line {line_number}: `{key}` is out of order; expected the order kubernetes, cni-plugins, crictl, ccm, csi-driver, autoscaler, [etcd], arch, then url, file, image and skipped-image lines"
    )]
    Order {
        /// The 1-based line number.
        line_number: usize,
        /// The key.
        key: String,
    },
    /// A required version key is missing.
    #[error("versions.txt has no `{key}` line")]
    Missing {
        /// The key.
        key: &'static str,
    },
    /// A value is malformed.
    #[error("versions.txt `{key}` value {value:?} is malformed: {expected}")]
    Value {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
}

fn is_sha256_hex(hex: &str) -> bool {
    hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A plain value: non-empty, no whitespace or control characters.
fn is_word(value: &str) -> bool {
    !value.is_empty() && !value.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A path in the ISO: non-empty, no control characters, no leading or trailing space.
fn is_path(value: &str) -> bool {
    !value.is_empty() && !value.chars().any(char::is_control) && value.trim() == value
}

fn value_error(key: &str, value: &str, expected: &'static str) -> VersionsTxtError {
    VersionsTxtError::Value {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    }
}

const WORD: &str = "a value without spaces";

impl VersionsTxt {
    /// Each version key with its value (`None` for etcd when it is not bundled), in order.
    pub fn versions(&self) -> [(&'static str, Option<&str>); 8] {
        let values = self.version_values();
        std::array::from_fn(|i| (VERSION_KEYS[i], values[i]))
    }

    fn version_values(&self) -> [Option<&str>; 8] {
        [
            Some(&self.kubernetes),
            Some(&self.cni_plugins),
            Some(&self.crictl),
            Some(&self.ccm),
            Some(&self.csi_driver),
            Some(&self.autoscaler),
            self.etcd.as_deref(),
            Some(&self.arch),
        ]
    }

    /// Renders the file. Every value is checked so that [`VersionsTxt::parse`] gives back
    /// exactly this value.
    pub fn render(&self) -> Result<String, VersionsTxtError> {
        let mut out = String::new();
        for (key, value) in VERSION_KEYS.iter().zip(self.version_values()) {
            if let Some(value) = value {
                if !is_word(value) {
                    return Err(value_error(key, value, WORD));
                }
                out.push_str(&format!("{key}: {value}\n"));
            }
        }
        for url in &self.urls {
            if !is_word(url) {
                return Err(value_error("url", url, "a URL without spaces"));
            }
            out.push_str(&format!("url: {url}\n"));
        }
        for file in &self.files {
            if !is_path(&file.path) {
                return Err(value_error("file", &file.path, PATH));
            }
            if !is_sha256_hex(&file.sha256) {
                return Err(value_error("file", &file.sha256, HEX));
            }
            out.push_str(&format!("file: {} sha256:{}\n", file.path, file.sha256));
        }
        for image in &self.images {
            check_image(&image.to_string())?;
            out.push_str(&format!("image: {image}\n"));
        }
        for skipped in &self.skipped_images {
            if !is_word(&skipped.platform) {
                return Err(value_error("skipped-image", &skipped.platform, PLATFORM));
            }
            out.push_str(&format!(
                "skipped-image: {} {}\n",
                skipped.reference, skipped.platform
            ));
        }
        for mirrored in &self.mirrored {
            for url in [&mirrored.upstream, &mirrored.used] {
                if !is_word(url) {
                    return Err(value_error("mirror", url, "a URL without spaces"));
                }
            }
            out.push_str(&format!(
                "mirror: {} {}\n",
                mirrored.upstream, mirrored.used
            ));
        }
        if let Some(built) = self.built {
            out.push_str(&format!("built: {built}\n"));
        }
        Ok(out)
    }

    /// Parses a file [`VersionsTxt::render`] wrote, refusing anything else.
    pub fn parse(text: &str) -> Result<VersionsTxt, VersionsTxtError> {
        let mut out = VersionsTxt::default();
        // Position in the key order: 0..8 the version keys, then url, file, image, skipped-image.
        let mut position = 0usize;
        let mut seen = [false; 8];
        for (index, line) in text.lines().enumerate() {
            let line_number = index + 1;
            let (key, value) = line
                .split_once(": ")
                .filter(|(key, _)| !key.is_empty())
                .ok_or_else(|| VersionsTxtError::Line {
                    line_number,
                    line: line.to_string(),
                })?;
            let rank = match key {
                "url" => 8,
                "file" => 9,
                "image" => 10,
                "skipped-image" => 11,
                "mirror" => 12,
                "built" => 13,
                _ => VERSION_KEYS.iter().position(|k| *k == key).ok_or_else(|| {
                    VersionsTxtError::Line {
                        line_number,
                        line: line.to_string(),
                    }
                })?,
            };
            let repeated = (rank < 8 && seen[rank]) || (rank == 13 && out.built.is_some());
            if rank < position || repeated {
                return Err(VersionsTxtError::Order {
                    line_number,
                    key: key.to_string(),
                });
            }
            position = rank;
            match rank {
                0..8 => {
                    seen[rank] = true;
                    if !is_word(value) {
                        return Err(value_error(key, value, WORD));
                    }
                    let value = value.to_string();
                    match rank {
                        0 => out.kubernetes = value,
                        1 => out.cni_plugins = value,
                        2 => out.crictl = value,
                        3 => out.ccm = value,
                        4 => out.csi_driver = value,
                        5 => out.autoscaler = value,
                        6 => out.etcd = Some(value),
                        _ => out.arch = value,
                    }
                }
                8 => {
                    if !is_word(value) {
                        return Err(value_error(key, value, "a URL without spaces"));
                    }
                    out.urls.push(value.to_string());
                }
                9 => {
                    let (path, digest) = value
                        .rsplit_once(' ')
                        .ok_or_else(|| value_error(key, value, PATH))?;
                    let sha256 = digest
                        .strip_prefix("sha256:")
                        .filter(|hex| is_sha256_hex(hex))
                        .ok_or_else(|| value_error(key, value, HEX))?;
                    if !is_path(path) {
                        return Err(value_error(key, value, PATH));
                    }
                    out.files.push(FileEntry {
                        path: path.to_string(),
                        sha256: sha256.to_string(),
                    });
                }
                10 => out.images.push(check_image(value)?),
                12 => {
                    let (upstream, used) = value
                        .split_once(' ')
                        .filter(|(a, b)| is_word(a) && is_word(b))
                        .ok_or_else(|| value_error(key, value, "`<upstream url> <url used>`"))?;
                    out.mirrored.push(Mirrored {
                        upstream: upstream.to_string(),
                        used: used.to_string(),
                    });
                }
                11 => {
                    let (reference, platform) = value
                        .split_once(' ')
                        .filter(|(_, platform)| is_word(platform))
                        .ok_or_else(|| value_error(key, value, PLATFORM))?;
                    let parsed = ImageRef::parse(reference)
                        .map_err(|_| value_error(key, value, PLATFORM))?;
                    if parsed.to_string() != reference {
                        return Err(value_error(key, value, NORMALISED));
                    }
                    out.skipped_images.push(SkippedImage {
                        reference: parsed,
                        platform: platform.to_string(),
                    });
                }
                _ => {
                    let seconds = value
                        .parse::<i64>()
                        .map_err(|_| value_error(key, value, "whole seconds since 1970"))?;
                    out.built = Some(seconds);
                }
            }
        }
        for (rank, key) in VERSION_KEYS.iter().enumerate() {
            if rank != 6 && !seen[rank] {
                return Err(VersionsTxtError::Missing { key });
            }
        }
        Ok(out)
    }
}

const PATH: &str = "expected `<path in the ISO> sha256:<64 hex>`";
const HEX: &str = "expected `sha256:` and 64 lowercase hex digits";
const PLATFORM: &str =
    "expected `<image reference> <platform>` such as `docker.io/library/busybox:1.36 linux/arm64`";
const NORMALISED: &str = "expected a normalised reference such as `docker.io/library/busybox:1.36`";

/// An `image:` value: a normalised reference pinned by a SHA-256 digest.
fn check_image(value: &str) -> Result<ImageRef, VersionsTxtError> {
    const EXPECTED: &str = "expected `<normalised reference>@sha256:<64 hex>` such as `docker.io/library/busybox:1.36@sha256:...`";
    let image = ImageRef::parse(value).map_err(|_| value_error("image", value, EXPECTED))?;
    let pinned = image
        .digest()
        .and_then(|d| d.strip_prefix("sha256:"))
        .is_some();
    if !pinned || image.to_string() != value {
        return Err(value_error("image", value, EXPECTED));
    }
    Ok(image)
}
