//! `cks-iso register --catalog`: verify the catalog and its ISOs, then plan and register per
//! zone, ending with a table; the catalog's serial is then recorded beside `--key`.

use anyhow::Context;
use cks_builder::redact::controls;
use cks_builder::register::from_catalog::{self, CatalogRequest, Zones};
use cks_cloudstack::{CloudStackClient, CloudStackConfig};

use super::register_args::{Args, read_key};

/// Runs `cks-iso register --catalog`.
pub async fn run(args: Args, config: CloudStackConfig) -> anyhow::Result<()> {
    let catalog = args.catalog.clone().unwrap_or_default();
    let key = match (&args.key, args.allow_unsigned) {
        (Some(path), _) => Some(read_key(path)?),
        (None, true) => {
            eprintln!(
                "cks-iso: warning: --allow-unsigned: {catalog} and its ISOs are not checked against any key; whoever serves them chooses what is registered (each ISO is still hashed and verified)"
            );
            None
        }
        (None, false) => anyhow::bail!(
            "--catalog {catalog}: --key PUB is required (the public key from `cks-iso keygen` that signed the catalog); pass --allow-unsigned to register from a catalog nobody signed"
        ),
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
        min_serial: args.min_serial,
        settings: args.settings(&config),
    };
    let loaded = from_catalog::load(&request, &mut |line| eprintln!("{}", controls(line)))
        .await
        .with_context(|| format!("registering from {catalog}"))?;
    let serial = loaded.catalog.serial;
    let key_path = args.key.clone();
    let dry_run = request.dry_run;
    let rows = tokio::task::spawn_blocking(move || {
        let client = CloudStackClient::new(config)?;
        let mut say = |line: &str| eprintln!("{}", controls(line));
        let (_, steps) = from_catalog::plan(&client, &loaded, &request, &mut say)?;
        from_catalog::apply(&client, &steps, &request, &mut say).map_err(anyhow::Error::from)
    })
    .await
    .context("the register task stopped")?
    .with_context(|| format!("registering from {catalog}"))?;
    if let (Some(key), Some(serial), false) = (&key_path, serial, dry_run) {
        from_catalog::record_serial(key, serial)
            .with_context(|| format!("recording the serial of {catalog}"))?;
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        out!("{}", controls(&from_catalog::render_table(&rows)))?;
        let changed = rows
            .iter()
            .filter(|r| !matches!(r.action.as_str(), "present" | "already disabled"))
            .count();
        if changed == 0 {
            outln!("nothing to do: every zone has what the catalog lists")?;
        }
    }
    Ok(())
}
