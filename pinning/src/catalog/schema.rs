//! `catalog.json`, schema version 1: what each published ISO is (Kubernetes version, arch,
//! file, size, sha256, URL, SBOM and signature files, build time, the builder that made it) and
//! the per-minor checksum files, in a stable order. Parsed once into these types and checked:
//! a catalog is read from a server and is untrusted until its signature and each ISO's sha256
//! are.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::digest::is_sha256_lower_hex;
use crate::version::KubeVersion;

/// The catalog's file name.
pub const FILE_NAME: &str = "catalog.json";
/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: u32 = 1;
/// The per-minor checksum files are `SHA256SUMS-<major>.<minor>`.
pub const CHECKSUMS_PREFIX: &str = "SHA256SUMS-";

/// `SHA256SUMS-<minor>` for a minor line such as `1.33`.
pub fn checksums_file_name(minor: &str) -> String {
    format!("{CHECKSUMS_PREFIX}{minor}")
}

/// The whole catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Catalog {
    /// [`SCHEMA_VERSION`]; a reader refuses a version it does not know.
    pub schema_version: u32,
    /// The `cks-iso` that wrote this file.
    pub generator: Generator,
    /// The ISOs, ordered by Kubernetes version (oldest first), then arch, then file name.
    pub isos: Vec<CatalogIso>,
    /// One checksum file per minor, ordered by minor.
    pub checksums: Vec<ChecksumFile>,
    /// A number each newer catalog of the same publisher makes larger (the writer's default:
    /// the Unix time it was written); a reader refuses one below the last it applied. Absent
    /// in catalogs of older writers, which `register --catalog` refuses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<u64>,
    /// When the catalog stops being valid, RFC 3339 UTC (`2026-06-27T20:26:40Z`); a reader
    /// refuses it after that. Absent in catalogs of older writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// A program and the commit it was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generator {
    /// `cks-iso`.
    pub name: String,
    /// Its version, e.g. `0.1.0`.
    pub version: String,
    /// The source commit (`git rev-parse --short=12 HEAD` when it was compiled), when known.
    pub commit: Option<String>,
}

/// One published ISO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogIso {
    /// `MAJOR.MINOR.PATCH`, from the ISO's `versions.txt`.
    pub kubernetes_version: String,
    /// `MAJOR.MINOR`.
    pub minor: String,
    /// The arch as CloudStack names it: `x86_64` or `aarch64`.
    pub arch: String,
    /// The ISO's file name, beside `catalog.json`.
    pub file: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its sha256, 64 lowercase hex digits.
    pub sha256: String,
    /// Where it is published (`--base-url` + file), when the catalog was written with one.
    pub url: Option<String>,
    /// The SPDX SBOM's file name beside it (`<file>.spdx.json`), when present.
    pub sbom: Option<String>,
    /// The signature's file name beside it (`<file>.sig`), when present.
    pub signature: Option<String>,
    /// When it was built (`versions.txt`'s `built`), RFC 3339 UTC.
    pub built: Option<String>,
    /// The `cks-iso` that built it (from its SBOM), when known.
    pub builder: Option<Generator>,
}

/// A per-minor checksum file, in `sha256sum -c` form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChecksumFile {
    /// `MAJOR.MINOR`.
    pub minor: String,
    /// Its file name, `SHA256SUMS-<minor>`.
    pub file: String,
}

/// Why a catalog was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    /// Not JSON of this schema.
    #[error("the catalog is not a catalog.json of schema version {SCHEMA_VERSION}: {detail}")]
    Malformed {
        /// What the parser said.
        detail: String,
    },
    /// A schema version this reader does not know.
    #[error(
        "the catalog has schema_version {found}, this cks-iso reads {SCHEMA_VERSION}; use the cks-iso that wrote it (or a newer one)"
    )]
    Version {
        /// The version found.
        found: u32,
    },
    /// The catalog lacks a serial or an expiry.
    #[error(
        "the catalog has no {field}: it was written by an older cks-iso catalog; write it again with this one (`cks-iso catalog DIR --sign-key KEY`)"
    )]
    Unfresh {
        /// `serial` or `expires`.
        field: &'static str,
    },
    /// The catalog's serial is below the last one applied.
    #[error(
        "the catalog has serial {serial}, below {least} (the last one applied, or --min-serial): an older catalog is served again; publish the newest catalog (or pass --min-serial with a lower value if this really is meant)"
    )]
    Replayed {
        /// Its serial.
        serial: u64,
        /// The least accepted.
        least: u64,
    },
    /// The catalog has expired.
    #[error(
        "the catalog expired at {expires}: an old catalog is served; write and publish a new one (`cks-iso catalog DIR --sign-key KEY`)"
    )]
    Expired {
        /// When it expired.
        expires: String,
    },
    /// The catalog lists no ISO.
    #[error(
        "the catalog lists no ISO: nothing to register, and --retire-eol would have nothing to keep; publish a catalog of the folder of ISOs"
    )]
    Empty,
    /// An ISO entry is invalid.
    #[error("the catalog's ISO `{file}`: {detail}; write the catalog again with `cks-iso catalog`")]
    Entry {
        /// The entry's file name.
        file: String,
        /// What is wrong.
        detail: String,
    },
}

