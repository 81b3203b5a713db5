//! One ISO's catalog entry, once the ISO passed `verify` (every finding refuses it): `versions.txt`
//! read from the image, the sha256 hashed again as the file streams (a `.sha256` beside it that
//! names another digest refuses it), the SBOM and signature beside it, and the builder named in
//! the SBOM's creators.

use std::io::Read;
use std::path::{Path, PathBuf};

use cks_pinning::catalog::{CatalogIso, Generator};
use cks_pinning::version::KubeVersion;

use super::error::CatalogWriteError;
use crate::registry::Arch;
use crate::signing::{SigningKey, sig_path};

/// The most of an SBOM read for its creators (the demo's is a few hundred KiB).
const MAX_SBOM: u64 = 64 << 20;

/// `--base-url` with exactly one `/` at its end.
pub fn check_base_url(url: &str) -> Result<String, CatalogWriteError> {
    if !(url.starts_with("http://") || url.starts_with("https://"))
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(CatalogWriteError::BaseUrl {
            url: url.to_string(),
        });
    }
    Ok(format!("{}/", url.trim_end_matches('/')))
}

/// The `*.iso` files directly in `dir`, by name.
pub fn isos_in(dir: &Path) -> Result<Vec<PathBuf>, CatalogWriteError> {
    let io = |source| CatalogWriteError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut isos = Vec::new();
    for item in std::fs::read_dir(dir).map_err(io)? {
        let item = item.map_err(io)?;
        let path = item.path();
        if path.extension().is_some_and(|e| e == "iso") && item.file_type().map_err(io)?.is_file() {
            isos.push(path);
        }
    }
    isos.sort();
    Ok(isos)
}

/// The entry of `iso`, once it passed `verify` and its sidecar agrees; signs it first when
/// `key` is given. `checked` is the sha256 (hex) a caller that has just checked the ISO as
/// thoroughly found: then `verify` is not run again (the file is still hashed, and must hash
/// to it). `verify`'s scratch files go to `scratch` (default: `TMPDIR`).
pub fn read(
    iso: &Path,
    base_url: Option<&str>,
    key: Option<&SigningKey>,
    checked: Option<&str>,
    scratch: Option<&Path>,
) -> Result<CatalogIso, CatalogWriteError> {
    let bad = |detail: String| CatalogWriteError::Iso {
        iso: iso.to_path_buf(),
        detail,
    };
    if checked.is_none() {
        let report = match scratch {
            Some(dir) => crate::inspect::verify_in(iso, dir),
            None => crate::inspect::verify(iso),
        }
        .map_err(|e| bad(e.to_string()))?;
        if let Some(first) = report.findings.first() {
            return Err(bad(format!(
                "`cks-iso verify` finds {} problem{} (first: {first}); nothing is signed",
                report.findings.len(),
                if report.findings.len() == 1 { "" } else { "s" }
            )));
        }
    }
    let file = iso
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| bad("the file name is not UTF-8".to_string()))?
        .to_string();
    let versions = crate::register::iso_facts::versions_txt(iso).map_err(|e| bad(e.to_string()))?;
    let version =
        KubeVersion::parse(&versions.kubernetes).map_err(|e| bad(format!("versions.txt: {e}")))?;
    let arch = match versions.arch {
        Arch::Amd64 => "x86_64",
        Arch::Arm64 => "aarch64",
    };
    let digest = crate::digest::sha256_file(iso).map_err(|source| CatalogWriteError::Io {
        path: iso.to_path_buf(),
        source,
    })?;
    if let Some(sha256) = checked
        && sha256 != digest.hex()
    {
        return Err(bad(format!(
            "it hashes to {}, not to the {sha256} it was checked as: it changed since",
            digest.hex()
        )));
    }
    check_sidecar(iso, digest.hex())?;
    let signature = match key {
        Some(key) => Some(key.sign_hex_digest(iso, digest.hex())?),
        None => Some(sig_path(iso)).filter(|p| p.is_file()),
    };
    let sbom_path = crate::pipeline::sbom_beside(iso);
    let (sbom, builder) = if sbom_path.is_file() {
        (Some(name_of(&sbom_path)), sbom_builder(&sbom_path)?)
    } else {
        (None, None)
    };
    Ok(CatalogIso {
        kubernetes_version: version.to_string(),
        minor: version.minor_line(),
        arch: arch.to_string(),
        url: base_url.map(|base| format!("{base}{file}")),
        file,
        size: digest.bytes,
        sha256: digest.into_hex(),
        sbom,
        signature: signature.as_deref().map(name_of),
        built: versions.built.map(cks_pinning::sbom::rfc3339),
        builder,
    })
}

/// The most read of a `.sha256` sidecar (one line).
const MAX_SIDECAR: u64 = 64 * 1024;

/// Refuses `iso` when a `.sha256` sidecar beside it names another digest than `sha256`, or
/// another file.
fn check_sidecar(iso: &Path, sha256: &str) -> Result<(), CatalogWriteError> {
    let sidecar = crate::iso::sidecar_path(iso);
    let io = |source| CatalogWriteError::Io {
        path: sidecar.clone(),
        source,
    };
    let file = match std::fs::File::open(&sidecar) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    let mut text = String::new();
    file.take(MAX_SIDECAR)
        .read_to_string(&mut text)
        .map_err(io)?;
    let listed = text.split_whitespace().next().unwrap_or_default();
    if listed.eq_ignore_ascii_case(sha256) {
        return Ok(());
    }
    Err(CatalogWriteError::Sidecar {
        sidecar,
        listed: listed.chars().take(64).collect(),
        actual: sha256.to_string(),
    })
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The builder the SBOM names among its creators (`Tool: cks-iso-0.1.0 (commit abc)`).
fn sbom_builder(path: &Path) -> Result<Option<Generator>, CatalogWriteError> {
    let io = |source| CatalogWriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(MAX_SBOM)
        .read_to_string(&mut text)
        .map_err(io)?;
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(rename = "creationInfo")]
        creation_info: Info,
    }
    #[derive(serde::Deserialize)]
    struct Info {
        #[serde(default)]
        creators: Vec<String>,
    }
    let Ok(doc) = serde_json::from_str::<Doc>(&text) else {
        return Ok(None);
    };
    Ok(doc
        .creation_info
        .creators
        .iter()
        .find_map(|c| c.strip_prefix("Tool: "))
        .and_then(parse_tool))
}

/// `cks-iso-0.1.0 (commit abc)` or `cks-iso-0.1.0`.
fn parse_tool(text: &str) -> Option<Generator> {
    let (tool, commit) = match text.split_once(" (commit ") {
        Some((tool, rest)) => (tool, rest.strip_suffix(')').map(str::to_string)),
        None => (text, None),
    };
    let (name, version) = tool.rsplit_once('-')?;
    Some(Generator {
        name: name.to_string(),
        version: version.to_string(),
        commit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sbom_creator_names_the_builder_and_its_commit() {
        assert_eq!(
            parse_tool("cks-iso-0.1.0 (commit 0123456789ab)"),
            Some(Generator {
                name: "cks-iso".into(),
                version: "0.1.0".into(),
                commit: Some("0123456789ab".into())
            })
        );
        assert_eq!(parse_tool("cks-iso-0.1.0").and_then(|g| g.commit), None);
        assert_eq!(
            check_base_url("https://h/x//").ok().as_deref(),
            Some("https://h/x/")
        );
        assert!(check_base_url("file:///srv").is_err());
    }
}
