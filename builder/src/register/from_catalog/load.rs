//! The catalog read (bounded), its signature and each selected ISO's sha256 and signature
//! checked, before CloudStack is called at all.

use cks_pinning::catalog::{Catalog, CatalogIso, latest_per_minor};

use super::error::CatalogRegisterError;
use super::fetch;
use super::request::CatalogRequest;

/// A catalog whose selected ISOs were verified.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The whole catalog.
    pub catalog: Catalog,
    /// The ISOs to register (all, or the newest patch of each minor), each with its URL.
    pub selected: Vec<CatalogIso>,
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
    if let Some((key, key_name)) = &request.key {
        let sig_source = format!("{source}{}", crate::signing::SIG_SUFFIX);
        let sig = fetch::read_bounded(
            &client,
            "the catalog's signature",
            &sig_source,
            fetch::MAX_SIGNATURE,
        )
        .await?;
        key.verify_bytes(&bytes, &sig)
            .map_err(|e| CatalogRegisterError::Signature {
                what: format!("the catalog {source}"),
                key: key_name.clone(),
                source: e,
            })?;
        say(&format!("{source}: signature verified with {key_name}"));
    }
    let text = String::from_utf8(bytes).map_err(|_| CatalogRegisterError::Read {
        what: "--catalog",
        source_name: source.clone(),
        detail: "not UTF-8 text".to_string(),
    })?;
    let catalog = Catalog::parse(&text).map_err(|e| CatalogRegisterError::Invalid {
        source_name: source.clone(),
        source: e,
    })?;
    let chosen = if request.latest_per_minor {
        latest_per_minor(&catalog.isos)
    } else {
        catalog.isos.clone()
    };
    let mut selected = Vec::new();
    for mut iso in chosen {
        let url = match (&iso.url, fetch::is_url(source)) {
            (Some(url), _) => url.clone(),
            (None, true) => fetch::beside(source, &iso.file),
            (None, false) => {
                return Err(CatalogRegisterError::Incomplete {
                    source_name: source.clone(),
                    detail: format!(
                        "{} has no url; write the catalog with `cks-iso catalog DIR --base-url URL`, or pass the catalog's URL",
                        iso.file
                    ),
                });
            }
        };
        let digest = fetch::hash_iso(&client, &url, iso.size, &iso.sha256).await?;
        if let Some((key, key_name)) = &request.key {
            let Some(sig_name) = &iso.signature else {
                return Err(CatalogRegisterError::Incomplete {
                    source_name: source.clone(),
                    detail: format!(
                        "{} has no signature but --require-signature was given; sign it with `cks-iso catalog DIR --sign-key KEY`",
                        iso.file
                    ),
                });
            };
            let sig_url = fetch::beside(&url, sig_name);
            let sig = fetch::read_bounded(
                &client,
                "the ISO's signature",
                &sig_url,
                fetch::MAX_SIGNATURE,
            )
            .await?;
            key.verify_sha256(&digest, &sig)
                .map_err(|e| CatalogRegisterError::Signature {
                    what: format!("the ISO {url}"),
                    key: key_name.clone(),
                    source: e,
                })?;
            say(&format!(
                "{url}: sha256 {} and signature verified",
                iso.sha256
            ));
        } else {
            say(&format!("{url}: sha256 {} verified", iso.sha256));
        }
        iso.url = Some(url);
        selected.push(iso);
    }
    Ok(Loaded { catalog, selected })
}
