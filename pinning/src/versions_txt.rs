//! `versions.txt`, the ISO's record of what it holds: rendered by a build, parsed back by the
//! verifier and by tools comparing two ISOs. (Not a `.yaml` file: the node scripts copy
//! `*.yaml`.)
//!
//! One `key: value` per line, in this order: `kubernetes`, `cni-plugins`, `crictl`, `ccm`,
//! `csi-driver`, `autoscaler`, `autoscaler-tag`, `etcd` (only when bundled), `headlamp` (only
//! when bundled), `arch`; then one
//! `url: <url>` line per file downloaded and per checksum file its digest was checked against;
//! one `file: <path in the ISO> sha256:<64 hex>` line per file in the ISO; one
//! `image: <normalised reference>@sha256:<64 hex>` line per bundled image; one
//! `skipped-image: <reference> <platform>` line per image left out for its platform; one
//! `signature: <path or image> <identity> <issuer> <log|no-log>` line per file or image whose
//! cosign signature was verified (see [`SignatureEntry`]); and `built: <unix seconds>`, the time
//! every timestamp of the ISO was set to.
//!
//! One rule for versions: every version key holds the release number without `v`
//! (`cni-plugins: 1.6.2`, `ccm: 1.2.0`, `autoscaler: 1.33.6`), whatever the publisher's tag
//! looks like; a tag that is not `v<release>` has its own key (`autoscaler-tag:
//! cluster-autoscaler-1.33.6`). URLs are the canonical upstream ones: which mirror served a file
//! is in the lock file and the build report, so the same inputs give the same ISO through any
//! mirror.
//!
//! The older form is still read: no `signature:` lines, `v`-prefixed versions, `autoscaler: cluster-autoscaler-<release>`
//! without `autoscaler-tag`, and `mirror: <upstream url> <url used>` lines (checked and dropped).
//!
//! ```
//! use cks_pinning::versions_txt::VersionsTxt;
//! let text = "kubernetes: 1.33.13\ncni-plugins: 1.7.1\ncrictl: 1.33.0\nccm: 1.2.0\n\
//!             csi-driver: 3.0.0\nautoscaler: 1.33.6\nautoscaler-tag: cluster-autoscaler-1.33.6\n\
//!             arch: amd64\n";
//! let parsed = VersionsTxt::parse(text).expect("valid");
//! assert_eq!(parsed.render().expect("renders"), text);
//! let older = "kubernetes: 1.33.13\ncni-plugins: v1.7.1\ncrictl: v1.33.0\nccm: v1.2.0\n\
//!              csi-driver: v3.0.0\nautoscaler: cluster-autoscaler-1.33.6\narch: amd64\n";
//! assert_eq!(VersionsTxt::parse(older).expect("the older form"), parsed);
//! ```

mod signature;

use thiserror::Error;

use crate::arch::Arch;
use crate::image::ImageRef;

pub use signature::SignatureEntry;

/// The file name in the ISO.
pub const FILE_NAME: &str = "versions.txt";

/// The version keys, in the order they are written.
pub const VERSION_KEYS: [&str; 10] = [
    "kubernetes",
    "cni-plugins",
    "crictl",
    "ccm",
    "csi-driver",
    "autoscaler",
    "autoscaler-tag",
    "etcd",
    "headlamp",
    "arch",
];

/// Where `etcd`, an optional version key, is in [`VERSION_KEYS`].
const ETCD: usize = 7;
/// Where `headlamp`, the other optional version key, is.
const HEADLAMP: usize = 8;
/// Where `autoscaler-tag` is: written always, derived from `autoscaler` in the older form.
const AUTOSCALER_TAG: usize = 6;
/// The prefix of the autoscaler's release tags.
const AUTOSCALER_TAG_PREFIX: &str = "cluster-autoscaler-";

