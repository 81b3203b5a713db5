//! `cks-iso catalog`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::catalog::{self, Options};
use cks_builder::signing::SigningKey;

/// What `--help` adds below the flags.
const AFTER: &str = "Reads every *.iso directly in DIR: the Kubernetes version, arch and build time from its versions.txt, its size and sha256 (hashed again, the .sha256 beside it is not trusted), the SBOM (<iso>.spdx.json) and signature (<iso>.sig) beside it, and the cks-iso that built it (from the SBOM). Writes DIR/catalog.json (schema_version 1, see the README) and DIR/SHA256SUMS-<minor> for each minor (`sha256sum -c` form), each under a temporary name renamed when complete; removes the SHA256SUMS of minors no longer there.\n\nWith --sign-key: writes <iso>.sig for each ISO, SHA256SUMS-<minor>.sig and catalog.json.sig (base64 DER ECDSA over the file's SHA-256, as `cosign verify-blob --key` checks).\n\nExit codes: 0 written, 1 failed (nothing half-written), 2 bad command line.\n\nExample: cks-iso catalog out --base-url https://images.example/cks/ --sign-key release.key";

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
    /// Print the catalog as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `cks-iso catalog`.
pub async fn run(args: Args) -> anyhow::Result<()> {
    let key = args.sign_key.as_deref().map(SigningKey::read).transpose()?;
    let dir = args.dir.clone();
    let base_url = args.base_url.clone();
    let written = tokio::task::spawn_blocking(move || {
        catalog::write(
            &dir,
            &Options {
                base_url,
                sign_key: key.as_ref(),
            },
        )
    })
    .await
    .context("the catalog task stopped")?
    .with_context(|| format!("writing the catalog of {}", args.dir.display()))?;
    if args.json {
        print!("{}", written.catalog.render());
        return Ok(());
    }
    for iso in &written.catalog.isos {
        println!(
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
        );
    }
    for path in written.checksums.iter().chain(&written.signature) {
        println!("wrote {}", path.display());
    }
    for path in &written.removed {
        println!("removed {} (its minor is no longer here)", path.display());
    }
    println!(
        "wrote {} ({} ISO{})",
        written.path.display(),
        written.catalog.isos.len(),
        if written.catalog.isos.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    Ok(())
}
