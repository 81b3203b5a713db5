//! The catalog read (bounded), its signature checked with `--key`, its serial and expiry
//! checked, and each selected ISO fetched into a scratch file as it is hashed against the
//! catalog's sha256, its signature checked, and the ISO itself checked as the one-ISO
//! `register` checks one (`verify`, its `versions.txt` naming the catalog's version and arch),
//! before CloudStack is called at all.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use cks_pinning::catalog::{Catalog, CatalogIso, latest_per_minor};

use super::error::CatalogRegisterError;
use super::fetch;
use super::freshness;
use super::request::CatalogRequest;
use crate::register::{IsoFacts, RequiredKey};

/// A catalog whose selected ISOs were verified.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The whole catalog, each ISO with its URL (the catalog's, or the file beside the
    /// catalog's URL) where it has one.
    pub catalog: Catalog,
    /// The ISOs to register (all, or the newest patch of each minor), each with its URL.
    pub selected: Vec<CatalogIso>,
    /// What was read from each selected ISO, in the same order (for the CloudStack line check).
    pub facts: Vec<IsoFacts>,
}

/// Reads the catalog and verifies it and the selected ISOs (see the module doc); `say` gets a
/// line per check. Calls no CloudStack API.
pub async fn load(
    request: &CatalogRequest,
    say: &mut (dyn FnMut(&str) + Send),
) -> Result<Loaded, CatalogRegisterError> {
    let source = &request.catalog;
    let client = fetch::client()?;
    let bytes = fetch::read_bounded(&client, "--catalog", source, request.catalog_limit).await?;
    let mut least = request.min_serial.unwrap_or(0);
    if let Some(required) = &request.key {
        let sig_source = format!("{source}{}", crate::signing::SIG_SUFFIX);
        let sig = fetch::read_bounded(
            &client,
            "the catalog's signature",
            &sig_source,
            fetch::MAX_SIGNATURE,
        )
        .await?;
        required
            .key
            .verify_bytes(&bytes, &sig)
            .map_err(|e| CatalogRegisterError::Signature {
                what: format!("the catalog {source}"),
                key: required.path.clone(),
                source: e,
            })?;
        say(&format!(
            "{source}: signature verified with {}",
            required.path
        ));
        least = least.max(freshness::last_applied(Path::new(&required.path))?);
    }
    let text = String::from_utf8(bytes).map_err(|_| CatalogRegisterError::Read {
        what: "--catalog",
        source_name: source.clone(),
        detail: "not UTF-8 text".to_string(),
    })?;
    let invalid = |e| CatalogRegisterError::Invalid {
        source_name: source.clone(),
        source: e,
    };
    let mut catalog = Catalog::parse(&text).map_err(invalid)?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    catalog.check_fresh(now, least).map_err(invalid)?;
    say(&format!(
        "{source}: serial {}, valid until {}",
        catalog.serial.unwrap_or_default(),
        catalog.expires.as_deref().unwrap_or_default()
    ));
    for iso in &mut catalog.isos {
        if iso.url.is_none() && fetch::is_url(source) {
            iso.url = Some(fetch::beside(source, &iso.file));
        }
    }
    let chosen = if request.latest_per_minor {
        latest_per_minor(&catalog.isos)
    } else {
        catalog.isos.clone()
    };
    let mut selected = Vec::new();
    let mut facts = Vec::new();
    for iso in chosen {
        let Some(url) = iso.url.clone() else {
            return Err(CatalogRegisterError::Incomplete {
                source_name: source.clone(),
                detail: format!(
                    "{} has no url; write the catalog with `cks-iso catalog DIR --base-url URL`, or pass the catalog's URL",
                    iso.file
                ),
            });
        };
        facts.push(check_iso(&client, &iso, &url, request.key.as_ref(), source, say).await?);
        selected.push(iso);
    }
    Ok(Loaded {
        catalog,
        selected,
        facts,
    })
}

/// Fetches the ISO at `url` into a scratch file, hashed against the catalog's size and sha256,
/// checks its signature with `key`, and reads and checks it as the one-ISO `register` does.
async fn check_iso(
    client: &reqwest::Client,
    iso: &CatalogIso,
    url: &str,
    key: Option<&RequiredKey>,
    source: &str,
    say: &mut (dyn FnMut(&str) + Send),
) -> Result<IsoFacts, CatalogRegisterError> {
    let scratch_failed = |e: std::io::Error| CatalogRegisterError::Read {
        what: "the ISO",
        source_name: url.to_string(),
        detail: format!(
            "creating a scratch file in {}: {e}",
            std::env::temp_dir().display()
        ),
    };
    let scratch = tempfile::Builder::new()
        .prefix(".cks-register-")
        .suffix(".iso")
        .tempfile()
        .map_err(scratch_failed)?;
    let digest = {
        let mut out = std::io::BufWriter::new(scratch.as_file());
        fetch::fetch_iso(client, url, iso.size, &iso.sha256, &mut out).await?
    };
    if let Some(required) = key {
        let Some(sig_name) = &iso.signature else {
            return Err(CatalogRegisterError::Incomplete {
                source_name: source.to_string(),
                detail: format!(
                    "{} has no signature but --key was given; sign it with `cks-iso catalog DIR --sign-key KEY`",
                    iso.file
                ),
            });
        };
        let sig_url = fetch::beside(url, sig_name);
        let sig = fetch::read_bounded(
            client,
            "the ISO's signature",
            &sig_url,
            fetch::MAX_SIGNATURE,
        )
        .await?;
        required
            .key
            .verify_sha256(&digest, &sig)
            .map_err(|e| CatalogRegisterError::Signature {
                what: format!("the ISO {url}"),
                key: required.path.clone(),
                source: e,
            })?;
    }
    let path = scratch.path().to_path_buf();
    let read = tokio::task::spawn_blocking(move || crate::register::iso_facts::read(&path))
        .await
        .map_err(|e| CatalogRegisterError::Read {
            what: "the ISO",
            source_name: url.to_string(),
            detail: format!("the check stopped: {e}"),
        })?;
    let mut facts = read.map_err(|e| CatalogRegisterError::IsoRefused {
        url: url.to_string(),
        source: Box::new(e),
    })?;
    facts.iso = PathBuf::from(url);
    let found = format!("{} {}", facts.semantic_version, facts.arch);
    let listed = format!("{} {}", iso.kubernetes_version, iso.arch);
    if found != listed {
        return Err(CatalogRegisterError::Mislabelled {
            url: url.to_string(),
            found,
            listed,
        });
    }
    say(&format!(
        "{url}: sha256 {}{}, passes `cks-iso verify`",
        iso.sha256,
        if key.is_some() {
            " and signature verified"
        } else {
            " verified"
        }
    ));
    Ok(facts)
}
