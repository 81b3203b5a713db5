//! `cks-iso catalog`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::catalog::{self, Options};
use cks_builder::signing::SigningKey;

use super::duration::{self, DurationError, Units};

/// What `--help` adds below the flags.
const AFTER: &str = "Reads every *.iso directly in DIR (at least one): each must pass `cks-iso verify` and agree with its .sha256 sidecar (when present), or nothing is written; then the Kubernetes version, arch and build time from its versions.txt, its size and sha256 (hashed again, the .sha256 beside it is not trusted), the SBOM (<iso>.spdx.json) and signature (<iso>.sig) beside it, and the cks-iso that built it (from the SBOM). Writes DIR/catalog.json (schema_version 1 with a serial and an expiry, see the README) and DIR/SHA256SUMS-<minor> for each minor (`sha256sum -c` form), each under a temporary name renamed when complete; removes the SHA256SUMS of minors no longer there.\n\nWith --sign-key: writes <iso>.sig for each ISO, SHA256SUMS-<minor>.sig and catalog.json.sig (base64 DER ECDSA over the file's SHA-256, as `cosign verify-blob --key` checks).\n\nExit codes: 0 written, 1 failed (nothing half-written), 2 bad command line.\n\nExample: cks-iso catalog out --base-url https://images.example/cks/ --sign-key release.key";

/// Flags of `cks-iso catalog`.
///
/// Writes catalog.json and a checksum file per minor for the ISOs in a folder.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER)]
pub struct Args {
    /// The folder holding the ISOs (and where the catalog is written).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The URL the folder is published at; each ISO's `url` is this plus its file name.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Sign each ISO, checksum file and the catalog with this ECDSA P-256 private key (PKCS#8
    /// PEM, mode 0600).
    #[arg(long, value_name = "FILE")]
    pub sign_key: Option<PathBuf>,
    /// The catalog's serial: each newer catalog must carry a larger one (`register --catalog`
    /// refuses one below the last it applied) [default: the Unix time now].
    #[arg(long, value_name = "N")]
    pub serial: Option<u64>,
    /// How long the catalog is valid: seconds, or with a unit (`12h`, `30d`) [default: 30d].
    #[arg(long, value_name = "DURATION", value_parser = parse_expiry)]
    pub expires_in: Option<std::time::Duration>,
    /// Print the catalog as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Parses `3600`, `3600s`, `12h` or `30d` (at least a minute).
pub fn parse_expiry(text: &str) -> Result<std::time::Duration, DurationError> {
    let expiry = duration::parse(
        text,
        &Units {
            scale: duration::SMHD,
            names: "s, m, h or d",
            examples: "3600, 12h or 30d",
        },
    )?;
    if expiry.as_secs() < 60 {
        return Err(DurationError::UnderAMinute {
            text: text.to_string(),
        });
    }
    Ok(expiry)
}

/// Runs `cks-iso catalog`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let key = args.sign_key.as_deref().map(SigningKey::read).transpose()?;
    let dir = args.dir.clone();
    let base_url = args.base_url.clone();
    let (serial, expires_in) = (args.serial, args.expires_in);
    let step = super::progress::Step::start(&format!(
        "checking the ISOs of {} for the catalog",
        args.dir.display()
    ));
    let written = tokio::task::spawn_blocking(move || {
        catalog::write(
            &dir,
            &Options {
                base_url,
                sign_key: key.as_ref(),
                serial,
                expires_in,
                ..Options::default()
            },
        )
    })
    .await
    .context("the catalog task stopped")?
    .with_context(|| format!("writing the catalog of {}", args.dir.display()))?;
    drop(step);
    if args.json {
        out!("{}", written.catalog.render())?;
        return Ok(());
    }
    for iso in &written.catalog.isos {
        outln!(
            "{}  {} {}  {} bytes  sha256 {}{}",
            iso.file,
            iso.kubernetes_version,
            iso.arch,
            iso.size,
            iso.sha256,
            if iso.signature.is_some() {
                "  signed"
            } else {
                ""
            }
        )?;
    }
    for path in written.checksums.iter().chain(&written.signature) {
        outln!("wrote {}", path.display())?;
    }
    for path in &written.removed {
        outln!("removed {} (its minor is no longer here)", path.display())?;
    }
    outln!(
        "wrote {} ({} ISO{})",
        written.path.display(),
        written.catalog.isos.len(),
        if written.catalog.isos.len() == 1 {
            ""
        } else {
            "s"
        }
    )?;
    Ok(())
}
