//! `cks-iso keygen`.

use std::path::PathBuf;

use anyhow::Context;
use cks_builder::signing::write_key_pair;

/// What `--help` adds below the flags.
const AFTER: &str = "Writes PREFIX.key (the private key: ECDSA P-256, PKCS#8 PEM, mode 0600) and PREFIX.pub (the public key: SubjectPublicKeyInfo PEM). Refuses when either exists. The private key is never printed: keep PREFIX.key in your CI's secret store and pass it as `--sign-key` to `cks-iso build` or `cks-iso catalog`; publish PREFIX.pub for `cks-iso register --require-signature --key`, `cosign verify-blob --key` and `openssl dgst -sha256 -verify`.\n\nExit codes: 0 written, 1 refused or failed, 2 bad command line.\n\nExample: cks-iso keygen --out release";

/// Flags of `cks-iso keygen`.
///
/// Writes a new key pair for signing ISOs and catalogs.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER)]
pub struct Args {
    /// The files' prefix: PREFIX.key and PREFIX.pub are written.
    #[arg(long, value_name = "PREFIX")]
    pub out: PathBuf,
    /// Print the written paths as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `cks-iso keygen`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pair = write_key_pair(&args.out)
        .with_context(|| format!("writing a key pair at {}", args.out.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&pair)?)?;
    } else {
        outln!(
            "private key: {} (mode 0600; never share it)",
            pair.private_key.display()
        )?;
        outln!("public key: {}", pair.public_key.display())?;
    }
    Ok(())
}
