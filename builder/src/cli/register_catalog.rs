//! `cks-iso register --catalog`: verify the catalog and its ISOs, then plan and register per
//! zone, ending with a table.

use anyhow::Context;
use cks_builder::redact::controls;
use cks_builder::register::from_catalog::{self, CatalogRequest, Zones};
use cks_cloudstack::{CloudStackClient, CloudStackConfig};
use cks_signature::BlobKey;

use super::register_args::Args;

/// The most read of a public key file.
const MAX_KEY: u64 = 64 * 1024;

/// Runs `cks-iso register --catalog`.
pub async fn run(args: Args, config: CloudStackConfig) -> anyhow::Result<()> {
    let catalog = args.catalog.clone().unwrap_or_default();
    let key = match &args.key {
        Some(path) if args.require_signature => {
            let meta =
                std::fs::metadata(path).with_context(|| format!("--key {}", path.display()))?;
            anyhow::ensure!(
                meta.len() <= MAX_KEY,
                "--key {}: larger than {MAX_KEY} bytes, not a public key",
                path.display()
            );
            let pem = std::fs::read(path).with_context(|| format!("--key {}", path.display()))?;
            let key = BlobKey::from_pem(&pem).with_context(|| {
                format!(
                    "--key {}: expected the PEM public key from `cks-iso keygen` (PREFIX.pub)",
                    path.display()
                )
            })?;
            Some((key, path.display().to_string()))
        }
        _ => None,
    };
    let zones = if args.zone.is_empty() || args.zone.iter().any(|z| z == "all") {
        Zones::All
    } else {
        Zones::Named(args.zone.clone())
    };
    let request = CatalogRequest {
        catalog: catalog.clone(),
        catalog_limit: args.catalog_limit,
        zones,
        latest_per_minor: args.latest_per_minor,
        retire_eol: args.retire_eol,
        dry_run: args.dry_run,
        key,
        settings: args.settings(&config),
    };
    let loaded = from_catalog::load(&request, &mut |line| eprintln!("{}", controls(line)))
        .await
        .with_context(|| format!("registering from {catalog}"))?;
    let rows = tokio::task::spawn_blocking(move || {
        let client = CloudStackClient::new(config)?;
        let (_, steps) = from_catalog::plan(&client, &loaded, &request)?;
        from_catalog::apply(&client, &steps, &request, &mut |line| {
            eprintln!("{}", controls(line))
        })
        .map_err(anyhow::Error::from)
    })
    .await
    .context("the register task stopped")?
    .with_context(|| format!("registering from {catalog}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", controls(&from_catalog::render_table(&rows)));
        let changed = rows
            .iter()
            .filter(|r| !matches!(r.action.as_str(), "present" | "already disabled"))
            .count();
        if changed == 0 {
            println!("nothing to do: every zone has what the catalog lists");
        }
    }
    Ok(())
}