/// What an ISO holds, as `versions.txt` records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VersionsTxt {
    /// The Kubernetes release, `1.33.13`.
    pub kubernetes: String,
    /// The CNI plugins release, `1.6.2`.
    pub cni_plugins: String,
    /// The crictl release, `1.33.0`.
    pub crictl: String,
    /// The CCM release, `1.2.0` (its tag is `v1.2.0`).
    pub ccm: String,
    /// The CSI driver release, `3.0.0`.
    pub csi_driver: String,
    /// The autoscaler release, `1.33.6`.
    pub autoscaler: String,
    /// The autoscaler's git tag, `cluster-autoscaler-1.33.6`.
    pub autoscaler_tag: String,
    /// The etcd release, when etcd is bundled.
    pub etcd: Option<String>,
    /// The Headlamp release, `0.40.1`, when `headlamp.yaml` is bundled.
    pub headlamp: Option<String>,
    /// The architecture, written `amd64` or `arm64`.
    pub arch: Arch,
    /// Every file downloaded and every checksum file checked, by canonical upstream URL.
    pub urls: Vec<String>,
    /// Every file in the ISO with its digest.
    pub files: Vec<FileEntry>,
    /// Every bundled image, pinned by digest.
    pub images: Vec<ImageRef>,
    /// Images left out because they have no build for the ISO's platform.
    pub skipped_images: Vec<SkippedImage>,
    /// Every file and image whose signature was verified.
    pub signatures: Vec<SignatureEntry>,
    /// The time of every timestamp in the ISO (`SOURCE_DATE_EPOCH`, else the build's start).
    pub built: Option<i64>,
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
        "versions.txt line {line_number}: `{key}` is out of order; expected the order kubernetes, cni-plugins, crictl, ccm, csi-driver, autoscaler, autoscaler-tag, [etcd], [headlamp], arch, then url, file, image, skipped-image, signature and built lines"
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

use crate::digest::is_sha256_lower_hex as is_sha256_hex;

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

/// The `arch:` value: the architecture's Kubernetes name, the only spelling the record writes.
fn record_arch(value: &str) -> Result<Arch, VersionsTxtError> {
    [Arch::Amd64, Arch::Arm64]
        .into_iter()
        .find(|arch| arch.go_name() == value)
        .ok_or_else(|| value_error("arch", value, "amd64 or arm64"))
}

/// An empty record (every version empty, no files or images) for an `amd64` ISO: the start of
/// a parse, and a base for records written field by field.
impl Default for VersionsTxt {
    fn default() -> Self {
        VersionsTxt {
            kubernetes: String::new(),
            cni_plugins: String::new(),
            crictl: String::new(),
            ccm: String::new(),
            csi_driver: String::new(),
            autoscaler: String::new(),
            autoscaler_tag: String::new(),
            etcd: None,
            headlamp: None,
            arch: Arch::Amd64,
            urls: Vec::new(),
            files: Vec::new(),
            images: Vec::new(),
            skipped_images: Vec::new(),
            signatures: Vec::new(),
            built: None,
        }
    }
}

