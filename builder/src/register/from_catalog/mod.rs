//! `register --catalog`: each ISO of a release catalog registered in each zone it is missing
//! from, in three steps that [`super::run`]'s single ISO does not need:
//!
//! 1. [`load`]: the catalog read (bounded), its signature checked with `--key` when
//!    `--require-signature`, the ISOs selected (`--latest-per-minor`), and each one's URL
//!    fetched and hashed (streamed, never more than the catalog's size) against the catalog's
//!    sha256 and its `.sig`: all before CloudStack is called at all.
//! 2. [`plan`]: what CloudStack has, per zone, turned into [`Step`]s by
//!    [`cks_pinning::catalog::plan_registration`]; a version registered with another checksum
//!    stops the run here.
//! 3. [`apply`]: the steps carried out (unless `--dry-run`), each becoming a table row.

mod apply;
mod error;
mod fetch;
mod table;

use super::RegisterSettings;

use cks_pinning::catalog::{Catalog, CatalogIso, latest_per_minor};
use cks_signature::BlobKey;

pub use apply::{Row, apply, plan};
pub use error::CatalogRegisterError;
pub use table::render as render_table;

/// The catalog limit when `--catalog-limit` is not given.
pub const DEFAULT_CATALOG_LIMIT: u64 = 8 << 20;

/// Which zones to register in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Zones {
    /// Every zone CloudStack lists.
    All,
    /// These, by name or id.
    Named(Vec<String>),
}

/// What `register --catalog` is asked to do.
#[derive(Debug, Clone)]
pub struct CatalogRequest {
    /// The catalog's URL or path.
    pub catalog: String,
    /// The most bytes read of it.
    pub catalog_limit: u64,
    /// The zones.
    pub zones: Zones,
    /// Only the newest patch of each minor (per arch).
    pub latest_per_minor: bool,
    /// Retire registered versions whose minor the catalog no longer has.
    pub retire_eol: bool,
    /// Print the plan, change nothing.
    pub dry_run: bool,
    /// Require the catalog's and each ISO's signature by this key (`--key`, with its path).
    pub key: Option<(BlobKey, String)>,
    /// How each ISO is registered and waited for.
    pub settings: RegisterSettings,
}

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