/// Whether `name` is a plain file name (no folder, no `..`, no control characters).
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.contains('\\')
        && !name.chars().any(char::is_control)
}

impl Catalog {
    /// Parses and checks `text`.
    pub fn parse(text: &str) -> Result<Catalog, CatalogError> {
        #[derive(Deserialize)]
        struct Head {
            schema_version: u32,
        }
        let head: Head = serde_json::from_str(text).map_err(|e| CatalogError::Malformed {
            detail: e.to_string(),
        })?;
        if head.schema_version != SCHEMA_VERSION {
            return Err(CatalogError::Version {
                found: head.schema_version,
            });
        }
        let catalog: Catalog = serde_json::from_str(text).map_err(|e| CatalogError::Malformed {
            detail: e.to_string(),
        })?;
        for iso in &catalog.isos {
            iso.check()?;
        }
        if let Some(expires) = &catalog.expires {
            parse_time(expires).map_err(|detail| CatalogError::Malformed {
                detail: format!("expires: {detail}"),
            })?;
        }
        Ok(catalog)
    }

    /// Whether the catalog may be applied at `now` (Unix seconds) by a reader that has applied
    /// serial `least` (or was told to accept nothing older): it carries a serial and an expiry,
    /// the serial is at least `least`, it has not expired, and it lists an ISO.
    pub fn check_fresh(&self, now: i64, least: u64) -> Result<(), CatalogError> {
        let serial = self
            .serial
            .ok_or(CatalogError::Unfresh { field: "serial" })?;
        let expires = self
            .expires
            .as_deref()
            .ok_or(CatalogError::Unfresh { field: "expires" })?;
        if serial < least {
            return Err(CatalogError::Replayed { serial, least });
        }
        let until = parse_time(expires).map_err(|detail| CatalogError::Malformed {
            detail: format!("expires: {detail}"),
        })?;
        if until <= now {
            return Err(CatalogError::Expired {
                expires: expires.to_string(),
            });
        }
        if self.isos.is_empty() {
            return Err(CatalogError::Empty);
        }
        Ok(())
    }

    /// The catalog as pretty JSON with a final newline (what `catalog.json` holds).
    pub fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Sorts the ISOs and checksum files into the catalog's order.
    pub fn sort(&mut self) {
        self.isos
            .sort_by(|a, b| (a.version(), &a.arch, &a.file).cmp(&(b.version(), &b.arch, &b.file)));
        self.checksums.sort_by_key(|c| minor_key(&c.minor));
    }

    /// The minors the catalog has ISOs of.
    pub fn minors(&self) -> std::collections::BTreeSet<String> {
        self.isos.iter().map(|i| i.minor.clone()).collect()
    }
}

/// A time that is not RFC 3339.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{}` is not an RFC 3339 time: {detail}", text.escape_debug())]
pub struct TimeError {
    /// The text as given.
    pub text: String,
    /// What the parser said.
    pub detail: String,
}

/// Unix seconds of an RFC 3339 time such as `2026-06-27T20:26:40Z`.
pub fn parse_time(text: &str) -> Result<i64, TimeError> {
    text.parse::<jiff::Timestamp>()
        .map(|t| t.as_second())
        .map_err(|e| TimeError {
            text: text.to_string(),
            detail: e.to_string(),
        })
}

/// `1.9` before `1.33`.
pub(crate) fn minor_key(minor: &str) -> (u64, u64) {
    let mut parts = minor.split('.').map(|p| p.parse().unwrap_or(u64::MAX));
    (
        parts.next().unwrap_or(u64::MAX),
        parts.next().unwrap_or(u64::MAX),
    )
}

impl CatalogIso {
    /// The Kubernetes version; an entry that passed [`Catalog::parse`] always has one.
    pub fn version(&self) -> Option<KubeVersion> {
        KubeVersion::parse(&self.kubernetes_version).ok()
    }