impl VersionsTxt {
    /// Each version key with its value (`None` for etcd when it is not bundled), in order.
    pub fn versions(&self) -> [(&'static str, Option<&str>); 10] {
        let values = self.version_values();
        std::array::from_fn(|i| (VERSION_KEYS[i], values[i]))
    }

    fn version_values(&self) -> [Option<&str>; 10] {
        [
            Some(&self.kubernetes),
            Some(&self.cni_plugins),
            Some(&self.crictl),
            Some(&self.ccm),
            Some(&self.csi_driver),
            Some(&self.autoscaler),
            Some(&self.autoscaler_tag),
            self.etcd.as_deref(),
            self.headlamp.as_deref(),
            Some(self.arch.go_name()),
        ]
    }

    /// Renders the file. Every value is checked so that [`VersionsTxt::parse`] gives back
    /// exactly this value.
    pub fn render(&self) -> Result<String, VersionsTxtError> {
        let mut out = String::new();
        for (rank, (key, value)) in VERSION_KEYS.iter().zip(self.version_values()).enumerate() {
            if let Some(value) = value {
                if !is_word(value) {
                    return Err(value_error(key, value, WORD));
                }
                if is_release_key(rank) && has_v_prefix(value) {
                    return Err(value_error(key, value, RELEASE));
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
        for signature in &self.signatures {
            out.push_str(&format!("signature: {}\n", signature.render()?));
        }
        if let Some(built) = self.built {
            out.push_str(&format!("built: {built}\n"));
        }
        Ok(out)
    }

    /// Parses a file [`VersionsTxt::render`] wrote, refusing anything else.
    pub fn parse(text: &str) -> Result<VersionsTxt, VersionsTxtError> {
        let mut out = VersionsTxt::default();
        // Position in the key order: 0..10 the version keys, then url, file, image, skipped-image,
        // signature, mirror (older form) and built.
        let mut position = 0usize;
        let mut seen = [false; VERSION_KEYS.len()];
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
                "url" => URL,
                "file" => FILE,
                "image" => IMAGE,
                "skipped-image" => SKIPPED,
                "signature" => SIGNATURE,
                "mirror" => MIRROR,
                "built" => BUILT,
                _ => VERSION_KEYS.iter().position(|k| *k == key).ok_or_else(|| {
                    VersionsTxtError::Line {
                        line_number,
                        line: line.to_string(),
                    }
                })?,
            };
            let repeated = (rank < URL && seen[rank]) || (rank == BUILT && out.built.is_some());
            if rank < position || repeated {
                return Err(VersionsTxtError::Order {
                    line_number,
                    key: key.to_string(),
                });
            }
            position = rank;
            match rank {
                0..URL => {
                    seen[rank] = true;
                    if !is_word(value) {
                        return Err(value_error(key, value, WORD));
                    }
                    // The older form wrote `v1.6.2`: the release is what follows the `v`.
                    let value = if is_release_key(rank) && has_v_prefix(value) {
                        value[1..].to_string()
                    } else {
                        value.to_string()
                    };
                    match rank {
                        0 => out.kubernetes = value,
                        1 => out.cni_plugins = value,
                        2 => out.crictl = value,
                        3 => out.ccm = value,
                        4 => out.csi_driver = value,
                        5 => out.autoscaler = value,
                        AUTOSCALER_TAG => out.autoscaler_tag = value,
                        ETCD => out.etcd = Some(value),
                        HEADLAMP => out.headlamp = Some(value),
                        _ => out.arch = record_arch(&value)?,
                    }
                }
                URL => {
                    if !is_word(value) {
                        return Err(value_error(key, value, "a URL without spaces"));
                    }
                    out.urls.push(value.to_string());
                }
                FILE => {
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
                IMAGE => out.images.push(check_image(value)?),
                SIGNATURE => out.signatures.push(SignatureEntry::parse(value)?),
                MIRROR => {
                    // The older form's record of the mirror used: checked, not kept.
                    value
                        .split_once(' ')
                        .filter(|(a, b)| is_word(a) && is_word(b))
                        .ok_or_else(|| value_error(key, value, "`<upstream url> <url used>`"))?;
                }
                SKIPPED => {
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
        if !seen[AUTOSCALER_TAG] && seen[5] {
            // The older form: `autoscaler:` held the tag.
            match out.autoscaler.strip_prefix(AUTOSCALER_TAG_PREFIX) {
                Some(release) => {
                    out.autoscaler_tag = out.autoscaler.clone();
                    out.autoscaler = release.to_string();
                }
                None => {
                    out.autoscaler_tag = format!("{AUTOSCALER_TAG_PREFIX}{}", out.autoscaler);
                }
            }
            seen[AUTOSCALER_TAG] = true;
        }
        for (rank, key) in VERSION_KEYS.iter().enumerate() {
            if rank != ETCD && rank != HEADLAMP && !seen[rank] {
                return Err(VersionsTxtError::Missing { key });
            }
        }
        Ok(out)
    }
}

const URL: usize = VERSION_KEYS.len();
const FILE: usize = URL + 1;
const IMAGE: usize = URL + 2;
const SKIPPED: usize = URL + 3;
const SIGNATURE: usize = URL + 4;
const MIRROR: usize = URL + 5;
const BUILT: usize = URL + 6;

/// Whether the version key at `rank` holds a release number (not a tag, not the arch).
fn is_release_key(rank: usize) -> bool {
    rank < VERSION_KEYS.len() && rank != AUTOSCALER_TAG && VERSION_KEYS[rank] != "arch"
}

/// `v1.6.2`: a `v` before a digit, the tag spelling the older form wrote.
fn has_v_prefix(value: &str) -> bool {
    value
        .strip_prefix('v')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

const RELEASE: &str = "a release number without `v`, such as 1.6.2";
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
