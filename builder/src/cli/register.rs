//! `cks-iso register`.

use anyhow::Context;
use cks_builder::redact::controls;
use cks_builder::register::{self, Request, Status};
use cks_cloudstack::{CloudStackClient, CloudStackConfig};

use super::register_args::Args;

/// Runs `cks-iso register`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let mut config = CloudStackConfig::from_env().context("reading the CloudStack credentials")?;
    config.max_answer_size = args.max_answer_size;
    for warning in config.warnings() {
        eprintln!("cks-iso: warning: {warning}");
    }
    if args.catalog.is_some() {
        return super::register_catalog::run(args, config).await;
    }
    let (Some(iso), Some(url)) = (args.iso.clone(), args.url.clone()) else {
        anyhow::bail!("give an ISO and --url, or --catalog");
    };
    let zone = match args.zone.as_slice() {
        [] => None,
        [one] if one == "all" => None,
        [one] => Some(one.clone()),
        _ => anyhow::bail!(
            "--zone: one zone (or `all`) for a single ISO; several zones need --catalog"
        ),
    };
    // The key is read (and the ISO's signature checked) before CloudStack is called.
    let signature = args
        .key
        .as_deref()
        .map(super::register_args::read_key)
        .transpose()?;
    let request = Request {
        iso: iso.clone(),
        url,
        zone,
        name: args.name.clone(),
        settings: args.settings(&config),
        check_url: !args.no_check_url,
        replace: args.replace,
        force: args.force,
        signature,
    };
    let step =
        super::progress::Step::start(&format!("registering {}", super::progress::file_name(&iso)));
    let done = tokio::task::spawn_blocking(move || {
        let client = CloudStackClient::new(config)?;
        register::run(&client, &request, &mut |line| step.say(&controls(line)))
            .map_err(anyhow::Error::from)
    })
    .await
    .context("the register task stopped")?
    .with_context(|| format!("registering {}", iso.display()))?;
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&done).context("rendering the outcome as JSON")?
        )?;
        return Ok(());
    }
    let said = match done.status {
        Status::AlreadyRegistered => format!(
            "already registered: Kubernetes {} is {} (id {}) with the same checksum {}; nothing to do",
            done.semantic_version, done.name, done.id, done.checksum
        ),
        Status::Registered => format!(
            "registered Kubernetes {} as {} (id {}): ISO {}{}",
            done.semantic_version,
            done.name,
            done.id,
            done.iso_state,
            done.replaced
                .as_deref()
                .map(|old| format!(", replacing {old}"))
                .unwrap_or_default()
        ),
    };
    // The name, id and state are CloudStack's.
    outln!("{}", controls(&said))?;
    Ok(())
}