    fn check(&self) -> Result<(), CatalogError> {
        let bad = |detail: String| CatalogError::Entry {
            file: self.file.escape_debug().to_string(),
            detail,
        };
        if !plain_name(&self.file) {
            return Err(bad(
                "the file name must be a plain name beside catalog.json".into(),
            ));
        }
        let version = KubeVersion::parse(&self.kubernetes_version)
            .map_err(|e| bad(format!("kubernetes_version: {e}")))?;
        if self.minor != version.minor_line() {
            return Err(bad(format!(
                "minor `{}` is not the minor of {version}",
                self.minor
            )));
        }
        if !matches!(self.arch.as_str(), "x86_64" | "aarch64") {
            return Err(bad(format!(
                "arch `{}`, expected x86_64 or aarch64",
                self.arch.escape_debug()
            )));
        }
        if !is_sha256_lower_hex(&self.sha256) {
            return Err(bad("sha256 is not 64 lowercase hex digits".into()));
        }
        if let Some(url) = &self.url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(bad("url must be http or https".into()));
        }
        for (field, name) in [("sbom", &self.sbom), ("signature", &self.signature)] {
            if let Some(name) = name
                && !plain_name(name)
            {
                return Err(bad(format!("{field} must be a plain file name")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(version: &str, arch: &str) -> CatalogIso {
        let v = KubeVersion::parse(version).expect("version");
        CatalogIso {
            kubernetes_version: version.into(),
            minor: v.minor_line(),
            arch: arch.into(),
            file: format!("cks-{version}-{arch}.iso"),
            size: 1,
            sha256: "a".repeat(64),
            url: None,
            sbom: None,
            signature: None,
            built: None,
            builder: None,
        }
    }

    fn catalog(isos: Vec<CatalogIso>) -> Catalog {
        Catalog {
            schema_version: SCHEMA_VERSION,
            generator: Generator {
                name: "cks-iso".into(),
                version: "0.1.0".into(),
                commit: None,
            },
            isos,
            checksums: vec![],
            serial: Some(7),
            expires: Some("2026-06-01T00:00:00Z".into()),
        }
    }

    #[test]
    fn the_order_is_by_version_then_arch_and_survives_a_round_trip() {
        let mut c = catalog(vec![
            iso("1.33.2", "x86_64"),
            iso("1.9.0", "x86_64"),
            iso("1.33.2", "aarch64"),
            iso("1.33.10", "x86_64"),
        ]);
        c.sort();
        let files: Vec<&str> = c.isos.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "cks-1.9.0-x86_64.iso",
                "cks-1.33.2-aarch64.iso",
                "cks-1.33.2-x86_64.iso",
                "cks-1.33.10-x86_64.iso"
            ]
        );
        assert_eq!(Catalog::parse(&c.render()), Ok(c));
    }

    #[test]
    fn a_replayed_expired_unversioned_or_empty_catalog_is_refused() {
        let c = catalog(vec![iso("1.33.2", "x86_64")]);
        let before = parse_time("2026-05-01T00:00:00Z").expect("time");
        assert_eq!(c.check_fresh(before, 7), Ok(()));
        assert_eq!(
            c.check_fresh(before, 8),
            Err(CatalogError::Replayed {
                serial: 7,
                least: 8
            })
        );
        let after = parse_time("2026-06-01T00:00:00Z").expect("time");
        assert!(matches!(
            c.check_fresh(after, 0),
            Err(CatalogError::Expired { .. })
        ));
        let mut old = c.clone();
        old.serial = None;
        assert_eq!(
            old.check_fresh(before, 0),
            Err(CatalogError::Unfresh { field: "serial" })
        );
        assert_eq!(
            catalog(vec![]).check_fresh(before, 0),
            Err(CatalogError::Empty)
        );
        let mut bad = c;
        bad.expires = Some("next month".into());
        assert!(Catalog::parse(&bad.render()).is_err());
    }

    #[test]
    fn unknown_versions_and_bad_entries_are_refused() {
        let mut c = catalog(vec![]);
        c.schema_version = 2;
        assert_eq!(
            Catalog::parse(&c.render()),
            Err(CatalogError::Version { found: 2 })
        );
        for (change, word) in [
            (
                Box::new(|i: &mut CatalogIso| i.file = "../etc/passwd".into())
                    as Box<dyn Fn(&mut CatalogIso)>,
                "plain name",
            ),
            (
                Box::new(|i: &mut CatalogIso| i.minor = "1.32".into()),
                "minor",
            ),
            (
                Box::new(|i: &mut CatalogIso| i.arch = "amd64".into()),
                "arch",
            ),
            (
                Box::new(|i: &mut CatalogIso| i.sha256 = "AB".into()),
                "sha256",
            ),
            (
                Box::new(|i: &mut CatalogIso| i.url = Some("file:///etc/passwd".into())),
                "url",
            ),
            (
                Box::new(|i: &mut CatalogIso| i.signature = Some("a/b.sig".into())),
                "signature",
            ),
        ] {
            let mut entry = iso("1.33.2", "x86_64");
            change(&mut entry);
            let err = Catalog::parse(&catalog(vec![entry]).render()).expect_err(word);
            assert!(err.to_string().contains(word), "{err}");
        }
    }
}
